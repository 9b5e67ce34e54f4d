package runtime

import (
	"encoding/json"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/protocol"
)

// Config configures a Runtime. The zero value is ready to use.
type Config struct {
	// IdleIsolates is how many idle isolates are kept warm for the next
	// cells. While fewer exist, starting a cell also warms a spare, so a
	// cell that follows at once finds a context already prepared.
	// Default 2.
	IdleIsolates int
	// CellsPerIsolate is how many cells an isolate runs before it is
	// disposed and replaced, which bounds what closed contexts can pile
	// up. Default 256.
	CellsPerIsolate int
	// Prewarm is how many isolates New creates before it returns, so the
	// first cell does not pay for one. Default 1; negative means none.
	Prewarm int
	// HeapLimitMB is V8's old-space limit for every isolate in the process
	// (--max-old-space-size). It can be set only once per process: the first
	// Runtime's value wins. A script that nears it is stopped as
	// out_of_memory and its isolate discarded. Default 512.
	HeapLimitMB int
	// MaxRSSMB stops every running cell as out_of_memory when the process's
	// resident memory passes it (ArrayBuffers live outside the V8 heap).
	// Default 4096; negative disables the watchdog.
	MaxRSSMB int
	// StuckAfter is how long a stopped cell may take to actually end.
	// V8 checks for termination between statements, but not inside some
	// long builtins (Array.prototype.sort of a million items runs about a
	// second without a check); a cell stuck there this long is reported to
	// OnStuck. Default 5s.
	StuckAfter time.Duration
	// OnStuck is called, on its own goroutine, with a cell that did not
	// end within StuckAfter of being stopped. The isolate's thread cannot
	// be reclaimed, so a host process should report the cell and exit
	// (its parent restarts it). Default: log an error.
	OnStuck func(c *Cell, status protocol.Status, reason protocol.ErrorInfo)
	// PollBeforeSleep is how long the loop of a cell with a pending tool
	// call polls for an answer before it sleeps, yielding its CPU between
	// looks (and reading Input, when set). It polls only while it is the
	// only loop running and GOMAXPROCS > 1, and only on Linux. It pays when
	// the answers come from another process that answers within about
	// that long (a host's parent); a tool answered on a goroutine of this
	// process would only be kept from its P. Default 0: no polling.
	PollBeforeSleep time.Duration
	// Input, when set, is read by a polling loop between its looks.
	Input InputPoller
	// Logger receives diagnostics. Default: discard.
	Logger hclog.Logger
}

