package runtime

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/codemode-host/codemode-host/protocol"
)

// Events receives what a running cell reports: the seam between the
// runtime and whoever runs the cell (a host's server, a test). Commands go
// the other way: Runtime.Start starts a cell, ToolCall.Answer answers one
// of its calls and Cell.Terminate stops it.
//
// Every method is called on the cell's loop goroutine and must not block.
// Each event is reported once; Result is the last, exactly once per
// started cell.
type Events interface {
	// Turn is called before each JS turn: before the script first runs,
	// and each time the loop wakes to deliver answers and due timers. The
	// events between two Turns come from one turn (a burst, when a
	// Promise.all starts many calls).
	Turn()
	// Output is an output item, as the script makes it. The return value
	// is not an Output: it is the last item of the Result.
	Output(protocol.Item)
	// Notify is a script's notify(text), within the cell's limits.
	Notify(text string)
	// Yield is a script's yield_control().
	Yield()
	// ToolCall is a tool call to answer, with call.Answer, from any
	// goroutine. The runtime enforces the cell's call limits first: a
	// call past ToolCallsPerCell never comes here, and one past
	// ConcurrentToolCalls comes once a slot is free.
	ToolCall(call *ToolCall)
	// Result is how the cell ended, once Cell.Done is closed.
	Result(Result)
}

// NoEvents ignores every event; embed it to handle only some of them.
// Its ToolCall answers nothing, so a cell that binds tools needs a
// ToolCall of its own or a CellRequest.Caller.
type NoEvents struct{}

// Turn implements Events.
func (NoEvents) Turn() {}

// Output implements Events.
func (NoEvents) Output(protocol.Item) {}

// Notify implements Events.
func (NoEvents) Notify(string) {}

// Yield implements Events.
func (NoEvents) Yield() {}

// ToolCall implements Events.
func (NoEvents) ToolCall(*ToolCall) {}

// Result implements Events.
func (NoEvents) Result(Result) {}

// ToolCaller answers tool calls in the simplest way: CallTool runs on its
// own goroutine for every call, many at once (see CellRequest.Caller).
// ctx is cancelled when the cell ends or is terminated. The result is
// JSON text; a *protocol.ToolError keeps its code, other errors become
// tool_failed. A panic becomes an internal error.
type ToolCaller interface {
	CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error)
}

// ToolCallerFunc adapts a function to ToolCaller.
type ToolCallerFunc func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error)

// CallTool implements ToolCaller.
func (f ToolCallerFunc) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	return f(ctx, call)
}

// ToolCall is one call a cell made, for its Events to answer. The embedded
// protocol.ToolCall is read-only: its Input shares memory with the
// script's JSON text, and the runtime reads an answer's value on the
// cell's loop without copying it, so neither may be changed afterwards.
type ToolCall struct {
	protocol.ToolCall

	ctx     context.Context
	run     *cellRun // its fields are loop only: Answer posts to its loop
	id      uint64
	settled atomic.Bool
}

// Context is cancelled when the cell ends: an answer is then no longer
// wanted.
func (t *ToolCall) Context() context.Context { return t.ctx }

// Answer settles the call with its JSON result, or err (a
// *protocol.ToolError keeps its code; others become tool_failed). Only the
// first answer counts: it reports whether this one did. After the cell
// ended an answer is dropped. Safe from any goroutine; it never blocks.
func (t *ToolCall) Answer(value json.RawMessage, err error) bool {
	if !t.settled.CompareAndSwap(false, true) {
		return false
	}
	r := t.run
	r.c.mb.post(func() { r.answered(t.id, value, err) })
	return true
}

// callerEvents answers tool calls through a ToolCaller, each on its own
// goroutine, and hands every other event to Events.
type callerEvents struct {
	Events
	caller ToolCaller
}

// ToolCall implements Events.
func (e callerEvents) ToolCall(call *ToolCall) {
	go func() {
		call.Answer(protocol.Guard(callerWho, func() (json.RawMessage, error) {
			return e.caller.CallTool(call.Context(), call.ToolCall)
		}))
	}()
}

// callerWho names the ToolCaller in the error of a call it panicked in.
const callerWho = "the tool caller"

// eventsWho names the Events in the error of a call its ToolCall
// panicked in.
const eventsWho = "the cell's Events"
