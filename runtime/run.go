package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/internal/v8shim"
	"github.com/codemode-host/codemode-host/internal/wellformed"
	"github.com/codemode-host/codemode-host/jsbindings"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/toolsearch"
)

// cellRun is the loop-only state of one cell on its worker. It implements
// jsbindings.Host.
type cellRun struct {
	c     *Cell
	w     *worker
	ctx   *jsbindings.Context
	tools []protocol.ToolDef
	prog  program

	callCtx    context.Context // cancelled when the cell ends
	cancelCall context.CancelFunc

	pending  map[uint64]*pendingCall
	nextCall uint64
	timers   timerQueue

	out       Output         // the output, within the cell's budget
	returned  *protocol.Item // the return value, once the cell completed
	unhandled int
	notified  int
	heapPeak  uint64
	pollFor   time.Duration // Config.PollBeforeSleep
	input     InputPoller   // Config.Input, read while polling; or nil
	guardHits uint64        // the heap guard's count when the cell started
	writes    map[string]json.RawMessage
	script    scriptSide // store bytes and notify bytes so far (store.go)

	inflight int          // tool calls started and not settled
	queued   []queuedCall // calls waiting for a concurrency slot

	search *toolsearch.Index // the tools' search index, built on first use
}

type queuedCall struct {
	id   uint64
	call protocol.ToolCall
}

type pendingCall struct {
	resolver *v8.PromiseResolver
	promise  *v8.Promise
}

// run runs c to the end and reports whether the isolate can be reused.
func (w *worker) run(c *Cell) (reusable bool) {
	start := time.Now()
	cpu0 := threadCPU()
	callCtx, cancel := context.WithCancel(context.Background())
	r := &cellRun{c: c, w: w, callCtx: callCtx, cancelCall: cancel, pending: map[uint64]*pendingCall{},
		guardHits: w.guard.Hits(), out: Output{Limit: c.lim.budget()}}
	if w.rt.cfg.PollBeforeSleep > 0 {
		r.pollFor, r.input = w.rt.cfg.PollBeforeSleep, w.rt.cfg.Input
	}
	res := r.execute()
	cancel()
	// The context is closed after the result is out (below): its disposal
	// is not the parent's wait.
	defer func() {
		if r.ctx != nil {
			r.ctx.Close()
		}
	}()
	res.CellID = c.id
	res.Stats.WallMS = float64(time.Since(start).Microseconds()) / 1000
	res.Stats.CPUMS = float64((threadCPU() - cpu0).Microseconds()) / 1000
	res.Stats.HeapPeak = r.heapPeak
	res.Stats.ToolCalls = int(r.nextCall)
	res.StoreWrites = r.writes
	stop := c.stopped()
	guardFired := w.guard.Hits() != r.guardHits
	c.finish(res)
	if guardFired {
		return false
	}
	if stop == nil {
		return true
	}
	if stop.status != protocol.StatusCompleted {
		// A halted isolate may still carry a pending termination, or have
		// been stopped inside a builtin: start the next cell on a new one.
		return false
	}
	// exit(): clear its termination and keep the isolate.
	v8shim.CancelTerminate(w.iso)
	return true
}

// execute runs the source and drives the event loop until the cell ends.
func (r *cellRun) execute() Result {
	c := r.c
	if line, col, msg := protocol.SourceNUL(c.req.Source); msg != "" {
		return r.failed(&protocol.ErrorInfo{Name: "SyntaxError", Message: "the source " + msg, Line: line, Column: col})
	}
	prog, perr := compile(c.req)
	if perr != nil {
		return r.failed(perr)
	}
	r.prog = prog
	r.tools = protocol.Bind(c.req.Tools).Defs()
	ctx, err := r.w.context()
	if err != nil {
		return internalFailure(c, err)
	}
	r.ctx = ctx
	if err := ctx.Install(r, toolEntries(r.tools), c.req.Store); err != nil {
		return internalFailure(c, err)
	}
	r.w.guard.SetCellLimit(uint64(c.lim.heapMB) << 20)
	c.attach(r.w.iso)
	if stop := c.stopped(); stop != nil {
		// Halted before its JS started: TerminateExecution is lost on an
		// isolate that runs no JS, so don't start it.
		return r.halted(stop)
	}
	defer r.watch(c.lim.cpu)()
	timeout := time.AfterFunc(c.lim.wall, func() {
		c.halt(protocol.StatusTimedOut, &protocol.ErrorInfo{Name: "TimeoutError",
			Message: fmt.Sprintf("the script ran longer than its wall-time limit of %s and was stopped", c.lim.wall)})
	})
	defer timeout.Stop()

	r.turn()
	val, err := ctx.RunScript(prog.code, c.req.Origin)
	r.checkHeap()
	if stop := c.stopped(); stop != nil {
		return r.halted(stop)
	}
	if err != nil {
		return r.failed(r.scriptError(err))
	}
	main, err := val.AsPromise()
	if err != nil {
		return internalFailure(c, fmt.Errorf("runtime: the wrapped script returned %s, not a promise", val.DetailString()))
	}
	return r.loop(main)
}

