package registry

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// Source says who made a call.
type Source uint8

const (
	// SourceModel is a call the model (or the agent itself) made directly.
	// Any tool in the set may be dispatched this way, Hidden ones included.
	SourceModel Source = iota
	// SourceScript is a call a Code Mode script made. The tool's exposure
	// must permit Code Mode and the tool must be bound in the set.
	SourceScript
)

// String is "model" or "script".
func (s Source) String() string {
	if s == SourceScript {
		return "script"
	}
	return "model"
}

// Call is one tool call going through the dispatch pipeline.
type Call struct {
	// Name is the tool to call. The pipeline replaces it with its canonical
	// form (Key) before hooks and the tool see it.
	Name ToolName
	// Kind is the payload kind: protocol.KindFunction (the default, "") or
	// protocol.KindFreeform. It must match the tool's kind.
	Kind protocol.ToolKind
	// Input is JSON text: an object for function tools (nil means {}), a
	// string for freeform tools (see FreeformInput).
	Input json.RawMessage
	// Source is who made the call. Default SourceModel.
	Source Source
	// ModelCallID is the id the model gave a direct call, if any.
	ModelCallID string
	// SessionID is the session the call belongs to, from the model or a
	// script alike: it selects the session's tool state (StateKey).
	// Default "": calls without a session share one.
	SessionID string
	// CellID and CallID identify a script's call.
	CellID string
	CallID uint64
}

// Result is a successful call's outcome, split in two: the structured
// value scripts get, and the text the model sees.
type Result struct {
	// Tool is the canonical name of the tool that ran.
	Tool ToolName
	// Value is the structured result as JSON text (never nil; "null" when
	// the tool returned none). PostToolUse hooks and reminders never
	// change it.
	Value json.RawMessage
	// ModelText is what the model sees: the tool's text, possibly replaced
	// by PostToolUse hooks, followed by any reminders.
	ModelText string
}

// PreToolUseHook runs before a call is approved and executed. It may deny
// the call or rewrite its input (the new input is validated against the
// schema again). Called from dispatching goroutines, many at once.
type PreToolUseHook func(ctx context.Context, call Call) PreToolUseDecision

// PreToolUseDecision is what a PreToolUseHook decided. The zero value lets
// the call through unchanged.
type PreToolUseDecision struct {
	// Deny refuses the call with code "denied".
	Deny bool
	// Reason tells the model or script why it was denied.
	Reason string
	// Input, when not nil, replaces the call's input.
	Input json.RawMessage
}

// PostToolUseHook runs after a tool succeeded. It may replace the text the
// model sees; the structured value scripts get is never changed. Called
// from dispatching goroutines, many at once.
type PostToolUseHook func(ctx context.Context, call Call, res Result) PostToolUseDecision

// PostToolUseDecision is what a PostToolUseHook decided. The zero value
// keeps the result as it is.
type PostToolUseDecision struct {
	// ReplaceText makes ModelText the text the model sees.
	ReplaceText bool
	ModelText   string
}

// Approver decides whether a call may run, after PreToolUse hooks. A
// non-nil error denies it (code "denied", the error's text as reason).
// Called from dispatching goroutines, many at once; it may block (asking
// the user) and should return when ctx is done.
type Approver func(ctx context.Context, call Call) error

// Reminder appends text to what the model sees after a successful call
// (a lint warning, a pending task); "" appends nothing. Reminders never
// change the structured value. Called from dispatching goroutines.
type Reminder func(ctx context.Context, call Call, res Result) string

// EventKind says which lifecycle event an Event is.
type EventKind uint8

const (
	// EventBegin is sent once a call has resolved to a tool it may use,
	// with a payload of the tool's kind; a call that fails before (unknown
	// tool, not in Code Mode, wrong kind) has no events.
	EventBegin EventKind = iota
	// EventEnd is sent exactly once after every EventBegin.
	EventEnd
)

// String is "begin" or "end".
func (k EventKind) String() string {
	if k == EventEnd {
		return "end"
	}
	return "begin"
}

// Event is a call's lifecycle event. Script calls carry their SessionID,
// CellID and CallID in Call.
type Event struct {
	Kind EventKind
	Call Call
	// Result is set on a successful EventEnd.
	Result *Result
	// Err is the *protocol.ToolError of a failed EventEnd.
	Err error
	// Duration is the time from EventBegin to EventEnd.
	Duration time.Duration
}
