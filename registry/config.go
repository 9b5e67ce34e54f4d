package registry

import (
	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/toolsearch"
)

// DefaultSearchLimit is how many tools tool_search returns when the model
// gives no limit.
const DefaultSearchLimit = toolsearch.DefaultLimit

// DuplicatePolicy says what adding a trusted tool whose name is taken does.
type DuplicatePolicy uint8

const (
	// DuplicateDefault panics in test binaries (testing.Testing) and
	// returns an error otherwise.
	DuplicateDefault DuplicatePolicy = iota
	// DuplicatePanic always panics: a duplicate built-in is a bug.
	DuplicatePanic
	// DuplicateError always returns an error (and logs it).
	DuplicateError
)

// Config configures a Registry. The zero value is a working registry.
// A Registry never changes its Config; callbacks are called from
// dispatching goroutines, many at once, and must be safe for that.
type Config struct {
	// Logger receives warnings (skipped external tools, identifier
	// clashes) and errors. Default: hclog.NewNullLogger().
	Logger hclog.Logger
	// Strict makes Finalize fail with a *CollisionError when any tool name
	// collided. Default false: the first registrant wins and a warning is
	// logged.
	Strict bool
	// TrustedDuplicates is what adding a trusted tool whose name is taken
	// does. Default DuplicateDefault (panic under go test, else error).
	TrustedDuplicates DuplicatePolicy
	// DisableSearch removes tool_search. Default false: tool_search is
	// offered whenever the set has searchable deferred tools.
	DisableSearch bool
	// SearchLimit is tool_search's default limit. Default DefaultSearchLimit.
	SearchLimit int
	// ExcludedCodeModeNamespaces are namespaces whose tools are never bound
	// into Code Mode, whatever their exposure. Default none.
	ExcludedCodeModeNamespaces []string
	// ExecShape is how exec is offered to the model: ExecFreeform (the
	// program is the tool's input) or ExecFunction (a JSON function tool
	// taking {code, yield_ms?}, for APIs without freeform tools). Default
	// ExecFreeform. ExecArgs decodes either.
	ExecShape ExecShape
	// Exec and Wait run the model-facing exec and wait tools in Code Mode
	// (the agent sends the cell to the host; Invocation.ToolSet gives the
	// definitions and executor). Default: calling them fails with a hint,
	// for agents that handle exec and wait before dispatching.
	Exec HandlerFunc
	Wait HandlerFunc
	// PreToolUse hooks run in order; the first to deny stops the call.
	// Default none.
	PreToolUse []PreToolUseHook
	// Approve approves calls. Default: every call is approved.
	Approve Approver
	// PostToolUse hooks run in order, each seeing the previous one's text.
	// Default none.
	PostToolUse []PostToolUseHook
	// OnResultAccepted sees each successful call's final result (after
	// hooks and reminders). Default none.
	OnResultAccepted func(call Call, res Result)
	// OnEvent receives begin/end lifecycle events. Default none.
	OnEvent func(Event)
	// State says where and when per-session tool state (StateKey) is
	// saved. Default: in memory only.
	State StateConfig
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.SearchLimit <= 0 {
		c.SearchLimit = DefaultSearchLimit
	}
	return c
}
