package protocol

// Limits bounds what a host, a session or a cell may use. Every field's zero
// value means "the default" (DefaultLimits); on the wire a zero or absent
// key means the same.
//
// Limits are set at three levels: the host's own limits (its configuration,
// reported in hello.ok), a session's override (session.open) and a cell's
// override (exec). Each level can only tighten the one above: see Merge.
type Limits struct {
	// WallTimeMS is how long a cell may run in total, in milliseconds,
	// including time spent waiting for tools. Default 300000 (5 minutes).
	// A cell over it ends with status timed_out.
	WallTimeMS uint64 `msgpack:"wall_ms,omitempty" json:"wall_ms,omitempty"`
	// CPUTimeMS is the JavaScript execution time a cell may use, in
	// milliseconds; time spent waiting for tools does not count. Default
	// 30000. A cell over it ends with status timed_out.
	CPUTimeMS uint64 `msgpack:"cpu_ms,omitempty" json:"cpu_ms,omitempty"`
	// HeapMiB is the V8 heap a cell may use, in MiB. Default 256. A cell
	// over it ends with status out_of_memory; the host keeps serving.
	HeapMiB uint32 `msgpack:"heap_mib,omitempty" json:"heap_mib,omitempty"`
	// OutputTokens is the output budget of one cell result, in tokens
	// (estimated as bytes/4). Default 10000. Longer output is truncated in
	// the middle with a note saying how much was dropped.
	OutputTokens uint32 `msgpack:"output_tokens,omitempty" json:"output_tokens,omitempty"`
	// ToolCallsPerCell is how many tool calls one cell may start. Default
	// 10000. Further calls reject in the script with code limit_exceeded.
	ToolCallsPerCell uint32 `msgpack:"tool_calls,omitempty" json:"tool_calls,omitempty"`
	// ConcurrentToolCalls is how many tool calls of one cell may be in
	// flight at once. Default 1024. Further calls wait in the host until one
	// finishes; they are not failed.
	ConcurrentToolCalls uint32 `msgpack:"concurrent_tool_calls,omitempty" json:"concurrent_tool_calls,omitempty"`
	// SourceBytes is the largest cell source, in bytes. Default 1 MiB. A
	// bigger exec fails with error code limit_exceeded.
	SourceBytes uint32 `msgpack:"source_bytes,omitempty" json:"source_bytes,omitempty"`
	// CellsPerSession is how many cells of one session may be live (running
	// or yielded) at once. Default 16. Host-wide at the host level, per
	// session otherwise; ignored in an exec override.
	CellsPerSession uint32 `msgpack:"cells,omitempty" json:"cells,omitempty"`
	// SessionsPerHost is how many sessions may be open at once. Default 64.
	// Host-level only: ignored in session and exec overrides.
	SessionsPerHost uint32 `msgpack:"sessions,omitempty" json:"sessions,omitempty"`
	// FrameBytes is the largest frame body, in bytes, in both directions.
	// Default 8 MiB (DefaultMaxFrame), at least MinMaxFrame. Negotiated in
	// the handshake; host-level only: ignored in session and exec overrides.
	FrameBytes uint32 `msgpack:"frame_bytes,omitempty" json:"frame_bytes,omitempty"`
	// StoreBytes is how large one session's store may grow, in bytes, as
	// StoreCost counts them. Default 4 MiB (DefaultStoreBytes). A store()
	// that would pass it throws a RangeError in the script; a session.open
	// whose store passes it fails with limit_exceeded. It is never more than
	// half of FrameBytes (MaxStoreBytes), so a whole store always fits in
	// the session.open that restores it.
	StoreBytes uint32 `msgpack:"store_bytes,omitempty" json:"store_bytes,omitempty"`
	// OutputBytes is the cell's output byte limit, whatever OutputTokens
	// says: the most bytes of output one cell result carries (items as the
	// output budget counts them), the longest text one text(), console.*
	// call or return value makes (a longer one is cut in its middle, with
	// a note where the cut is, and the result says truncated), and the
	// largest image data URL (a larger one is a RangeError in the script).
	// Default 1 MiB (DefaultOutputBytes).
	OutputBytes uint32 `msgpack:"output_bytes,omitempty" json:"output_bytes,omitempty"`
}

// Frame size bounds.
const (
	// DefaultMaxFrame is the frame body cap when nobody asks for another.
	DefaultMaxFrame = 8 << 20
	// MinMaxFrame is the smallest frame cap a side may negotiate.
	MinMaxFrame = 64 << 10
	// HardMaxFrame is the largest frame cap this implementation accepts.
	HardMaxFrame = 256 << 20
)

// DefaultStoreBytes is the default per-session store limit (StoreBytes).
const DefaultStoreBytes = 4 << 20

// DefaultOutputBytes is the default output byte limit of a cell
// (OutputBytes). The runtime's own default is this constant.
const DefaultOutputBytes = 1 << 20

// StoreEntryOverhead is what StoreCost adds for each key beyond its bytes:
// it bounds how many entries a store of StoreBytes can hold, so the frame
// that carries it stays within the decoder's MaxItems.
const StoreEntryOverhead = 128

