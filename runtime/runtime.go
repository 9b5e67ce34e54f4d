package runtime

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/protocol"
)

// Runtime runs cells on a pool of isolates. Safe from any goroutine.
type Runtime struct {
	cfg Config

	seq atomic.Uint64
	wg  sync.WaitGroup

	mu      sync.Mutex
	idle    []*worker
	workers int // live workers: idle, running a cell or starting
	active  map[*Cell]struct{}
	closed  bool
	quit    chan struct{} // closed by Close
}

// setHeapFlag sets V8's heap limit once per process, before any isolate.
var setHeapFlag sync.Once

// New starts a runtime and warms cfg.Prewarm isolates.
func New(cfg Config) *Runtime {
	r := &Runtime{cfg: cfg.withDefaults(), active: map[*Cell]struct{}{}, quit: make(chan struct{})}
	setHeapFlag.Do(func() {
		v8.SetFlags(fmt.Sprintf("--max-old-space-size=%d", r.cfg.HeapLimitMB))
	})
	if r.cfg.MaxRSSMB > 0 {
		r.wg.Add(1)
		go r.watchRSS()
	}
	ws := make([]*worker, max(0, r.cfg.Prewarm))
	r.mu.Lock()
	for i := range ws {
		ws[i] = r.spawnLocked()
	}
	r.mu.Unlock()
	for _, w := range ws {
		<-w.ready
		r.mu.Lock()
		r.idle = append(r.idle, w)
		r.mu.Unlock()
	}
	return r
}

// LoopPolls reports whether a loop parking now polls for its answers
// before it sleeps (Config.PollBeforeSleep; only while it is the one loop
// running, with GOMAXPROCS > 1, on Linux). Only such a loop reads
// Config.Input. Any goroutine.
func (r *Runtime) LoopPolls() bool { return pollsNow(r.cfg.PollBeforeSleep) }

// Running returns how many cells have started and not yet ended. Safe
// from any goroutine.
func (r *Runtime) Running() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.active)
}

// DefaultOrigin is the script name in stack traces of a request that
// names none (CellRequest.Origin, the protocol's exec filename).
const DefaultOrigin = "cell.js"

// Start checks req (see Prepare) and begins running it; it returns at
// once. The cell runs on its own isolate until it ends; Start never waits
// for another cell. Safe from any goroutine.
func (r *Runtime) Start(req CellRequest) (*Cell, error) {
	c, err := r.Prepare(req)
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// Prepare checks req and returns its cell, not yet started (Cell.Start
// starts it), or a *RefusedError that says why the runtime will not run
// it: its source is over Limits.SourceBytes, or it binds tools and has
// nothing to answer them. Nothing of the cell runs before Start, so a
// caller can announce the cell first. Safe from any goroutine.
func (r *Runtime) Prepare(req CellRequest) (*Cell, error) {
	id := req.ID
	if id == "" {
		id = "cell-" + strconv.FormatUint(r.seq.Add(1), 10)
	}
	if req.Origin == "" {
		req.Origin = DefaultOrigin
	}
	lim := limitsOf(req.Limits, req.NoTokenBudget)
	if n := len(req.Source); n > lim.sourceBytes {
		return nil, &RefusedError{Code: protocol.ErrCodeLimitExceeded,
			Message: fmt.Sprintf("the source is %d bytes; the limit is %d: send a shorter script", n, lim.sourceBytes)}
	}
	if len(req.Tools) > 0 && req.Caller == nil && req.Events == nil {
		return nil, &RefusedError{Code: protocol.ErrCodeBadField,
			Message: fmt.Sprintf("cell %s binds %d tools but has no Events nor Caller to answer them", id, len(req.Tools))}
	}
	c := newCell(id, req, lim)
	c.events = req.Events
	if c.events == nil {
		c.events = NoEvents{}
	}
	if req.Caller != nil {
		c.events = callerEvents{Events: c.events, caller: req.Caller}
	}
	c.rt = r
	c.stuckAfter, c.onStuck = r.cfg.StuckAfter, r.cfg.OnStuck
	return c, nil
}

// Start begins running a cell from Prepare and returns at once; it fails
// with ErrClosed after the runtime's Close, and when called twice. Safe
// from any goroutine.
func (c *Cell) Start() error {
	r := c.rt
	if !c.started.CompareAndSwap(false, true) {
		return fmt.Errorf("runtime: cell %s was already started", c.id)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	r.active[c] = struct{}{}
	w := r.takeIdleLocked()
	if w == nil {
		w = r.spawnLocked()
	}
	if len(r.idle) == 0 && r.workers < r.cfg.IdleIsolates {
		// Warm a spare while this cell runs, so the next cell does not
		// wait for w to prepare a fresh context.
		r.warmSpareLocked()
	}
	r.mu.Unlock()
	w.primed.Store(false)
	w.jobs <- c
	return nil
}

// takeIdleLocked removes and returns an idle worker, preferring one whose
// next context is already prepared; nil when none is idle. Caller holds
// r.mu.
func (r *Runtime) takeIdleLocked() *worker {
	n := len(r.idle)
	if n == 0 {
		return nil
	}
	i := n - 1
	for j := n - 1; j >= 0; j-- {
		if r.idle[j].primed.Load() {
			i = j
			break
		}
	}
	w := r.idle[i]
	r.idle = append(r.idle[:i], r.idle[i+1:]...)
	return w
}

// warmSpareLocked starts a worker that joins the idle pool once its
// isolate is ready. Caller holds r.mu.
func (r *Runtime) warmSpareLocked() {
	w := r.spawnLocked()
	go func() {
		<-w.ready
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			close(w.jobs)
			return
		}
		r.idle = append(r.idle, w)
	}()
}

// Run runs req to the end. When ctx ends first the cell is terminated.
func (r *Runtime) Run(ctx context.Context, req CellRequest) (Result, error) {
	c, err := r.Start(req)
	if err != nil {
		return Result{}, err
	}
	return c.Wait(ctx), nil
}

// Close terminates running cells, disposes every isolate and waits for
// their goroutines to exit.
func (r *Runtime) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.wg.Wait()
		return
	}
	r.closed = true
	close(r.quit)
	idle := r.idle
	r.idle = nil
	active := make([]*Cell, 0, len(r.active))
	for c := range r.active {
		active = append(active, c)
	}
	r.mu.Unlock()
	for _, c := range active {
		c.Terminate()
	}
	for _, w := range idle {
		close(w.jobs)
	}
	r.wg.Wait()
}

// spawnLocked starts a worker. Caller holds r.mu.
func (r *Runtime) spawnLocked() *worker {
	w := &worker{rt: r, jobs: make(chan *Cell, 1), ready: make(chan struct{})}
	r.workers++
	r.wg.Add(1)
	go w.main()
	return w
}

// cellEnded drops c from the active set and offers w back to the pool.
// It reports whether w was kept.
func (r *Runtime) cellEnded(c *Cell, w *worker, reusable bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.active, c)
	if !reusable || r.closed || len(r.idle) >= r.cfg.IdleIsolates {
		r.workers--
		return false
	}
	r.idle = append(r.idle, w)
	return true
}
