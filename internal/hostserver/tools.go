package hostserver

import (
	"context"
	"encoding/json"
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
	calls map[uint64]chan toolAnswer
}

// add allocates a request id in the host's id space.
func (t *toolTable) add() (uint64, chan toolAnswer) {
	id := t.next.Add(1)
	ch := make(chan toolAnswer, 1)
	t.mu.Lock()
	t.calls[id] = ch
	t.mu.Unlock()
	return id, ch
}

// remove forgets id; it reports whether id was still waiting.
func (t *toolTable) remove(id uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.calls[id]
	delete(t.calls, id)
	return ok
}

// deliver hands a to the call id; it reports whether someone waited.
func (t *toolTable) deliver(id uint64, a toolAnswer) bool {
	t.mu.Lock()
	ch, ok := t.calls[id]
	delete(t.calls, id)
	t.mu.Unlock()
	if ok {
		ch <- a
	}
	return ok
}

// CallTool implements runtime.ToolCaller: it sends a tool.call to the
// parent and waits for the matching tool.result (the runtime enforces the
// per-cell call limits before calling it). When ctx ends first (the
// cell ended or was terminated) it sends tool.cancelled and returns. Called
// by the runtime on its own goroutine per call.
func (c *cell) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	c.calls.Add(1)
	t := &c.srv.tools
	id, ch := t.add()
	c.mu.Lock()
	if c.isClosed {
		c.mu.Unlock()
		t.remove(id)
		return nil, context.Canceled
	}
	c.toolCalls[id] = call
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.toolCalls, id)
		c.mu.Unlock()
	}()
	if err := c.srv.out.Send(&protocol.ToolCallRequest{ID: id, ToolCall: call}); err != nil {
		t.remove(id)
		return nil, &protocol.ToolError{Code: protocol.CodeInternal, Tool: call.QualifiedName(),
			Message: "hostserver: the tool call could not be sent to the parent: " + err.Error()}
	}
	select {
	case a := <-ch:
		return a.value, a.err
	case <-ctx.Done():
		c.mu.Lock()
		c.cancelToolLocked(id, call)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// cancelToolLocked tells the parent call id is no longer wanted, unless
// its result already arrived. Caller holds c.mu, which orders the
// tool.cancelled before the cell's cell.closed.
func (c *cell) cancelToolLocked(id uint64, call protocol.ToolCall) {
	if c.srv.tools.remove(id) {
		c.srv.send(&protocol.ToolCancelled{ID: id, Session: call.SessionID, Cell: call.CellID, Call: call.CallID})
	}
}
