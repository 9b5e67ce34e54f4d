package protocol

import (
	"encoding/json"
	"slices"
)

// Message is one decoded frame: a closed set of the structs in this file.
// Type returns the wire tag that "t" carries.
type Message interface {
	// Type is the message's "t" tag, for example "tool.call".
	Type() string
	// check verifies the fields after decoding and before encoding, both
	// strict: JSON values must also be valid JSON text.
	check(strict bool) error
}

// Request is a Message that expects a reply. RequestID is its sender-chosen
// id, never 0.
type Request interface {
	Message
	RequestID() uint64
}

// Reply is a Message that answers a request: ReplyTo is the request's id.
// (ErrorReply may carry 0 when it answers no particular request.)
type Reply interface {
	Message
	ReplyTo() uint64
}

// Version1 is the only protocol version so far.
const Version1 uint32 = 1

// SupportedVersions lists the protocol versions this package speaks, oldest
// first.
var SupportedVersions = []uint32{Version1}

// Capabilities a side may offer in hello and hello.ok. The selected set is
// the intersection; unknown capability strings are ignored.
const (
	// CapStreamOutput: the host sends output events for cells whose exec
	// set stream.
	CapStreamOutput = "stream_output"
	// CapTypeScript: the host accepts exec with language "ts".
	CapTypeScript = "typescript"
	// CapStore: the host keeps session stores, reports each cell's
	// committed writes in cell.result and accepts a store in session.open.
	CapStore = "store"
)

// Language is the source language of a cell.
type Language string

// Languages.
const (
	// LangJS is JavaScript (the default).
	LangJS Language = "js"
	// LangTS is TypeScript; the host strips the types (CapTypeScript).
	LangTS Language = "ts"
)

// Wire tags, one per message.
const (
	TypeHello         = "hello"
	TypeHelloOK       = "hello.ok"
	TypeHelloRejected = "hello.rejected"
	TypeOpenSession   = "session.open"
	TypeSessionOpened = "session.opened"
	TypeCloseSession  = "session.close"
	TypeSessionClosed = "session.closed"
	TypeExec          = "exec"
	TypeExecStarted   = "exec.started"
	TypeWait          = "wait"
	TypeTerminate     = "terminate"
	TypeCancel        = "cancel"
	TypeCellResult    = "cell.result"
	TypeCellClosed    = "cell.closed"
	TypeToolCall      = "tool.call"
	TypeToolResult    = "tool.result"
	TypeToolCancelled = "tool.cancelled"
	TypeNotify        = "notify"
	TypeOutput        = "output"
	TypePing          = "ping"
	TypePong          = "pong"
	TypeShutdown      = "shutdown"
	TypeError         = "error"
)

// ---- handshake ----

// Hello opens the connection (parent → host, first frame). The host answers
// HelloOK or HelloRejected.
type Hello struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
	// Versions are the protocol versions the parent speaks. Required.
	Versions []uint32 `msgpack:"versions"`
	// Capabilities the parent would like (the host selects those it has).
	Capabilities []string `msgpack:"capabilities,omitempty"`
	// Require lists capabilities the parent cannot work without: the host
	// rejects the hello when it lacks one.
	Require []string `msgpack:"require,omitempty"`
	// MaxFrame is the largest frame body the parent wants to use, in bytes
	// (0 = DefaultMaxFrame). See NegotiateMaxFrame.
	MaxFrame uint32 `msgpack:"max_frame,omitempty"`
	// Client names the parent for the host's logs ("name/version").
	Client string `msgpack:"client,omitempty"`
}

// HelloOK accepts the handshake (host → parent).
type HelloOK struct {
	// ID echoes Hello.ID.
	ID uint64 `msgpack:"id"`
	// Version is the selected protocol version: the highest in common.
	Version uint32 `msgpack:"version"`
	// Capabilities are the selected capabilities (both sides have them).
	Capabilities []string `msgpack:"capabilities,omitempty"`
	// Limits are the host's limits with defaults filled in; Limits.FrameBytes
	// is the negotiated frame cap, used from the next frame on by both sides.
	Limits Limits `msgpack:"limits"`
	// V8Version is the V8 version the host embeds.
	V8Version string `msgpack:"v8_version,omitempty"`
	// HostVersion is the codemode-host build version.
	HostVersion string `msgpack:"host_version,omitempty"`
}

