package runtime

import (
	"context"
	"sync"
	"time"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/protocol"
)

// Cell is a running or finished cell. Its methods are safe from any
// goroutine.
type Cell struct {
	id  string
	req CellRequest
	mb  *mailbox

	done   chan struct{}
	result Result

	mu       sync.Mutex
	iso      *v8.Isolate // set while the cell's JS may run
	stop     *stopReason // first reason to stop wins
	finished bool

	stuckAfter time.Duration
	onStuck    func(*Cell, protocol.Status, protocol.ErrorInfo)
}

// stopReason is why a cell was stopped before its code settled.
type stopReason struct {
	status protocol.Status
	err    *protocol.ErrorInfo
}

func newCell(id string, req CellRequest) *Cell {
	return &Cell{id: id, req: req, mb: newMailbox(), done: make(chan struct{})}
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
// any running JS and wakes the loop. Safe from any goroutine, including
// the loop itself inside a callback.
func (c *Cell) halt(status protocol.Status, err *protocol.ErrorInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished || c.stop != nil {
		return
	}
	c.stop = &stopReason{status: status, err: err}
	if c.iso != nil {
		c.iso.TerminateExecution()
		if c.onStuck != nil && status != protocol.StatusCompleted {
			reason := protocol.ErrorInfo{Name: "Error", Message: string(status)}
			if err != nil {
				reason = *err
			}
			time.AfterFunc(c.stuckAfter, func() {
				select {
				case <-c.done:
				default:
					c.onStuck(c, status, reason)
				}
			})
		}
	}
	c.mb.wake()
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
	}
	c.mu.Unlock()
}

// finish publishes the result; after it, halt has no effect. It returns
// the stop reason that applied, if any.
func (c *Cell) finish(r Result) {
	c.mu.Lock()
	c.iso = nil
	c.finished = true
	c.mu.Unlock()
	c.result = r
	close(c.done)
	if f := c.req.OnFinish; f != nil {
		f(r)
	}
}
