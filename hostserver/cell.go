package hostserver

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// cell is the protocol-side state of one running or finished cell: the
// output it made, which part of it the parent has already received, and
// the exec/wait/terminate requests waiting for a cell.result. Its methods
// are safe from any goroutine.
type cell struct {
	srv     *server
	session string
	id      string
	limits  protocol.Limits
	stream  bool
	start   time.Time
	calls   atomic.Int64 // tool calls started
	burst   int          // frames sent in the current JS turn; loop only

	ended  chan struct{} // closed when the runtime cell has ended
	closed chan struct{} // closed after cell.closed was sent

	mu          sync.Mutex
	rc          *runtime.Cell   // set before the cell is registered; never changes
	out         runtime.Output  // the items the script made since the last cell.result (Output)
	streamed    int             // bytes of output events sent since the last cell.result
	pending     []*pendingReq   // requests awaiting a cell.result, oldest first
	result      *runtime.Result // the final result, once ended
	releaseDone bool            // close the cell even when nobody waits for the result
	isClosed    bool
	storeWrites []protocol.StoreEntry // committed writes, for the final result
	nudged      bool                  // a notify or yield_control since the last result: the next wait returns at once
	yieldNudged bool                  // a yield_control since the last result: the next wait returns at once, a quiet one too
	soon        *time.Timer           // set once something new happened while waits were pending: answers them after wakeDelay
}

// pendingReq is an exec, wait or terminate awaiting its cell.result.
type pendingReq struct {
	id     uint64
	t      string      // the request's type, for an error that replaces a refused result
	timer  *time.Timer // the yield timer; nil for terminate
	wake   bool        // a wait: answered as soon as something new happens
	tokens uint32      // the request's own output budget (a wait's max_output_tokens); 0: the cell's
}

// stop stops the request's timer.
func (p *pendingReq) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}

// wakeDelay is the burst window: how long after the first new output or
// notify the pending waits linger so that a burst of output (or the
// cell's end right after its last output, such as its return value) lands
// in one result. It is not extended by later output.
const wakeDelay = 20 * time.Millisecond

func newCell(s *server, sessionID, id string, lim protocol.Limits, stream bool) *cell {
	c := &cell{srv: s, session: sessionID, id: id, limits: lim, stream: stream, start: time.Now(),
		ended: make(chan struct{}), closed: make(chan struct{})}
	c.out.Limit = c.budget(nil, 0)
	return c
}

// terminate stops the script; the cell then finishes as terminated.
func (c *cell) terminate() {
	c.rc.Terminate()
}

// Output implements runtime.Events: it records an output item and
// streams it if asked, within the output budget: a streamed item is cut
// to fit one result's budget, and streaming pauses once a result's budget
// worth was streamed (the next cell.result has the output, cut in the
// middle). Loop goroutine; never blocks: Send only queues.
func (c *cell) Output(it protocol.Item) {
	c.mu.Lock()
	c.out.Add(it)
	b := c.budget(nil, 0)
	stream := c.stream && c.streamed < b.Bytes
	if stream {
		c.streamed += len(it.Text) + len(it.ImageURL) + runtime.ItemOverhead
	}
	c.wakeWaitsLocked(false)
	c.mu.Unlock()
	if stream {
		items, _, _ := (&runtime.Output{}).Take([]protocol.Item{it}, nil, b)
		if err := c.sendFromLoop()(&protocol.Output{Session: c.session, Cell: c.id, Items: items}); err != nil {
			c.srv.log.Debug("output not streamed", "cell", c.id, "error", err)
		}
	}
}

// wakeWaits answers every pending wait (after wakeDelay) because
// something new happened: output or a notify. When no wait is pending
// and nudge is set, the next wait returns at once instead (new output is
// remembered by itself: it is not yet sent). Never blocks.
func (c *cell) wakeWaits(nudge bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wakeWaitsLocked(nudge)
}

