package runtime

import (
	goruntime "runtime"
	"sync/atomic"
	"syscall"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/internal/v8shim"
	"github.com/codemode-host/codemode-host/jsbindings"
)

// worker owns one isolate on one locked OS thread and runs cells on it, one
// at a time. All of its fields are loop only.
type worker struct {
	rt    *Runtime
	jobs  chan *Cell
	ready chan struct{}

	iso     *v8.Isolate
	globals *jsbindings.Globals
	guard   *v8shim.HeapGuard
	tid     int                 // the OS thread the isolate runs on
	cells   int                 // cells run on this isolate
	warm    *jsbindings.Context // prepared for the next cell, or nil

	// primed is true while warm is set and no job was sent. Safe from any
	// goroutine: Start prefers an idle worker that is primed.
	primed atomic.Bool
}

// heapHeadroom is what the near-heap-limit guard grants a script while it
// is being stopped, so V8 can unwind instead of aborting the process.
const heapHeadroom = 64 << 20

func (w *worker) main() {
	// V8 work on a thread that other goroutines share is slow (and on the
	// process's main thread, very slow); this thread is ours until exit.
	goruntime.LockOSThread()
	defer w.rt.wg.Done()

	w.tid = syscall.Gettid()
	w.iso = v8.NewIsolate()
	// Held for the isolate's life: each v8go call then takes a nested
	// lock instead of an outermost one (which re-reads the thread's stack
	// bounds with system calls), halving a tool call's in-process cost.
	entered := v8shim.Enter(w.iso)
	v8shim.TrackRejections(w.iso)
	w.guard = v8shim.NewHeapGuard(w.iso, heapHeadroom, w.iso.GetHeapStatistics().HeapSizeLimit)
	defer func() {
		if w.warm != nil {
			w.warm.Close()
		}
		w.guard.Free()
		entered.Exit()
		w.iso.Dispose()
	}()
	g, err := jsbindings.New(w.iso)
	close(w.ready)
	if err != nil {
		w.rt.cfg.Logger.Error("runtime: cannot install bindings", "error", err)
	}
	w.globals = g

	for {
		if w.globals != nil && w.warm == nil {
			// Prepare the next context while idle; a job sent meanwhile
			// waits in the channel.
			w.warm, _ = w.globals.Prepare()
		}
		w.primed.Store(w.warm != nil)
		c, ok := <-w.jobs
		if !ok {
			return
		}
		if w.globals == nil {
			c.finish(internalFailure(c, err))
			w.rt.cellEnded(c, w, false)
			return
		}
		reusable := w.run(c)
		w.cells++
		if w.cells >= w.rt.cfg.CellsPerIsolate {
			reusable = false
		}
		if !w.rt.cellEnded(c, w, reusable) {
			return
		}
	}
}

// context takes the prepared context, or prepares one. Loop only.
func (w *worker) context() (*jsbindings.Context, error) {
	if c := w.warm; c != nil {
		w.warm = nil
		return c, nil
	}
	return w.globals.Prepare()
}
