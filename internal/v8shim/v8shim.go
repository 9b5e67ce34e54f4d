// Package v8shim reaches the few V8 features that rogchap.com/v8go v0.9.0
// does not expose: promise-rejection tracking and the near-heap-limit guard.
//
// It declares only long-stable V8 entry points by hand (no V8 headers are
// needed) and links against v8go's static library. Every function here must
// be called on the goroutine that owns the isolate (the loop goroutine),
// which must be locked to its OS thread.
package v8shim

// #cgo CXXFLAGS: -std=c++17 -fno-rtti -fPIC -O2
// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"reflect"
	"unsafe"

	v8 "rogchap.com/v8go"
)

// RejectHook names the function the rejection tracker calls:
// hook(promise, reason) when a promise is rejected with no handler, and
// hook(promise) when a handler is added to it later. A context defines it
// as a global of that name and hands it to AdoptRejectHook, which moves it
// where no script can reach it.
const RejectHook = C.CM_REJECT_HOOK

// isolatePtr returns the v8::Isolate* inside a v8go Isolate. v8go keeps it
// in the first field; init checks that the layout is what we expect.
func isolatePtr(iso *v8.Isolate) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(iso))
}

func init() {
	t := reflect.TypeOf(v8.Isolate{})
	f := t.Field(0)
	if f.Name != "ptr" || f.Offset != 0 || f.Type.Kind() != reflect.Pointer {
		panic("v8shim: rogchap.com/v8go changed the layout of Isolate; the shim needs updating")
	}
}

// TrackRejections makes iso call the rejection hook its current context
// adopted (AdoptRejectHook) on unhandled rejections; a context that
// adopted none is not told. Loop only.
func TrackRejections(iso *v8.Isolate) {
	C.cm_track_rejections(isolatePtr(iso))
}

// AdoptRejectHook moves the RejectHook global of iso's current context
// under a private key of its global object, where the rejection tracker
// finds it and no script can see, call or replace it (no reflection
// reaches a private key), and deletes the global. Call it from a Go
// function a script of that context is calling, so a context is current.
// It reports whether there was a function to adopt. Loop only.
func AdoptRejectHook(iso *v8.Isolate) bool {
	return C.cm_adopt_reject_hook(isolatePtr(iso)) != 0
}

// Entered is an isolate held locked and entered by the calling OS thread;
// see Enter.
type Entered struct {
	iso    unsafe.Pointer
	locker unsafe.Pointer
}

// Enter locks iso for the calling OS thread and enters it, until Exit.
// v8go takes a v8::Locker and enters the isolate around every call; the
// outermost lock of a thread is the expensive one (V8 re-reads the
// thread's stack bounds, two sched_getaffinity system calls each time),
// while a nested one is a counter. Holding one for the isolate's lifetime
// makes every v8go call a nested one. While held, no other thread may use
// iso (TerminateExecution and RequestInterrupt still may). Loop only; the
// goroutine must stay locked to its thread until Exit.
func Enter(iso *v8.Isolate) *Entered {
	p := isolatePtr(iso)
	return &Entered{iso: p, locker: C.cm_enter(p)}
}

// Exit undoes Enter. Call it before disposing the isolate, on the thread
// that entered it.
func (e *Entered) Exit() {
	C.cm_exit(e.iso, e.locker)
	e.locker = nil
}

// IsLocked reports whether some thread holds a v8::Locker on iso.
func IsLocked(iso *v8.Isolate) bool { return C.cm_is_locked(isolatePtr(iso)) != 0 }

// CancelTerminate clears a pending TerminateExecution. Loop only.
func CancelTerminate(iso *v8.Isolate) {
	C.cm_cancel_terminate(isolatePtr(iso))
}

// HeapGuard turns V8's near-heap-limit event into TerminateExecution, and
// counts how often it fired, so a heap bomb ends the script instead of the
// process.
type HeapGuard struct {
	state *C.cm_heap_state
	limit uint64
}

// NewHeapGuard installs a guard on iso that grants headroom bytes each time
// the heap nears its limit (initialLimit is the isolate's heap size limit,
// restored by Reset). Loop only.
func NewHeapGuard(iso *v8.Isolate, headroom, initialLimit uint64) *HeapGuard {
	st := (*C.cm_heap_state)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cm_heap_state{}))))
	st.isolate = isolatePtr(iso)
	st.headroom = C.size_t(headroom)
	C.cm_heap_guard_add(st)
	return &HeapGuard{state: st, limit: initialLimit}
}

// Hits is how many times the guard fired since it was installed. Loop only.
func (g *HeapGuard) Hits() uint64 { return uint64(g.state.hits) }

// SetCellLimit sets the heap-plus-external bytes the running script may
// use (0: no limit) and clears the over-limit flag. Loop only, between
// scripts.
func (g *HeapGuard) SetCellLimit(bytes uint64) {
	g.state.cell_limit = C.uint64_t(bytes)
	g.state.over = 0
}

// OverLimit reports whether a Check found the cell limit passed and
// terminated the script. Loop only.
func (g *HeapGuard) OverLimit() bool { return g.state.over != 0 }

// Check asks V8 to measure the heap at its next interrupt check, on the
// isolate's thread, and terminate the script if it passed the cell limit.
// Safe from any goroutine while the guard is installed; it does nothing
// until JS runs.
func (g *HeapGuard) Check() { C.cm_heap_check(g.state) }

// Reset restores the initial heap limit and re-arms the guard. Loop only.
func (g *HeapGuard) Reset() {
	C.cm_heap_guard_remove(g.state, C.size_t(g.limit))
	C.cm_heap_guard_add(g.state)
}

// Free removes the guard. Call it before disposing the isolate. Loop only.
func (g *HeapGuard) Free() {
	C.cm_heap_guard_remove(g.state, C.size_t(g.limit))
	C.free(unsafe.Pointer(g.state))
	g.state = nil
}
