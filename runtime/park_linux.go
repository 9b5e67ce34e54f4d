package runtime

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// parker puts a loop's OS thread to sleep in the kernel (a futex) and lets
// any goroutine wake it with one system call. A Go channel receive on a
// goroutine locked to its thread costs two more thread hand-offs per wake
// (the waker's scheduler finds the goroutine runnable, then hands its P to
// the locked thread), which was the largest share of a sequential tool
// call's latency.
//
// The sleeping thread keeps its P while it is in the system call, so the
// host runs with a few spare Ps (see reserveProcs).
type parker struct {
	state atomic.Uint32 // parkRunning, parkSleeping or parkNotified
}

const (
	parkRunning uint32 = iota
	parkSleeping
	parkNotified
)

const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// unpark wakes the thread in park, or makes its next park return at once.
// Safe from any goroutine.
func (p *parker) unpark() {
	if p.state.Swap(parkNotified) == parkSleeping {
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&p.state)), futexWakePrivate, 1, 0, 0, 0)
	}
}

// park sleeps until unpark is called or d has passed (d < 0: no limit).
// It may return early; callers re-check their state. Owner only.
func (p *parker) park(d time.Duration) {
	if !p.state.CompareAndSwap(parkRunning, parkSleeping) {
		p.state.Store(parkRunning) // notified while running
		return
	}
	var ts *syscall.Timespec
	if d >= 0 {
		t := syscall.NsecToTimespec(int64(d))
		ts = &t
	}
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&p.state)), futexWaitPrivate, uintptr(parkSleeping),
		uintptr(unsafe.Pointer(ts)), 0, 0)
	p.state.Store(parkRunning)
}
