package runtime

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// checkHeap stops the cell as out_of_memory when the near-heap-limit guard
// fired during it, or its heap plus external memory passed its limit.
// Loop only.
func (r *cellRun) checkHeap() {
	st := r.w.iso.GetHeapStatistics()
	used := st.UsedHeapSize + st.ExternalMemory
	if used > r.heapPeak {
		r.heapPeak = used
		r.c.noteHeap(used)
	}
	limit := uint64(r.c.lim.heapMB) << 20
	switch {
	case r.w.guard.OverLimit():
		r.c.halt(protocol.StatusOutOfMemory, &protocol.ErrorInfo{Name: "OutOfMemoryError",
			Message: fmt.Sprintf("the script used more than its %d MiB memory limit (heap and ArrayBuffers) and was stopped; process the data in smaller pieces", r.c.lim.heapMB)})
	case r.w.guard.Hits() > r.guardHits:
		r.c.halt(protocol.StatusOutOfMemory, &protocol.ErrorInfo{Name: "OutOfMemoryError",
			Message: fmt.Sprintf("the script used up the V8 heap (%d MiB in use) and was stopped; process the data in smaller pieces", st.UsedHeapSize>>20)})
	case used > limit:
		r.c.halt(protocol.StatusOutOfMemory, &protocol.ErrorInfo{Name: "OutOfMemoryError",
			Message: fmt.Sprintf("the script used %d MiB of memory, over its %d MiB limit, and was stopped; process the data in smaller pieces", used>>20, r.c.lim.heapMB)})
	}
}

// watchInterval is how often a running cell's CPU time and memory are
// checked.
const watchInterval = 10 * time.Millisecond

// watch checks a running cell every watchInterval: it repeats a stop's
// termination (Cell.reassertStop), records the CPU time its thread used so
// far (Cell.Stats), stops the cell as
// timed_out when its thread has used limit of CPU time, and asks the heap
// guard to measure memory at V8's next interrupt check (a script that
// allocates in a tight loop never returns to the event loop). It returns
// a function that ends the watch and waits for it.
func (r *cellRun) watch(limit time.Duration) (stop func()) {
	c, tid, guard := r.c, r.w.tid, r.w.guard
	start, cpuOK := threadCPUOf(tid)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				c.reassertStop()
				guard.Check()
				if !cpuOK {
					continue
				}
				now, ok := threadCPUOf(tid)
				if ok {
					c.cpuNanos.Store(int64(now - start))
				}
				if ok && now-start > limit {
					// Keep ticking: reassertStop must go on re-sending the
					// stop in case V8 swallows it (halt ignores a second stop).
					c.halt(protocol.StatusTimedOut, &protocol.ErrorInfo{Name: "TimeoutError",
						Message: fmt.Sprintf("the script used more than its CPU-time limit of %s and was stopped", limit)})
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// watchRSS stops every running cell as out_of_memory when the process's
// resident memory passes MaxRSSMB. It runs until Close.
func (r *Runtime) watchRSS() {
	defer r.wg.Done()
	limit := uint64(r.cfg.MaxRSSMB) << 20
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
		}
		rss, ok := processRSS()
		if !ok || rss <= limit {
			continue
		}
		r.mu.Lock()
		cells := make([]*Cell, 0, len(r.active))
		for c := range r.active {
			cells = append(cells, c)
		}
		r.mu.Unlock()
		r.cfg.Logger.Warn("runtime: resident memory over its limit; stopping running cells", "rss_mb", rss>>20, "limit_mb", r.cfg.MaxRSSMB, "cells", len(cells))
		for _, c := range cells {
			c.halt(protocol.StatusOutOfMemory, &protocol.ErrorInfo{Name: "OutOfMemoryError",
				Message: fmt.Sprintf("the host's memory (%d MiB) passed its limit of %d MiB and the script was stopped; large ArrayBuffers count too", rss>>20, r.cfg.MaxRSSMB)})
		}
	}
}

// processRSS reads the resident set size from /proc/self/statm.
func processRSS() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	fields := bytes.Fields(b)
	if len(fields) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseUint(string(fields[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * uint64(os.Getpagesize()), true
}

// ProcessRSS returns the process's resident memory in bytes, or 0 when it
// cannot be read. Safe from any goroutine.
func ProcessRSS() uint64 {
	rss, _ := processRSS()
	return rss
}
