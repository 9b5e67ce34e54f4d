package hostserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// toolTable is the one place a tool call sent to the parent lives until
// its tool.result arrives, by the request id the host gave it. Safe from
// any goroutine.
type toolTable struct {
	next  atomic.Uint64
	mu    sync.Mutex
	calls map[uint64]sentCall
}

// sentCall is a tool call the parent has not answered.
type sentCall struct {
	cell *cell
	call *runtime.ToolCall
}

// add registers call of cell c under a new request id in the host's id
// space.
func (t *toolTable) add(c *cell, call *runtime.ToolCall) uint64 {
	id := t.next.Add(1)
	t.mu.Lock()
	t.calls[id] = sentCall{cell: c, call: call}
	t.mu.Unlock()
	return id
}

// take forgets id and returns its call, if id was still waiting.
func (t *toolTable) take(id uint64) (*runtime.ToolCall, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sc, ok := t.calls[id]
	delete(t.calls, id)
	return sc.call, ok
}

// takeCell forgets every call of c and returns their ids.
func (t *toolTable) takeCell(c *cell) map[uint64]*runtime.ToolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out map[uint64]*runtime.ToolCall
	for id, sc := range t.calls {
		if sc.cell == c {
			if out == nil {
				out = map[uint64]*runtime.ToolCall{}
			}
			out[id] = sc.call
			delete(t.calls, id)
		}
	}
	return out
}

// waiting returns how many calls wait for their answer.
func (t *toolTable) waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

// answer settles call id with the parent's answer; it reports whether the
// call was still waiting.
func (t *toolTable) answer(id uint64, value json.RawMessage, err error) bool {
	call, ok := t.take(id)
	if ok {
		call.Answer(value, err)
	}
	return ok
}

// ToolCall implements runtime.Events: it sends a tool.call to the parent
// and returns at once; the matching tool.result answers call (on the
// reader goroutine, or on a loop reading a lent input). When the cell
// finishes first, finish sends tool.cancelled instead (runtime.ToolCall
// drops a late answer). The call leaves as sendFromLoop says. Loop goroutine;
// never blocks.
func (c *cell) ToolCall(call *runtime.ToolCall) {
	c.calls.Add(1)
	t := &c.srv.tools
	c.mu.Lock()
	if c.result != nil {
		c.mu.Unlock()
		return // reported stuck: nothing more is sent for it
	}
	id := t.add(c, call)
	c.mu.Unlock()
	if err := c.sendFromLoop()(&protocol.ToolCallRequest{ID: id, ToolCall: call.ToolCall}); err != nil {
		t.answer(id, nil, c.unsentCall(call.ToolCall, err))
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

// cancelToolsLocked tells the parent that the cell's calls still out are
// no longer wanted. Caller holds c.mu, which orders the tool.cancelled
// frames before the cell's cell.closed.
func (c *cell) cancelToolsLocked() {
	for id, call := range c.srv.tools.takeCell(c) {
		c.srv.send(&protocol.ToolCancelled{ID: id, Session: call.SessionID, Cell: call.CellID, Call: call.CallID})
	}
}