// Handshake rejection reasons (HelloRejected.Reason).
const (
	// RejectNoCommonVersion: none of Hello.Versions is supported.
	RejectNoCommonVersion = "no_common_version"
	// RejectMissingCapability: the host lacks a capability in Hello.Require.
	RejectMissingCapability = "missing_capability"
	// RejectBadHello: the first frame was not a valid hello.
	RejectBadHello = "bad_hello"
)

// HelloRejected refuses the handshake (host → parent). The host then closes
// its output and exits.
type HelloRejected struct {
	// ID echoes Hello.ID (0 when the first frame was not a readable hello).
	ID uint64 `msgpack:"id,omitempty"`
	// Reason is one of the Reject* constants.
	Reason string `msgpack:"reason"`
	// Message explains the rejection and how to fix it.
	Message string `msgpack:"message"`
	// Versions are the versions the host supports.
	Versions []uint32 `msgpack:"versions,omitempty"`
	// Capability is the missing capability, for RejectMissingCapability.
	Capability string `msgpack:"capability,omitempty"`
}

// ---- sessions ----

// StoreEntry is one key of a session store: a JSON value. In
// CellResult.Store an entry without Value is a deletion.
type StoreEntry struct {
	// Key is the store key.
	Key string `msgpack:"key"`
	// Value is JSON text; absent means deleted.
	Value json.RawMessage `msgpack:"value,omitempty"`
}

// OpenSession creates a session (parent → host). Reply: SessionOpened.
type OpenSession struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
	// Session is the new session's id, chosen by the parent. Required.
	Session string `msgpack:"session"`
	// Limits override the host's limits for this session (see Limits.Merge).
	Limits *Limits `msgpack:"limits,omitempty"`
	// Store seeds the session store (restoring a session after a host
	// restart), sorted by key. Requires CapStore.
	Store []StoreEntry `msgpack:"store,omitempty"`
}

// SessionOpened confirms a session (host → parent).
type SessionOpened struct {
	// ID echoes OpenSession.ID.
	ID uint64 `msgpack:"id"`
	// Session is the session id.
	Session string `msgpack:"session"`
	// Limits are the session's effective limits.
	Limits Limits `msgpack:"limits"`
}

// CloseSession ends a session (parent → host): its live cells are
// terminated (each pending exec or wait gets its cell.result, each cell a
// cell.closed), then the host replies SessionClosed.
type CloseSession struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
	// Session is the session to close.
	Session string `msgpack:"session"`
}

// SessionClosed confirms a session is gone (host → parent).
type SessionClosed struct {
	// ID echoes CloseSession.ID.
	ID uint64 `msgpack:"id"`
	// Session is the closed session's id.
	Session string `msgpack:"session"`
}

// ---- cells ----

// Exec runs a cell (parent → host). The host answers ExecStarted, then
// exactly one CellResult with the same id (status yielded if the cell
// outlives its yield time). Errors before the cell exists are an
// ErrorReply instead.
type Exec struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
	// Session is the session the cell runs in. Required.
	Session string `msgpack:"session"`
	// Source is the script. Required; must not contain NUL.
	Source string `msgpack:"source"`
	// Language is LangJS (the default) or LangTS.
	Language Language `msgpack:"language,omitempty"`
	// Filename names the source in stack traces ("cell.js" by default).
	Filename string `msgpack:"filename,omitempty"`
	// Tools are the tools the script may call, in the order ALL_TOOLS lists
	// them; each is bound as tools.<JSIdent(namespace, name)>.
	Tools []ToolDef `msgpack:"tools,omitempty"`
	// YieldMS is how long to run before replying yielded, in milliseconds
	// (0 = DefaultYieldMS).
	YieldMS uint64 `msgpack:"yield_ms,omitempty"`
	// MaxOutputTokens is the output budget of this cell's results (0 = the
	// session's Limits.OutputTokens; larger values are clamped to it).
	MaxOutputTokens uint32 `msgpack:"max_output_tokens,omitempty"`
	// Limits override the session's limits for this cell (see Limits.Merge).
	Limits *Limits `msgpack:"limits,omitempty"`
	// Stream asks for output events as the script produces output
	// (CapStreamOutput). CellResult still carries all items.
	Stream bool `msgpack:"stream,omitempty"`
}

