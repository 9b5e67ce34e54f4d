package codexhost

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// Origin is the script name in a cell's stack traces (Codex's host runs
// the source as the ES module exec_main.mjs).
const Origin = "exec_main.mjs"

// cell is one execute's cell. Its fields are guarded by the server's mu;
// it is the runtime.Events of its runtime cell.
type cell struct {
	s          *server
	sess       *session
	id         string
	toolCallID string
	tools      map[string]toolDef // by the name the runtime reports (the wire name)
	rc         *runtime.Cell
	execID     string // gRPC: the Execute's execution_id

	items   []protocol.Item // made since the last observation answered
	obs     *observer       // the execute or wait observing the cell
	result  *runtime.Result // once the runtime cell ended
	unacked int             // notifications not yet delivered
	calls   int             // tool calls so far (runtime_tool_call_id tool-N)
	gone    bool            // finished, terminated or shut down: no longer in its session
}

// observer is an execute or wait awaiting the cell.
type observer struct {
	key       any // v1: the request id (int64); gRPC: an obsKey
	execute   bool
	c         *cell
	start     time.Time
	maxTokens *uint64 // the request's max_output_tokens; nil: DefaultMaxOutputTokens
	timer     *time.Timer
	ch        chan observed // gRPC: where its one answer goes
}

// execute starts a cell for e, observed by o (an execute); started is
// called with the cell before o observes it. It returns why no cell
// started, or "". Caller holds s.mu.
func (s *server) execute(sess *session, e executeReq, execID string, o *observer, started func(*cell)) string {
	if n := len(sess.cells); n >= int(s.cfg.Limits.WithDefaults().CellsPerSession) {
		// Ours: each live cell holds an isolate. Codex's host has no
		// such limit (300 live cells were accepted).
		return fmt.Sprintf("session %q already has %d live cells (its limit); wait for or terminate one first", sess.id, n)
	}
	sess.nextCell++
	c := &cell{s: s, sess: sess, id: strconv.Itoa(sess.nextCell), toolCallID: e.ToolCallID, tools: map[string]toolDef{}, execID: execID}
	var defs []protocol.ToolDef
	for _, t := range e.EnabledTools {
		if _, dup := c.tools[t.Name]; dup {
			continue
		}
		c.tools[t.Name] = t
		// The wire name is the JS identifier (tools.<name>); the
		// runtime reports calls by it and tool_name goes back as sent.
		defs = append(defs, protocol.ToolDef{Name: t.Name, Description: t.Description, Kind: protocol.ToolKind(t.Kind),
			InputSchema: t.InputSchema, OutputSchema: t.OutputSchema})
	}
	o.maxTokens = e.MaxOutputTokens
	if msg := moduleError(e.Source); msg != "" {
		sess.cells[c.id] = c
		started(c)
		c.result = &runtime.Result{CellID: c.id, Status: protocol.StatusFailed, Error: &protocol.ErrorInfo{Name: "SyntaxError", Message: msg, Stack: msg}}
		c.observe(o, sess.yieldFor(e.YieldTimeMS))
		return ""
	}
	lim := s.cfg.Limits
	if sess.heapMiB > 0 {
		lim.HeapMiB = min(lim.WithDefaults().HeapMiB, sess.heapMiB)
	}
	<-s.rtReady
	rc, err := s.rt.Prepare(runtime.CellRequest{ID: c.id, SessionID: sess.id, Source: prelude + e.Source, Origin: Origin, Language: language(e.Source),
		Tools: defs, Events: c, Limits: lim, NoTokenBudget: true, Store: maps.Clone(sess.store)})
	if err != nil {
		sess.nextCell--
		return strings.TrimPrefix(err.Error(), "runtime: ")
	}
	c.rc = rc
	sess.cells[c.id] = c
	started(c)
	c.observe(o, sess.yieldFor(e.YieldTimeMS))
	if err := rc.Start(); err != nil {
		c.result = &runtime.Result{CellID: c.id, Status: protocol.StatusFailed, Error: &protocol.ErrorInfo{Name: "Error", Message: err.Error()}}
		c.finishLocked()
	}
	return ""
}

// observe makes o the cell's observer for d. Caller holds s.mu.
func (c *cell) observe(o *observer, d time.Duration) {
	o.c, o.start = c, time.Now()
	c.obs = o
	c.s.observers[o.key] = o
	o.timer = time.AfterFunc(d, func() {
		c.s.mu.Lock()
		defer c.s.mu.Unlock()
		if c.obs == o {
			c.yieldLocked()
		}
	})
	c.finishLocked()
}

// tokens is the observer's output budget (0 is a budget too).
func (o *observer) tokens() int {
	if o.maxTokens == nil {
		return DefaultMaxOutputTokens
	}
	return int(min(*o.maxTokens, 1<<31))
}

