package runtime

import (
	goruntime "runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// parker puts a loop's OS thread to sleep in the kernel (a futex) and lets
// any goroutine wake it with one system call. A Go channel receive on a
// goroutine locked to its thread costs two more thread hand-offs per wake
// (the waker's scheduler finds the goroutine runnable, then hands its P to
// the locked thread), the largest share of a sequential tool call's
// latency (bench/README.md has the figures).
//
// When asked to (Config.PollBeforeSleep), its loop is the only one running
// and the Go scheduler has another P, park first polls for a while,
// yielding its CPU between looks, before it sleeps: the answer to a
// sequential tool call comes back within that time when the tool is
// quick, and caught while polling it costs no futex sleep and wake-up.
// With several loops running they would take the CPUs from each other, so
// they sleep at once. So does a loop in a process with GOMAXPROCS 1 (one
// CPU, by affinity or a container's quota): the poll would hold the only
// P, and the reader goroutine that posts the answer could not run until
// the poll gave up.
type parker struct {
	state  atomic.Uint32 // parkRunning, parkSleeping or parkNotified
	sleeps atomic.Uint32 // futex sleeps, for tests
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
// It may return early; callers re-check their state. With poll > 0 it
// first polls for up to that long, when its loop is the only one running
// and GOMAXPROCS > 1. While it polls it calls in.PollInput (when in is not
// nil) between looks, and before it sleeps in.PollDone. Owner only.
func (p *parker) park(d, poll time.Duration, in InputPoller) {
	if d != 0 && pollsNow(poll) {
		spin := poll
		if d > 0 {
			spin = min(d, spin)
		}
		if p.poll(spin, in) {
			return
		}
		if d > 0 {
			if d -= spin; d == 0 {
				return // the deadline came while polling
			}
		}
	}
	if in != nil {
		in.PollDone()
	}
	if !p.state.CompareAndSwap(parkRunning, parkSleeping) {
		p.state.Store(parkRunning) // notified while running
		return
	}
	var ts *syscall.Timespec
	if d >= 0 {
		t := syscall.NsecToTimespec(int64(d))
		ts = &t
	}
	p.sleeps.Add(1)
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&p.state)), futexWaitPrivate, uintptr(parkSleeping),
		uintptr(unsafe.Pointer(ts)), 0, 0)
	p.state.Store(parkRunning)
}

// pollsNow reports whether a loop allowed to poll for poll polls when it
// parks now: it is the only loop running and GOMAXPROCS > 1. Any
// goroutine.
func pollsNow(poll time.Duration) bool {
	return poll > 0 && runningLoops.Load() == 1 && goruntime.GOMAXPROCS(0) > 1
}

// poll waits up to d for unpark without sleeping. Between looks it reads
// in (when not nil) and, when that brought nothing, yields the CPU (a
// reader on this CPU gets to post); it reports whether unpark came. The
// first look does not read in: a loop parks right after its turn sent a
// call, whose answer cannot be there before the parent has run, and on a
// CPU shared with the parent it runs only once this thread yields, so
// that read would be a wasted system call on every call.
func (p *parker) poll(d time.Duration, in InputPoller) bool {
	deadline := time.Now().Add(d)
	for first := true; ; first = false {
		if p.state.CompareAndSwap(parkNotified, parkRunning) {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		if !first && in != nil && in.PollInput() {
			continue
		}
		syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}