// ExecStarted tells the parent a cell exists (host → parent), before any
// tool call, output or result of that cell.
type ExecStarted struct {
	// ID echoes Exec.ID.
	ID uint64 `msgpack:"id"`
	// Session is the cell's session.
	Session string `msgpack:"session"`
	// Cell is the new cell's id, chosen by the host, unique in the session.
	Cell string `msgpack:"cell"`
}

// Wait asks for a yielded cell's new output (parent → host). The host
// replies with one CellResult carrying only output produced since the last
// result, as soon as the cell finishes or YieldMS passes.
type Wait struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
	// Session and Cell name the cell. Required.
	Session string `msgpack:"session"`
	Cell    string `msgpack:"cell"`
	// YieldMS is how long to wait for completion before replying yielded
	// (0 = DefaultYieldMS).
	YieldMS uint64 `msgpack:"yield_ms,omitempty"`
	// Quiet makes new output and notify not answer the wait: it is
	// answered at the cell's end, when YieldMS passes, on yield_control()
	// or on cancel. A model's wait should be quiet (every answer costs it
	// a turn); a parent that shows progress as it comes leaves it false.
	Quiet bool `msgpack:"quiet,omitempty"`
	// MaxOutputTokens is the output budget of this wait's result (0 = the
	// cell's output_tokens, which it can only tighten).
	MaxOutputTokens uint32 `msgpack:"max_output_tokens,omitempty"`
}

// Terminate stops a cell (parent → host). Reply: one CellResult with status
// terminated (or the cell's final status if it had already finished), and
// every other pending exec or wait of that cell gets its CellResult too.
type Terminate struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
	// Session and Cell name the cell. Required.
	Session string `msgpack:"session"`
	Cell    string `msgpack:"cell"`
}

// Cancel asks the host to answer a pending exec or wait at once (parent →
// host). It has no reply of its own: the targeted request gets its
// CellResult now (status yielded if the cell is still running). Cancel never
// stops a cell; Terminate does. Unknown or finished targets are ignored.
type Cancel struct {
	// Target is the id of the exec or wait to answer now. Required.
	Target uint64 `msgpack:"target"`
}

// CellResult answers an exec, wait or terminate (host → parent).
type CellResult struct {
	// ID echoes the exec, wait or terminate it answers.
	ID uint64 `msgpack:"id"`
	// Session and Cell name the cell.
	Session string `msgpack:"session"`
	Cell    string `msgpack:"cell"`
	// Status is yielded while the cell runs, else how it ended.
	Status Status `msgpack:"status"`
	// Items is the output since the previous result of this cell, in order.
	Items []Item `msgpack:"items,omitempty"`
	// Truncated is true when the output budget cut Items (a text item says
	// where and how much).
	Truncated bool `msgpack:"truncated,omitempty"`
	// Error says why the cell failed (status failed, timed_out,
	// out_of_memory, terminated), with the line and column in the source
	// the parent sent.
	Error *ErrorInfo `msgpack:"error,omitempty"`
	// Stats measure the cell so far.
	Stats Stats `msgpack:"stats"`
	// Store lists the store writes the cell committed, sorted by key, in
	// the final result of a cell that was not terminated (CapStore). The
	// parent keeps them to restore the session after a host restart.
	Store []StoreEntry `msgpack:"store,omitempty"`
}

// CellClosed tells the parent the host forgot a cell (host → parent): no
// message about it follows; its id is refused from now on with
// unknown_cell. Sent after the cell's final CellResult.
type CellClosed struct {
	// Session and Cell name the cell.
	Session string `msgpack:"session"`
	Cell    string `msgpack:"cell"`
}

// Notify carries a script's notify(text) (host → parent), sent at once.
type Notify struct {
	// Session and Cell name the cell.
	Session string `msgpack:"session"`
	Cell    string `msgpack:"cell"`
	// Text is the notification.
	Text string `msgpack:"text"`
}