// wakeWaitsLocked is wakeWaits for a caller that holds c.mu. An exec is
// not woken: it is answered at the end, at its yield time or by
// yield_control (a model pays a turn for every answer).
func (c *cell) wakeWaitsLocked(nudge bool) {
	woke := false
	for _, p := range c.pending {
		if p.wake {
			woke = true
			break
		}
	}
	if woke && c.soon == nil {
		c.soon = time.AfterFunc(wakeDelay, c.answerWaits)
	}
	if !woke && nudge && c.result == nil {
		c.nudged = true
	}
}

// answerWaits answers every pending wait now, oldest first: the first
// gets the output, the others an empty yielded result. Any goroutine.
func (c *cell) answerWaits() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.soon = nil
	if c.result != nil {
		return // the final result answers them
	}
	var ids []uint64
	for _, p := range c.pending {
		if p.wake {
			ids = append(ids, p.id)
		}
	}
	for _, id := range ids {
		c.answerLocked(id)
	}
}

// request kinds for addRequest.
type reqKind int

const (
	reqExec      reqKind = iota // answered at the end or when its yield time passes
	reqWait                     // like exec, and as soon as something new happens
	reqQuietWait                // like exec, and at once after a yield_control() nobody saw
	reqTerminate                // answered at the end only
)

// addRequest registers a request of type t for the next cell.result; a
// yield of 0 means no yield timer. A wait is answered at once when output
// it has not seen, a notify or a yield_control is already there. It
// returns false when the cell is already closed.
func (c *cell) addRequest(id uint64, t string, kind reqKind, yield time.Duration, tokens uint32) bool {
	c.mu.Lock()
	if c.isClosed {
		c.mu.Unlock()
		return false
	}
	p := &pendingReq{id: id, t: t, wake: kind == reqWait, tokens: tokens}
	c.pending = append(c.pending, p)
	if c.result != nil {
		c.closeLocked()
		c.mu.Unlock()
		return true
	}
	now := (p.wake && (c.nudged || !c.out.Empty())) || (kind == reqQuietWait && c.yieldNudged)
	if yield > 0 && !now && kind != reqTerminate {
		p.timer = time.AfterFunc(yield, func() { c.answerNow(id) })
	}
	c.mu.Unlock()
	if now {
		c.answerNow(id)
	}
	return true
}

// answerNow replies yielded to request id if it is still waiting and the
// cell still runs (yield time passed, or cancel).
func (c *cell) answerNow(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.result != nil {
		return // the final result answers it
	}
	c.answerLocked(id)
}

// answerLocked is answerNow for a caller that holds c.mu, with the cell
// still running.
func (c *cell) answerLocked(id uint64) {
	for i, p := range c.pending {
		if p.id != id {
			continue
		}
		c.pending = append(c.pending[:i], c.pending[i+1:]...)
		p.stop()
		items, _, cut := c.out.Take(nil, nil, c.budget(nil, p.tokens))
		c.streamed = 0
		c.nudged, c.yieldNudged = false, false
		c.srv.forgetRequest(id)
		if !c.hasWaitLocked() && c.soon != nil {
			c.soon.Stop()
			c.soon = nil
		}
		c.srv.sendReply(&protocol.CellResult{ID: id, Session: c.session, Cell: c.id, Status: protocol.StatusYielded,
			Items: items, Truncated: cut, Stats: c.statsLocked()}, p.t)
		return
	}
}

// hasWaitLocked reports whether a wait is pending. Caller holds c.mu.
func (c *cell) hasWaitLocked() bool {
	for _, p := range c.pending {
		if p.wake {
			return true
		}
	}
	return false
}

// Yield implements runtime.Events: it answers every pending exec and
// wait now, as the script asked with yield_control(); with none pending,
// the next wait returns at once. Loop goroutine; never blocks.
func (c *cell) Yield() {
	c.mu.Lock()
	var ids []uint64
	for _, p := range c.pending {
		if p.timer != nil || p.wake {
			ids = append(ids, p.id)
		}
	}
	if len(ids) == 0 && c.result == nil {
		c.nudged, c.yieldNudged = true, true
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.answerNow(id)
	}
}