// loop delivers tool results and timers until the top-level code settles.
func (r *cellRun) loop(main *v8.Promise) Result {
	runningLoops.Add(1)
	defer runningLoops.Add(-1)
	if r.input != nil {
		defer r.input.PollDone()
	}
	var buf []func()
	for {
		r.ctx.PerformMicrotaskCheckpoint()
		r.checkHeap()
		if stop := r.c.stopped(); stop != nil {
			return r.halted(stop)
		}
		switch main.State() {
		case v8.Rejected:
			info := r.describe(main.Result())
			if stop := r.c.stopped(); stop != nil {
				return r.halted(stop) // the reason's getters were stopped
			}
			return r.failed(info)
		case v8.Fulfilled:
			if r.unhandled > 0 {
				return r.failUnhandled()
			}
			return r.completed(main.Result())
		}
		if r.unhandled > 0 {
			return r.failUnhandled()
		}
		due, hasTimer := r.timers.next()
		if len(r.pending) == 0 && !hasTimer {
			return r.failed(&protocol.ErrorInfo{Name: "DeadlockError",
				Message: "the script is awaiting a promise that nothing can settle: no tool call or timer is pending"})
		}
		d := time.Duration(-1)
		if hasTimer {
			d = max(0, time.Until(due))
		}
		r.c.mb.wait(d, r.pollFor, r.input)
		r.turn()
		buf = r.c.mb.take(buf)
		for i, f := range buf {
			f()
			buf[i] = nil
		}
		if err := r.fireTimers(); err != nil {
			if stop := r.c.stopped(); stop != nil {
				return r.halted(stop)
			}
			return r.failed(r.scriptError(err))
		}
	}
}

// turn marks the start of a JS turn (Events.Turn).
func (r *cellRun) turn() {
	r.c.events.Turn()
}

// fireTimers runs every due timer, each followed by a microtask checkpoint.
func (r *cellRun) fireTimers() error {
	now := time.Now()
	for {
		id, ok := r.timers.popDue(now)
		if !ok {
			return nil
		}
		err := r.ctx.FireTimer(id)
		r.checkHeap()
		if err != nil {
			return err
		}
		r.ctx.PerformMicrotaskCheckpoint()
		if r.c.stopped() != nil {
			return nil
		}
	}
}

// CallTool implements jsbindings.Host.
func (r *cellRun) CallTool(index int, input string) (*v8.Value, error) {
	if index < 0 || index >= len(r.tools) {
		return nil, fmt.Errorf("no tool at index %d", index)
	}
	def := r.tools[index]
	resolver, err := v8.NewPromiseResolver(r.ctx.Context)
	if err != nil {
		return nil, err
	}
	r.nextCall++
	r.c.toolCalls.Store(int64(r.nextCall))
	id := r.nextCall
	p := resolver.GetPromise()
	r.pending[id] = &pendingCall{resolver: resolver, promise: p}
	call := protocol.ToolCall{
		SessionID: r.c.req.SessionID,
		CellID:    r.c.id,
		CallID:    id,
		Namespace: def.Namespace,
		Name:      def.Name,
		Kind:      kindOf(def),
		Input:     unsafe.Slice(unsafe.StringData(input), len(input)), // read-only; see ToolCall
	}
	lim := r.c.lim
	switch {
	case int(id) > lim.toolCalls:
		r.c.mb.post(func() {
			r.settle(id, nil, &protocol.ToolError{Code: protocol.CodeLimitExceeded,
				Message: fmt.Sprintf("this cell reached its limit of %d tool calls", lim.toolCalls)})
		})
	case r.inflight >= lim.concurrent:
		r.queued = append(r.queued, queuedCall{id: id, call: call})
	default:
		r.start(id, call)
	}
	return p.Value, nil
}

