package codexhost

import (
	"github.com/codemode-host/codemode-host/protocol"
)

// output is where a server's cells and observers report: v1 frames
// (v1out) or gRPC streams (grpcOut). Its methods are called with s.mu
// held and must not block.
type output interface {
	// reply answers observer o with Yielded or Terminated (body a
	// liveBody).
	reply(o *observer, variant string, body any)
	// result answers o with the Result of its cell, which has just been
	// removed, and reports the cell closed, in the order the protocol
	// has them.
	result(o *observer, body resultBody)
	// closed reports a cell closed after its terminate or shutdown.
	closed(c *cell)
	// toolCall delivers tool call delegate id of c; an error refuses the
	// call with it.
	toolCall(c *cell, id int64, inv invocation) *protocol.ToolError
	// answered is told that delegate id got its answer.
	answered(id int64)
	// cancel reports that pending tool call delegate id of c is no longer
	// wanted.
	cancel(c *cell, id int64)
	// notify delivers a notify(text) of c.
	notify(c *cell, text string)
}

// v1out sends v1 frames.
type v1out struct{ s *server }

// reply sends execute/initialResponse or a wait's operation/response. A
// response over the frame cap becomes an error result for the request,
// as in Codex's host.
func (v v1out) reply(o *observer, variant string, body any) {
	id := o.key.(int64)
	var m any
	resp := map[string]any{variant: body}
	if o.execute {
		m = idMsg{Type: "execute/initialResponse", ID: id, Result: ok(resp)}
	} else {
		m = idMsg{Type: "operation/response", ID: id, Result: ok(waitValue{Type: "wait/completed", Outcome: map[string]any{"LiveCell": resp}})}
	}
	if err := v.s.w.send(m); err != nil {
		what := "wait response"
		t := "operation/response"
		if o.execute {
			what, t = "initial response", "execute/initialResponse"
		}
		v.s.send(idMsg{Type: t, ID: id, Result: fail("code-mode " + what + " exceeds the IPC frame limit: " + err.Error())})
	}
}

// result sends the Result, then cell/closed (Codex's host's order).
func (v v1out) result(o *observer, body resultBody) {
	v.reply(o, "Result", body)
	v.closed(o.c)
}

func (v v1out) closed(c *cell) {
	v.s.send(closedMsg{Type: "cell/closed", SessionID: c.sess.id, CellID: c.id})
}

func (v v1out) toolCall(c *cell, id int64, inv invocation) *protocol.ToolError {
	m := delegateMsg{Type: "delegate/request", ID: id, SessionID: c.sess.id, Request: toolInvoke{Type: "tool/invoke", Invocation: inv}}
	if err := v.s.w.send(m); err != nil {
		return &protocol.ToolError{Code: protocol.CodeLimitExceeded, Message: err.Error()}
	}
	return nil
}

func (v1out) answered(int64) {}

func (v v1out) cancel(_ *cell, id int64) {
	v.s.send(cancelMsg{Type: "delegate/cancel", ID: id})
}

// notify sends a notification/send delegate; the cell's result waits
// for its delegate/response.
func (v v1out) notify(c *cell, text string) {
	id := v.s.newDelegate(c, nil)
	c.unacked++
	v.s.send(delegateMsg{Type: "delegate/request", ID: id, SessionID: c.sess.id,
		Request: notificationSend{Type: "notification/send", CallID: c.toolCallID, CellID: c.id, Text: text}})
}