// statsLocked returns the cell's figures so far (runtime.Cell.Stats).
// Caller holds c.mu.
func (c *cell) statsLocked() protocol.Stats {
	if c.rc != nil {
		return c.rc.Stats()
	}
	return protocol.Stats{WallMS: msSince(c.start), ToolCalls: int(c.calls.Load())}
}

// Room a cell.result keeps beside its output: its envelope (ids, status,
// stats, names) and, per store entry, its msgpack values.
const (
	resultEnvelopeBytes  = 4 << 10
	resultEnvelopeValues = 1024
	storeEntryValues     = 5 // a map of key and value
	itemValues           = 11
)

// budget is the output budget of one cell.result that carries store: the
// cell's output_tokens, within its output_bytes and what the frame cap
// (FrameBytes) and the decoder's protocol.MaxItems leave beside the store
// and the envelope, so the result always encodes (runtime.Output applies
// it). A text the script cut at output_bytes is over it, so the result
// says truncated and the note stands where the cut is.
func (c *cell) budget(store []protocol.StoreEntry, tokens uint32) runtime.Budget {
	room := int(c.limits.FrameBytes) - resultEnvelopeBytes - len(c.session) - len(c.id)
	values := protocol.MaxItems - resultEnvelopeValues
	for _, e := range store {
		room -= protocol.StoreCost(e.Key, e.Value)
		values -= storeEntryValues
	}
	if c.limits.OutputBytes > 0 {
		room = min(room, int(c.limits.OutputBytes))
	}
	limit := c.limits.OutputTokens
	if tokens > 0 && tokens < limit {
		limit = tokens // a request can only tighten the cell's budget
	}
	b := runtime.TokenBudget(int(limit), max(room, 1))
	b.Items = max(1, min(runtime.MaxResultItems, values/itemValues))
	return b
}

// release makes the cell close as soon as it ends, even when no request
// waits for its final result (session close, shutdown).
func (c *cell) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.releaseDone = true
	if c.result != nil && !c.isClosed {
		c.closeLocked()
	}
}

// Result implements runtime.Events: the cell ended.
func (c *cell) Result(res runtime.Result) { c.finish(res) }

// finish records the final result and answers what waits for it; only
// the first result counts (a cell reported stuck has one already).
func (c *cell) finish(res runtime.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.result != nil {
		return // reported as stuck already
	}
	c.result = &res
	c.storeWrites = c.srv.commitStore(c.session, res)
	c.cancelToolsLocked()
	close(c.ended)
	if len(c.pending) > 0 || c.releaseDone {
		c.closeLocked()
	}
}

// closeLocked sends the final cell.result to every pending request (the
// first one gets the output not yet delivered), then cell.closed. Caller
// holds c.mu and c.result is set.
func (c *cell) closeLocked() {
	res := c.result
	store := c.storeWrites
	var last []protocol.Item
	if res.Returned != nil {
		last = []protocol.Item{*res.Returned}
	}
	var tokens uint32
	if len(c.pending) > 0 {
		tokens = c.pending[0].tokens // the first request gets the output
	}
	items, errInfo, cut := c.out.Take(last, res.Error, c.budget(store, tokens))
	for _, p := range c.pending {
		p.stop()
		c.srv.forgetRequest(p.id)
		c.srv.sendReply(&protocol.CellResult{ID: p.id, Session: c.session, Cell: c.id, Status: res.Status,
			Items: items, Truncated: cut, Error: errInfo, Stats: res.Stats, Store: store}, p.t)
		items, cut, store = nil, false, nil
	}
	c.pending = nil
	if c.soon != nil {
		c.soon.Stop()
		c.soon = nil
	}
	c.isClosed = true
	c.srv.send(&protocol.CellClosed{Session: c.session, Cell: c.id})
	c.srv.removeCell(c.session, c.id)
	close(c.closed)
}

func msSince(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}

// Notify implements runtime.Events: it sends a script's notify(text) at
// once. Loop goroutine; never blocks.
func (c *cell) Notify(text string) {
	c.srv.send(&protocol.Notify{Session: c.session, Cell: c.id, Text: text})
	c.wakeWaits(true)
}