// start hands call to the cell's Events as a ToolCall. Loop only.
func (r *cellRun) start(id uint64, call protocol.ToolCall) {
	r.inflight++
	tc := &ToolCall{ToolCall: call, ctx: r.callCtx, run: r, id: id}
	if _, err := protocol.Guard(eventsWho, func() (struct{}, error) { r.c.events.ToolCall(tc); return struct{}{}, nil }); err != nil {
		tc.Answer(nil, err)
	}
}

// answered frees call id's slot, starts the next queued call and settles
// id. Loop only; ToolCall.Answer posts it once per call.
func (r *cellRun) answered(id uint64, value json.RawMessage, err error) {
	r.inflight--
	if len(r.queued) > 0 {
		next := r.queued[0]
		r.queued = r.queued[1:]
		r.start(next.id, next.call)
	}
	r.settle(id, value, err)
}

// settle resolves or rejects call id's promise. Loop only.
func (r *cellRun) settle(id uint64, value json.RawMessage, err error) {
	pc, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	defer pc.promise.Value.Release()
	defer pc.resolver.Value.Release()
	if err == nil {
		text := unsafe.String(unsafe.SliceData(value), len(value)) // JSONParse copies it
		if len(value) == 0 {
			text = "null"
		}
		v, perr := v8.JSONParse(r.ctx.Context, text)
		if perr == nil {
			pc.resolver.Resolve(v)
			v.Release()
			return
		}
		err = &protocol.ToolError{Code: protocol.CodeInternal, Message: "the tool returned invalid JSON: " + perr.Error()}
	}
	te := protocol.AsToolError(err, "")
	body, _ := json.Marshal(map[string]string{"code": te.Code, "message": te.Message})
	v, perr := v8.JSONParse(r.ctx.Context, string(body))
	if perr != nil {
		return
	}
	pc.resolver.Reject(v)
	v.Release()
}

// Output implements jsbindings.Host: it records the item within the
// cell's budget (see Output) and reports every item (Events.Output).
func (r *cellRun) Output(item protocol.Item) {
	r.out.Add(item)
	r.c.events.Output(item)
}

// SetTimer implements jsbindings.Host.
func (r *cellRun) SetTimer(id int, delayMS float64) {
	if delayMS < 0 {
		r.timers.clear(id)
		return
	}
	r.timers.set(id, time.Now().Add(time.Duration(delayMS*float64(time.Millisecond))))
}

// Exit implements jsbindings.Host.
func (r *cellRun) Exit() {
	r.c.halt(protocol.StatusCompleted, nil)
}

// Unhandled implements jsbindings.Host.
func (r *cellRun) Unhandled(count int) {
	r.unhandled = count
}

// Notify implements jsbindings.Host.
func (r *cellRun) Notify(text string) error {
	if err := r.checkNotify(text); err != nil {
		return err
	}
	r.c.events.Notify(text)
	return nil
}

// Yield implements jsbindings.Host.
func (r *cellRun) Yield() {
	r.c.events.Yield()
}

// Search implements jsbindings.Host.
func (r *cellRun) Search(query string, limit int) string {
	if r.search == nil {
		r.search = toolIndex(r.tools)
	}
	return searchTools(r.search, query, limit)
}

// completed finishes the cell with its return value as the last item.
func (r *cellRun) completed(v *v8.Value) Result {
	text, ok, err := r.ctx.Result(v)
	if stop := r.c.stopped(); stop != nil {
		// A stop (the wall or CPU limit, the heap, terminate) ended the
		// formatting: a toJSON that loops ends timed_out, not failed.
		return r.halted(stop)
	}
	if err != nil {
		return r.failed(r.scriptError(err))
	}
	if ok {
		// The return value arrives with the result, never as a streamed
		// item, so an observer cannot see it before the cell has ended.
		r.returned = &protocol.Item{Type: protocol.ItemText, Text: text}
	}
	return r.result(protocol.StatusCompleted, nil)
}

