package hostserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/codemode-host/codemode-host/protocol"
)

// toolAnswer is what the parent said about one tool call.
type toolAnswer struct {
	value json.RawMessage
	err   error
}

// toolTable matches tool.result frames with the calls waiting for them.
// Safe from any goroutine.
type toolTable struct {
	next  atomic.Uint64
	mu    sync.Mutex
	calls map[uint64]func(toolAnswer)
}

// add registers fn to receive the answer to a new request id in the
// host's id space.
func (t *toolTable) add(fn func(toolAnswer)) uint64 {
	id := t.next.Add(1)
	t.mu.Lock()
	t.calls[id] = fn
	t.mu.Unlock()
	return id
}

// take forgets id and returns its receiver, if id was still waiting.
func (t *toolTable) take(id uint64) (func(toolAnswer), bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn, ok := t.calls[id]
	delete(t.calls, id)
	return fn, ok
}

// waiting returns how many calls wait for their answer.
func (t *toolTable) waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

// remove forgets id; it reports whether id was still waiting.
func (t *toolTable) remove(id uint64) bool {
	_, ok := t.take(id)
	return ok
}

// deliver hands a to the call id; it reports whether someone waited.
func (t *toolTable) deliver(id uint64, a toolAnswer) bool {
	fn, ok := t.take(id)
	if ok {
		fn(a)
	}
	return ok
}

// CallTool implements runtime.ToolCaller, which the runtime does not use
// for a cell (it is an AsyncToolCaller): it sends the call at once and
// waits for the answer. Safe from any goroutine.
func (c *cell) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	ch := make(chan toolAnswer, 1)
	c.startCall(call, c.srv.out.Send, func(v json.RawMessage, err error) { ch <- toolAnswer{v, err} })
	select {
	case a := <-ch:
		return a.value, a.err
	case <-ctx.Done():
		// Closing the cell cancels its calls without answering them.
		return nil, ctx.Err()
	}
}

// StartToolCall implements runtime.AsyncToolCaller: it sends a tool.call to
// the parent and returns at once; done receives the matching tool.result,
// on the reader goroutine (the runtime enforces the per-cell call limits
// before calling it). The runtime cancels ctx when the cell ends, just
// before the cell finishes; finish sends tool.cancelled for every call
// still out, and done is not called for those (see AsyncToolCaller).
// Called on the cell's loop goroutine; it never blocks.
//
// The call leaves as turnSend says.
func (c *cell) StartToolCall(ctx context.Context, call protocol.ToolCall, done func(json.RawMessage, error)) {
	c.startCall(call, c.turnSend(), done)
}

// PollInput implements runtime.InputPoller: while the input is lent to
// the loops (see baton), it reads a whole frame that has arrived. Loop
// only.
func (c *cell) PollInput() bool {
	b := c.srv.baton
	return b != nil && b.poll(c.srv.toolResult)
}

// PollDone implements runtime.InputPoller: it gives a lent input back to
// the reader goroutine. Loop only.
func (c *cell) PollDone() {
	if b := c.srv.baton; b != nil {
		b.done()
	}
}

// turnSend returns how the loop sends its next frame: the first frame of a
// JS turn leaves from the loop at once; the rest of a burst (Promise.all,
// console output in a loop) piles up for the writer goroutine, which sends
// it in a few writes instead of one per frame. Loop only.
func (c *cell) turnSend() func(protocol.Message) error {
	c.burst++
	if c.burst > 1 {
		return c.srv.out.Queue
	}
	return c.srv.out.Send
}

// startCall sends call with send and arranges for done to get its answer,
// unless the cell finishes first.
func (c *cell) startCall(call protocol.ToolCall, send func(protocol.Message) error, done func(json.RawMessage, error)) {
	c.calls.Add(1)
	t := &c.srv.tools
	var id uint64
	id = t.add(func(a toolAnswer) {
		c.mu.Lock()
		delete(c.toolCalls, id)
		c.mu.Unlock()
		done(a.value, a.err)
	})
	c.mu.Lock()
	if c.result != nil {
		c.mu.Unlock()
		if t.remove(id) {
			done(nil, context.Canceled)
		}
		return
	}
	c.toolCalls[id] = call
	c.mu.Unlock()
	if err := send(&protocol.ToolCallRequest{ID: id, ToolCall: call}); err != nil {
		if fn, ok := t.take(id); ok {
			fn(toolAnswer{err: c.unsentCall(call, err)})
		}
	}
}

// unsentCall is the error a call gets when its tool.call could not be
// sent: limit_exceeded when it is too large for a frame (the script can
// pass less), internal otherwise.
func (c *cell) unsentCall(call protocol.ToolCall, err error) *protocol.ToolError {
	if errors.Is(err, &protocol.ProtocolError{Code: protocol.ErrCodeTooLarge}) {
		return &protocol.ToolError{Code: protocol.CodeLimitExceeded, Tool: call.QualifiedName(), Message: fmt.Sprintf(
			"the input of %s is %d bytes, too large for one tool.call: a frame may be at most %d bytes (frame_bytes); pass less data in one call",
			call.QualifiedName(), len(call.Input), c.limits.FrameBytes)}
	}
	return &protocol.ToolError{Code: protocol.CodeInternal, Tool: call.QualifiedName(),
		Message: "hostserver: the tool call could not be sent to the parent: " + err.Error()}
}

// cancelToolLocked tells the parent call id is no longer wanted, unless
// its result already arrived. Caller holds c.mu, which orders the
// tool.cancelled before the cell's cell.closed.
func (c *cell) cancelToolLocked(id uint64, call protocol.ToolCall) {
	if c.srv.tools.remove(id) {
		c.srv.send(&protocol.ToolCancelled{ID: id, Session: call.SessionID, Cell: call.CellID, Call: call.CallID})
	}
}
