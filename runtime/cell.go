package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/protocol"
)

// Cell is a running or finished cell. Its methods are safe from any
// goroutine.
type Cell struct {
	id      string
	req     CellRequest
	lim     limits // from req.Limits (limitsOf)
	events  Events // req.Events, with req.Caller answering tool calls
	mb      *mailbox
	rt      *Runtime
	started atomic.Bool // Start was called

	done   chan struct{}
	result Result

	mu       sync.Mutex
	iso      *v8.Isolate // set while the cell's JS may run
	stop     *stopReason // first reason to stop wins
	finished bool

	stuckAfter time.Duration
	onStuck    func(*Cell, protocol.Status, protocol.ErrorInfo)
	stuckTimer *time.Timer // armed by the first stop while JS may run

	// Live figures, for Stats: written by the loop and the CPU watch.
	start     time.Time
	cpuNanos  atomic.Int64  // CPU time of the cell's thread so far
	heapPeak  atomic.Uint64 // V8 heap plus external memory, highest seen
	toolCalls atomic.Int64  // tool calls started
}

// stopReason is why a cell was stopped before its code settled.
type stopReason struct {
	status protocol.Status
	err    *protocol.ErrorInfo
}

func newCell(id string, req CellRequest, lim limits) *Cell {
	return &Cell{id: id, req: req, lim: lim, mb: newMailbox(), done: make(chan struct{}), start: time.Now()}
}

// Stats returns the cell's figures so far: its wall time since Start, the
// CPU time its thread used (updated every watchInterval while it runs), its
// heap peak and the tool calls it started. After the cell has ended they
// are the Result's. Safe from any goroutine.
func (c *Cell) Stats() protocol.Stats {
	select {
	case <-c.done:
		return c.result.Stats
	default:
	}
	return protocol.Stats{
		WallMS:    float64(time.Since(c.start).Microseconds()) / 1000,
		CPUMS:     float64(time.Duration(c.cpuNanos.Load()).Microseconds()) / 1000,
		HeapPeak:  c.heapPeak.Load(),
		ToolCalls: int(c.toolCalls.Load()),
	}
}

// noteHeap records used as the heap peak if it is the highest yet.
func (c *Cell) noteHeap(used uint64) {
	for {
		old := c.heapPeak.Load()
		if used <= old || c.heapPeak.CompareAndSwap(old, used) {
			return
		}
	}
}

// ID returns the cell's ID.
func (c *Cell) ID() string { return c.id }

// Done is closed when the cell has ended and Result is ready.
func (c *Cell) Done() <-chan struct{} { return c.done }

// Result blocks until the cell ends and returns its result.
func (c *Cell) Result() Result {
	<-c.done
	return c.result
}

// Wait returns the result when the cell ends, or terminates the cell when
// ctx is done first and then returns its result.
func (c *Cell) Wait(ctx context.Context) Result {
	select {
	case <-c.done:
	case <-ctx.Done():
		c.Terminate()
		<-c.done
	}
	return c.result
}

// Terminate stops the cell; it ends as terminated unless it already ended.
func (c *Cell) Terminate() {
	c.halt(protocol.StatusTerminated, &protocol.ErrorInfo{
		Name:    "TerminatedError",
		Message: "the cell was terminated before it finished",
	})
}

// halt records why the cell must stop (the first reason wins), interrupts
// any running JS and wakes the loop. Every stop is final, exit() (status
// completed) included: when the cell's JS may be running, the first stop
// arms the stuck deadline (Config.StuckAfter), and a cell that has not
// ended by then (it is inside a builtin V8 does not interrupt) is reported
// to OnStuck with the stop's status and reason. Safe from any goroutine,
// including the loop itself inside a callback.
func (c *Cell) halt(status protocol.Status, err *protocol.ErrorInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished || c.stop != nil {
		return
	}
	c.stop = &stopReason{status: status, err: err}
	if c.iso != nil {
		c.iso.TerminateExecution()
		c.armStuckLocked()
	}
	c.mb.wake()
}

// armStuckLocked starts the stuck deadline of the cell's stop. Caller holds
// c.mu, c.stop is set and the cell's JS may run.
func (c *Cell) armStuckLocked() {
	if c.onStuck == nil || c.stuckTimer != nil {
		return
	}
	status, reason := c.stop.status, stopDescription(c.stop)
	c.stuckTimer = time.AfterFunc(c.stuckAfter, func() {
		select {
		case <-c.done:
		default:
			c.onStuck(c, status, reason)
		}
	})
}

// stopDescription is the reason OnStuck gets for a stop.
func stopDescription(stop *stopReason) protocol.ErrorInfo {
	switch {
	case stop.err != nil:
		return *stop.err
	case stop.status == protocol.StatusCompleted:
		return protocol.ErrorInfo{Name: "ExitError", Message: "the script called exit()"}
	}
	return protocol.ErrorInfo{Name: "Error", Message: string(stop.status)}
}

// reassertStop terminates the cell's JS again when it was stopped and is
// still running: V8 swallows a termination that lands while it formats an
// Error's stack (inside the name and message getters it calls), and the
// JS after it would run on unstopped. Safe from any goroutine.
func (c *Cell) reassertStop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil && c.iso != nil && !c.finished {
		c.iso.TerminateExecution()
	}
}

// stopped returns the reason the cell was halted, or nil.
func (c *Cell) stopped() *stopReason {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop
}

// attach and detach bracket the time the cell's JS may run on iso.
func (c *Cell) attach(iso *v8.Isolate) {
	c.mu.Lock()
	c.iso = iso
	if c.stop != nil {
		// Halted before its JS could run: stop it as soon as it starts.
		iso.TerminateExecution()
		c.armStuckLocked()
	}
	c.mu.Unlock()
}

// finish publishes the result and reports it (Events.Result); after it,
// halt has no effect. Only the first call does anything. Loop only.
func (c *Cell) finish(r Result) {
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	c.iso = nil
	c.finished = true
	if c.stuckTimer != nil {
		c.stuckTimer.Stop()
	}
	c.mu.Unlock()
	c.result = r
	close(c.done)
	c.events.Result(r)
}