// Output streams output items as the script makes them (host → parent),
// only for an exec with Stream set. They are copies for live display: the
// CellResult that follows carries them again.
type Output struct {
	// Session and Cell name the cell.
	Session string `msgpack:"session"`
	Cell    string `msgpack:"cell"`
	// Items are the new items, in order.
	Items []Item `msgpack:"items"`
}

// ---- tool calls ----

// ToolCallRequest asks the parent to run one tool call (host → parent). The
// parent replies ToolResult (or ErrorReply for a malformed request). ID is
// in the host's id space; it is the key of the call on the wire.
type ToolCallRequest struct {
	// ID is the request id, chosen by the host.
	ID uint64 `msgpack:"id"`
	// ToolCall is the call: session, cell, call number, tool name and
	// namespace, kind and JSON input.
	ToolCall `msgpack:",inline"`
}

// ToolResult answers a ToolCallRequest (parent → host): Value when the call
// succeeded, Error when it failed. A result for an id the host no longer
// waits for (cancelled, cell gone) is ignored.
type ToolResult struct {
	// ID echoes ToolCallRequest.ID.
	ID uint64 `msgpack:"id"`
	// Value is the tool's result as JSON text; absent means null.
	Value json.RawMessage `msgpack:"value,omitempty"`
	// Error is set when the call failed; then Value must be absent.
	Error *ToolError `msgpack:"error,omitempty"`
}

// ToolCancelled tells the parent the host no longer wants a tool call's
// result (host → parent): the cell finished or was terminated. The parent
// cancels the call's context; it may still send a ToolResult, which the
// host ignores.
type ToolCancelled struct {
	// ID is the ToolCallRequest.ID of the cancelled call.
	ID uint64 `msgpack:"id"`
	// Session, Cell and Call repeat the call's coordinates for logs.
	Session string `msgpack:"session,omitempty"`
	Cell    string `msgpack:"cell,omitempty"`
	Call    uint64 `msgpack:"call,omitempty"`
}

// ---- connection ----

// Ping asks the peer for a Pong (either direction). Use it to notice a
// peer that is alive but stuck.
type Ping struct {
	// ID is the request id.
	ID uint64 `msgpack:"id"`
}

// Pong answers a Ping.
type Pong struct {
	// ID echoes Ping.ID.
	ID uint64 `msgpack:"id"`
}

// Shutdown asks the host to exit (parent → host). The host takes no new
// work (requests get shutting_down), terminates its cells, answers every
// pending request, flushes, closes its output and exits 0. The end of the
// host's output is the acknowledgement.
type Shutdown struct {
	// GraceMS is how long running cells may take before they are terminated
	// (0 = terminate at once).
	GraceMS uint64 `msgpack:"grace_ms,omitempty"`
}

// ErrorReply fails one request (either direction), or reports a broken
// connection just before it closes (ID 0).
type ErrorReply struct {
	// ID echoes the failed request's id; 0 when it is unknown.
	ID uint64 `msgpack:"id,omitempty"`
	// Code is one of the ErrCode* constants.
	Code ErrorCode `msgpack:"code"`
	// Message explains the error for humans.
	Message string `msgpack:"message"`
	// FailedType is the "t" of the failed message, when known.
	FailedType string `msgpack:"failed_t,omitempty"`
}

// Type methods.

// Type returns "hello".
func (*Hello) Type() string { return TypeHello }

// Type returns "hello.ok".
func (*HelloOK) Type() string { return TypeHelloOK }

// Type returns "hello.rejected".
func (*HelloRejected) Type() string { return TypeHelloRejected }

// Type returns "session.open".
func (*OpenSession) Type() string { return TypeOpenSession }

// Type returns "session.opened".
func (*SessionOpened) Type() string { return TypeSessionOpened }

// Type returns "session.close".
func (*CloseSession) Type() string { return TypeCloseSession }

// Type returns "session.closed".
func (*SessionClosed) Type() string { return TypeSessionClosed }

// Type returns "exec".
func (*Exec) Type() string { return TypeExec }

// Type returns "exec.started".
func (*ExecStarted) Type() string { return TypeExecStarted }

// Type returns "wait".
func (*Wait) Type() string { return TypeWait }

// Type returns "terminate".
func (*Terminate) Type() string { return TypeTerminate }