func (r *cellRun) failed(e *protocol.ErrorInfo) Result {
	return r.result(protocol.StatusFailed, e)
}

func (r *cellRun) halted(stop *stopReason) Result {
	return r.result(stop.status, stop.err)
}

func (r *cellRun) failUnhandled() Result {
	info, ok, err := r.ctx.FirstUnhandled()
	if stop := r.c.stopped(); stop != nil {
		return r.halted(stop) // the reason's getters were stopped
	}
	if err != nil || !ok {
		info = protocol.ErrorInfo{Name: "Error", Message: "a promise was rejected and nothing handled it"}
	}
	if info.Stack == "" {
		// A reason that is not an Error is described as "Uncaught <value>".
		info.Message = strings.TrimPrefix(info.Message, "Uncaught ")
	}
	info.Message = "Uncaught (in promise) " + info.Message
	r.locate(&info)
	return r.failed(&info)
}

func (r *cellRun) result(status protocol.Status, e *protocol.ErrorInfo) Result {
	if e != nil {
		addHints(e, r.c.req.Source, r.tools)
	}
	var last []protocol.Item
	if r.returned != nil {
		last = []protocol.Item{*r.returned}
	}
	items, e, cut := r.out.Take(last, e, r.c.lim.budget())
	return Result{Status: status, Items: items, Error: e, Truncated: cut, Returned: r.returned}
}

// describe turns a rejection reason into an ErrorInfo located in the
// user's source.
func (r *cellRun) describe(v *v8.Value) *protocol.ErrorInfo {
	info, err := r.ctx.Describe(v)
	if err != nil {
		info = protocol.ErrorInfo{Name: "Error", Message: wellformed.String(v.DetailString())}
	}
	r.locate(&info)
	return &info
}

// scriptError turns an error from RunScript or a call into JS.
func (r *cellRun) scriptError(err error) *protocol.ErrorInfo {
	var jsErr *v8.JSError
	if !errors.As(err, &jsErr) {
		return &protocol.ErrorInfo{Name: "InternalError", Message: err.Error()}
	}
	name, msg := splitName(wellformed.String(jsErr.Message))
	info := &protocol.ErrorInfo{Name: name, Message: msg, Stack: wellformed.String(jsErr.StackTrace)}
	locate(info, r.c.req.Origin, r.lastLine(), r.mapPos(), wellformed.String(jsErr.Location))
	if info.Stack == "" && info.Line > 0 {
		info.Stack = fmt.Sprintf("%s: %s\n    at %s:%d:%d", name, msg, r.c.req.Origin, info.Line, info.Column)
	}
	return info
}

func (r *cellRun) locate(info *protocol.ErrorInfo) {
	locate(info, r.c.req.Origin, r.lastLine(), r.mapPos())
}

func (r *cellRun) mapPos() posMapper {
	if r.prog.mapPos == nil {
		return position
	}
	return r.prog.mapPos
}

// lastLine is the number of the source's last line.
func (r *cellRun) lastLine() int {
	return strings.Count(r.c.req.Source, "\n") + 1
}

func internalFailure(c *Cell, err error) Result {
	return Result{CellID: c.id, Status: protocol.StatusFailed,
		Error: &protocol.ErrorInfo{Name: "InternalError", Message: wellformed.String(err.Error())}}
}

func kindOf(def protocol.ToolDef) protocol.ToolKind {
	if def.Kind == "" {
		return protocol.KindFunction
	}
	return def.Kind
}

func toolEntries(defs []protocol.ToolDef) []jsbindings.ToolEntry {
	out := make([]jsbindings.ToolEntry, len(defs))
	for i, d := range defs {
		out[i] = jsbindings.ToolEntry{
			Ident:       protocol.JSIdent(d.Namespace, d.Name),
			Qualified:   d.QualifiedName(),
			Kind:        string(kindOf(d)),
			Description: d.Description,
			Declaration: decls.get(d),
		}
	}
	return out
}