func (c Config) withDefaults() Config {
	if c.IdleIsolates <= 0 {
		c.IdleIsolates = 2
	}
	if c.CellsPerIsolate <= 0 {
		c.CellsPerIsolate = 256
	}
	if c.Prewarm == 0 {
		c.Prewarm = 1
	}
	if c.HeapLimitMB <= 0 {
		c.HeapLimitMB = 512
	}
	if c.MaxRSSMB == 0 {
		c.MaxRSSMB = 4096
	}
	if c.StuckAfter <= 0 {
		c.StuckAfter = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.OnStuck == nil {
		log := c.Logger
		c.OnStuck = func(cell *Cell, _ protocol.Status, reason protocol.ErrorInfo) {
			log.Error("runtime: a stopped cell is stuck inside V8 and cannot be reclaimed", "cell", cell.ID(), "reason", reason.Message)
		}
	}
	return c
}

// limits are a cell's limits in the runtime's terms. They come only from
// the request's protocol.Limits, through limitsOf, so a cell run in
// process and one run by a host have the same defaults
// (protocol.DefaultLimits).
type limits struct {
	wall, cpu     time.Duration
	heapMB        int
	toolCalls     int // tool calls per cell; later ones reject
	concurrent    int // tool calls in flight; more wait for a slot
	outputTokens  int // <= 0: no token budget (OutputBytes still applies)
	outputBytes   int
	sourceBytes   int
	storeBytes    int
	notifications int
}

// MaxNotifications is how many notify() calls one cell may make; the
// next one throws a RangeError.
const MaxNotifications = 1000

// limitsOf is the one mapping from a cell's protocol limits (zero fields
// take protocol.DefaultLimits) to the runtime's; with noTokens the output
// is bounded by OutputBytes only (CellRequest.NoTokenBudget).
func limitsOf(pl protocol.Limits, noTokens bool) limits {
	l := pl.WithDefaults()
	out := limits{
		wall:          time.Duration(l.WallTimeMS) * time.Millisecond,
		cpu:           time.Duration(l.CPUTimeMS) * time.Millisecond,
		heapMB:        int(l.HeapMiB),
		toolCalls:     int(l.ToolCallsPerCell),
		concurrent:    int(l.ConcurrentToolCalls),
		outputTokens:  int(l.OutputTokens),
		outputBytes:   int(l.OutputBytes),
		sourceBytes:   int(l.SourceBytes),
		storeBytes:    int(l.StoreBytes),
		notifications: MaxNotifications,
	}
	if noTokens {
		out.outputTokens = 0
	}
	return out
}

// budget is the output Budget of a cell with limits l.
func (l limits) budget() Budget {
	return TokenBudget(l.outputTokens, l.outputBytes)
}

// InputPoller is an input the loop of a cell reads itself while it
// polls for an answer before it sleeps (Config.Input): an answer the loop
// reads and delivers itself needs no hand-off from another thread. Both
// methods are called on loop goroutines only.
type InputPoller interface {
	// PollInput reads and handles what has arrived, without blocking, and
	// reports whether it read anything.
	PollInput() bool
	// PollDone is called when the loop stops polling for a while: before it
	// sleeps, and when it ends. Input it would have read must now be read
	// by someone else.
	PollDone()
}

// CellRequest is one cell to run.
type CellRequest struct {
	// ID names the cell in tool calls and results. Default "cell-<n>".
	ID string
	// SessionID is copied into every tool call.
	SessionID string
	// Source is the JavaScript or TypeScript to run. Top-level await and
	// return work.
	Source string
	// Language is protocol.LangJS (the default) or protocol.LangTS: a
	// TypeScript cell is stripped with esbuild first and its errors point
	// into the TypeScript.
	Language protocol.Language
	// Origin is the script name in stack traces. Default DefaultOrigin.
	Origin string
	// Tools are bound as tools.<ident>; identifiers are normalised and the
	// first tool to claim one wins. Only direct, deferred and code_mode_only
	// tools are bound.
	Tools []protocol.ToolDef
	// Events receives what the cell reports (see Events). Default: none.
	Events Events
	// Caller, when set, answers the cell's tool calls, each on its own
	// goroutine, in place of Events.ToolCall: the simple way to serve
	// tools in process. A cell that binds tools needs one of the two.
	Caller ToolCaller
	// Limits bound the cell; zero fields take protocol.DefaultLimits. The
	// host-level fields (CellsPerSession, SessionsPerHost, FrameBytes) do
	// not apply to a cell. A source over SourceBytes is refused by Start.
	Limits protocol.Limits
	// NoTokenBudget bounds the output by Limits.OutputBytes only, not by
	// OutputTokens: Result.Items and the notify texts in all (a host that
	// applies the token budget to each of its own results sets it).
	NoTokenBudget bool
	// Store is the session's stored values when the cell starts, by key,
	// as JSON text; load() reads from it. The cell never changes the map.
	Store map[string]json.RawMessage
}

// Result is how a cell ended.
type Result struct {
	// CellID is the cell's ID.
	CellID string
	// Status is completed, failed, terminated, timed_out or out_of_memory.
	Status protocol.Status
	// Items is the output in the order the script made it, within
	// Limits.OutputTokens and OutputBytes; a non-undefined return
	// value is last (when the budget cut the output, the end of it is kept).
	Items []protocol.Item
	// Truncated is true when the budget cut Items or Error (a text item
	// stands where Items were cut; the error's strings say where).
	Truncated bool
	// Returned is the script's return value in full, when it completed
	// with one that is not undefined (Items ends with it, or its end).
	Returned *protocol.Item
	// Error says why the cell did not complete; nil when it did.
	Error *protocol.ErrorInfo
	// Stats measure the cell.
	Stats protocol.Stats
	// StoreWrites are the values the cell stored, by key, as JSON text.
	// The session commits them when the cell completed or failed and drops
	// them when it was stopped (DESIGN §5).
	StoreWrites map[string]json.RawMessage
}