// Type returns "cancel".
func (*Cancel) Type() string { return TypeCancel }

// Type returns "cell.result".
func (*CellResult) Type() string { return TypeCellResult }

// Type returns "cell.closed".
func (*CellClosed) Type() string { return TypeCellClosed }

// Type returns "notify".
func (*Notify) Type() string { return TypeNotify }

// Type returns "output".
func (*Output) Type() string { return TypeOutput }

// Type returns "tool.call".
func (*ToolCallRequest) Type() string { return TypeToolCall }

// Type returns "tool.result".
func (*ToolResult) Type() string { return TypeToolResult }

// Type returns "tool.cancelled".
func (*ToolCancelled) Type() string { return TypeToolCancelled }

// Type returns "ping".
func (*Ping) Type() string { return TypePing }

// Type returns "pong".
func (*Pong) Type() string { return TypePong }

// Type returns "shutdown".
func (*Shutdown) Type() string { return TypeShutdown }

// Type returns "error".
func (*ErrorReply) Type() string { return TypeError }

// Request ids.

// RequestID returns m.ID.
func (m *Hello) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *OpenSession) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *CloseSession) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *Exec) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *Wait) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *Terminate) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *ToolCallRequest) RequestID() uint64 { return m.ID }

// RequestID returns m.ID.
func (m *Ping) RequestID() uint64 { return m.ID }

// Reply ids.

// ReplyTo returns m.ID.
func (m *HelloOK) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *HelloRejected) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *SessionOpened) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *SessionClosed) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *ExecStarted) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *CellResult) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *ToolResult) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *Pong) ReplyTo() uint64 { return m.ID }

// ReplyTo returns m.ID.
func (m *ErrorReply) ReplyTo() uint64 { return m.ID }

// newMessage maps a wire tag to a fresh message value.
var newMessage = map[string]func() Message{
	TypeHello:         func() Message { return new(Hello) },
	TypeHelloOK:       func() Message { return new(HelloOK) },
	TypeHelloRejected: func() Message { return new(HelloRejected) },
	TypeOpenSession:   func() Message { return new(OpenSession) },
	TypeSessionOpened: func() Message { return new(SessionOpened) },
	TypeCloseSession:  func() Message { return new(CloseSession) },
	TypeSessionClosed: func() Message { return new(SessionClosed) },
	TypeExec:          func() Message { return new(Exec) },
	TypeExecStarted:   func() Message { return new(ExecStarted) },
	TypeWait:          func() Message { return new(Wait) },
	TypeTerminate:     func() Message { return new(Terminate) },
	TypeCancel:        func() Message { return new(Cancel) },
	TypeCellResult:    func() Message { return new(CellResult) },
	TypeCellClosed:    func() Message { return new(CellClosed) },
	TypeNotify:        func() Message { return new(Notify) },
	TypeOutput:        func() Message { return new(Output) },
	TypeToolCall:      func() Message { return new(ToolCallRequest) },
	TypeToolResult:    func() Message { return new(ToolResult) },
	TypeToolCancelled: func() Message { return new(ToolCancelled) },
	TypePing:          func() Message { return new(Ping) },
	TypePong:          func() Message { return new(Pong) },
	TypeShutdown:      func() Message { return new(Shutdown) },
	TypeError:         func() Message { return new(ErrorReply) },
}

// Types lists every wire tag, sorted.
func Types() []string {
	ts := make([]string, 0, len(newMessage))
	for t := range newMessage {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

// AnsweredType returns the type of the request a reply of type t answers,
// for an error reply's FailedType when the reply itself cannot be sent:
// "hello" for hello.ok, "exec" for exec.started, "ping" for pong, and so
// on. A cell.result answers an exec, a wait or a terminate, which its type
// does not say: AnsweredType returns "" for it, as for every type that is
// not a reply (the caller knows which request it answers).
func AnsweredType(t string) string {
	switch t {
	case TypeHelloOK, TypeHelloRejected:
		return TypeHello
	case TypeSessionOpened:
		return TypeOpenSession
	case TypeSessionClosed:
		return TypeCloseSession
	case TypeExecStarted:
		return TypeExec
	case TypeToolResult:
		return TypeToolCall
	case TypePong:
		return TypePing
	}
	return ""
}