// end detaches the observer from its cell. Caller holds s.mu.
func (o *observer) end() {
	o.timer.Stop()
	delete(o.c.s.observers, o.key)
	if o.c.obs == o {
		o.c.obs = nil
	}
}

// reply answers the observer with a runtime response (Yielded,
// Terminated or Result). Caller holds s.mu.
func (o *observer) reply(variant string, body any) { o.c.s.out.reply(o, variant, body) }

// take returns the output since the last observation, as content items
// for observer o: in server output mode within its budget, as Codex's
// host truncates every observation (Yielded and Terminated too).
func (c *cell) take(o *observer) []contentItem {
	items := c.items
	c.items = nil
	if c.sess.truncation == "server" {
		items = truncateItems(items, o.tokens())
	}
	return contentItems(items)
}

// yieldLocked answers the observer with Yielded. Caller holds s.mu.
func (c *cell) yieldLocked() {
	o := c.obs
	if o == nil || c.gone {
		return
	}
	o.end()
	o.reply("Yielded", liveBody{CellID: c.id, ContentItems: c.take(o), DurationNS: int64(time.Since(o.start))})
}

// finishLocked sends the final result once the cell ended, its
// notifications were delivered and someone observes it; then
// cell/closed. Caller holds s.mu.
func (c *cell) finishLocked() {
	if c.result == nil || c.unacked > 0 || c.obs == nil || c.gone {
		return
	}
	o := c.obs
	o.end()
	items := c.items
	c.items = nil
	errText := errorText(c.result.Error)
	if c.sess.truncation == "server" {
		if errText != nil {
			items = append(items, scriptError(*errText))
		}
		items = truncateItems(items, o.tokens())
	}
	c.remove()
	c.s.out.result(o, resultBody{CellID: c.id, ContentItems: contentItems(items), ErrorText: errText, DurationNS: int64(time.Since(o.start))})
}

// remove takes the cell out of its session. Caller holds s.mu.
func (c *cell) remove() {
	c.gone = true
	if c.sess.cells[c.id] == c {
		delete(c.sess.cells, c.id)
	}
	for id, d := range c.s.delegates {
		if d.c == c && d.call == nil {
			delete(c.s.delegates, id)
		}
	}
}

// stopLocked terminates the cell for session/terminate or
// session/shutdown: delegate/cancel for its pending tool calls, a
// Terminated answer to its observer, then the runtime cell is stopped.
// Caller holds s.mu; the caller sends cell/closed.
func (c *cell) stopLocked() {
	c.s.cancelDelegates(c)
	if o := c.obs; o != nil {
		o.end()
		o.reply("Terminated", liveBody{CellID: c.id, ContentItems: c.take(o), DurationNS: int64(time.Since(o.start))})
	}
	c.remove()
	if c.rc != nil {
		c.rc.Terminate()
	}
}

// Turn implements runtime.Events.
func (c *cell) Turn() {}

// Output implements runtime.Events.
func (c *cell) Output(it protocol.Item) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if !c.gone {
		c.items = append(c.items, it)
	}
}

// Notify implements runtime.Events: v1 sends a notification/send
// delegate, and the cell's result waits until every notification was
// delivered; gRPC sends a notification event and holds nothing.
func (c *cell) Notify(text string) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.gone {
		return
	}
	c.s.out.notify(c, text)
}

// Yield implements runtime.Events: yield_control() answers the observer.
func (c *cell) Yield() {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.yieldLocked()
}

// ToolCall implements runtime.Events: a tool/invoke delegate.
func (c *cell) ToolCall(call *runtime.ToolCall) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.gone {
		call.Answer(nil, &protocol.ToolError{Code: protocol.CodeToolFailed, Tool: call.Name, Message: "the cell was terminated"})
		return
	}
	c.calls++
	t := c.tools[call.Name]
	name := t.ToolName
	if name.Name == "" {
		name.Name = call.Name
	}
	kind := t.Kind
	if kind == "" {
		kind = string(call.Kind)
	}
	input := json.RawMessage(call.Input)
	if len(input) == 0 {
		input = json.RawMessage("null")
	}
	id := c.s.newDelegate(c, call)
	inv := invocation{CellID: c.id, RuntimeToolCallID: "tool-" + strconv.Itoa(c.calls), ToolName: name, ToolKind: kind, Input: input}
	if te := c.s.out.toolCall(c, id, inv); te != nil {
		delete(c.s.delegates, id)
		te.Tool = call.Name
		call.Answer(nil, te)
	}
}

// Result implements runtime.Events: the cell ended. Store writes are
// committed when it completed or failed.
func (c *cell) Result(res runtime.Result) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.gone {
		return
	}
	if res.Status == protocol.StatusCompleted || res.Status == protocol.StatusFailed {
		for k, v := range res.StoreWrites {
			c.sess.store[k] = v
		}
	}
	c.s.cancelDelegates(c)
	c.result = &res
	c.finishLocked()
}
