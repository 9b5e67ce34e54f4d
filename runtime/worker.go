package runtime

import (
	goruntime "runtime"

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
	cells   int
}

func (w *worker) main() {
	// V8 work on a thread that other goroutines share is slow (and on the
	// process's main thread, very slow); this thread is ours until exit.
	goruntime.LockOSThread()
	defer w.rt.wg.Done()

	w.iso = v8.NewIsolate()
	v8shim.TrackRejections(w.iso)
	g, err := jsbindings.New(w.iso)
	close(w.ready)
	if err != nil {
		w.rt.cfg.Logger.Error("runtime: cannot install bindings", "error", err)
	}
	w.globals = g
	defer w.iso.Dispose()

	for c := range w.jobs {
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