// StoreCost is what one store entry counts against Limits.StoreBytes: the
// bytes of its key and of its JSON value, plus StoreEntryOverhead. It is
// the one definition of a store's size, used by the script's store(), by
// session.open and by the bridge's mirror.
func StoreCost(key string, value []byte) int {
	return len(key) + len(value) + StoreEntryOverhead
}

// MaxStoreBytes returns the largest store limit a frame cap allows: half
// of it, so a restored store plus its session.open envelope fits, and
// never so large that a store of small entries passes MaxItems.
func MaxStoreBytes(frameBytes uint32) uint32 {
	return min(or(frameBytes, DefaultMaxFrame)/2, maxStoreForItems)
}

// maxStoreForItems keeps a whole store within the decoder's MaxItems: an
// entry is 5 msgpack values ({key, value} map) and costs at least
// StoreEntryOverhead+2 bytes, and 4,096 values are left for the envelope
// and a result's items.
const maxStoreForItems = (MaxItems - 4096) / 5 * (StoreEntryOverhead + 2)

// DefaultYieldMS is the yield time of exec and wait when they name none.
const DefaultYieldMS = 10000

// DefaultWallTimeMS is the default WallTimeMS: 5 minutes.
const DefaultWallTimeMS = 300_000

// DefaultLimits are the limits used for every zero field.
var DefaultLimits = Limits{
	WallTimeMS:          DefaultWallTimeMS,
	CPUTimeMS:           30_000,
	HeapMiB:             256,
	OutputTokens:        10_000,
	ToolCallsPerCell:    10_000,
	ConcurrentToolCalls: 1024,
	SourceBytes:         1 << 20,
	CellsPerSession:     16,
	SessionsPerHost:     64,
	FrameBytes:          DefaultMaxFrame,
	StoreBytes:          DefaultStoreBytes,
	OutputBytes:         DefaultOutputBytes,
}

// WithDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	return Limits{
		WallTimeMS:          or(l.WallTimeMS, d.WallTimeMS),
		CPUTimeMS:           or(l.CPUTimeMS, d.CPUTimeMS),
		HeapMiB:             or(l.HeapMiB, d.HeapMiB),
		OutputTokens:        or(l.OutputTokens, d.OutputTokens),
		ToolCallsPerCell:    or(l.ToolCallsPerCell, d.ToolCallsPerCell),
		ConcurrentToolCalls: or(l.ConcurrentToolCalls, d.ConcurrentToolCalls),
		SourceBytes:         or(l.SourceBytes, d.SourceBytes),
		CellsPerSession:     or(l.CellsPerSession, d.CellsPerSession),
		SessionsPerHost:     or(l.SessionsPerHost, d.SessionsPerHost),
		FrameBytes:          or(l.FrameBytes, d.FrameBytes),
		StoreBytes:          min(or(l.StoreBytes, d.StoreBytes), MaxStoreBytes(or(l.FrameBytes, d.FrameBytes))),
		OutputBytes:         or(l.OutputBytes, d.OutputBytes),
	}
}

// Merge applies an override to l, the limits of the level above (the host's
// for a session, the session's for a cell), and returns the effective
// limits with no zero field:
//
//   - zero fields of l take DefaultLimits;
//   - a zero field of o keeps l's value;
//   - a nonzero field of o replaces l's only when it is smaller: an
//     override tightens, it never loosens;
//   - SessionsPerHost and FrameBytes are host-level and always come from l.
//
// Use host.Merge(sessionOverride) for a session and
// session.Merge(execOverride) for a cell.
func (l Limits) Merge(o Limits) Limits {
	m := l.WithDefaults()
	m.WallTimeMS = tighten(m.WallTimeMS, o.WallTimeMS)
	m.CPUTimeMS = tighten(m.CPUTimeMS, o.CPUTimeMS)
	m.HeapMiB = tighten(m.HeapMiB, o.HeapMiB)
	m.OutputTokens = tighten(m.OutputTokens, o.OutputTokens)
	m.ToolCallsPerCell = tighten(m.ToolCallsPerCell, o.ToolCallsPerCell)
	m.ConcurrentToolCalls = tighten(m.ConcurrentToolCalls, o.ConcurrentToolCalls)
	m.SourceBytes = tighten(m.SourceBytes, o.SourceBytes)
	m.CellsPerSession = tighten(m.CellsPerSession, o.CellsPerSession)
	m.StoreBytes = tighten(m.StoreBytes, o.StoreBytes)
	m.OutputBytes = tighten(m.OutputBytes, o.OutputBytes)
	return m
}

// NegotiateMaxFrame returns the frame cap both sides use: the smaller of
// the parent's request and the host's own cap (each 0 = DefaultMaxFrame),
// clamped to [MinMaxFrame, HardMaxFrame].
func NegotiateMaxFrame(parent, host uint32) uint32 {
	n := min(or(parent, DefaultMaxFrame), or(host, DefaultMaxFrame))
	return min(max(n, MinMaxFrame), HardMaxFrame)
}

func or[T uint32 | uint64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

func tighten[T uint32 | uint64](base, override T) T {
	if override != 0 && override < base {
		return override
	}
	return base
}
