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
	state atomic.Uint32               // parkRunning, parkSleeping, parkPolling or parkNotified
	iw    atomic.Pointer[inputWaiter] // whose eventfd a parkPolling owner polls
}

const (
	parkRunning uint32 = iota
	parkSleeping
	parkNotified
	parkPolling
)

const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// unpark wakes the thread in park, or makes its next park return at once.
// Safe from any goroutine.
func (p *parker) unpark() {
	switch p.state.Swap(parkNotified) {
	case parkSleeping:
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(&p.state)), futexWakePrivate, 1, 0, 0, 0)
	case parkPolling:
		p.iw.Load().wake()
	}
}

// pollPark sleeps like park, but in ppoll on iw's input too, and reports
// whether the input became readable (or hung up). While the owner polls,
// unpark wakes it through iw's eventfd, which may stay readable after a
// late unpark: that only makes a later pollPark return early. Owner only.
func (p *parker) pollPark(d time.Duration, iw *inputWaiter) (readable bool) {
	p.iw.Store(iw)
	if !p.state.CompareAndSwap(parkRunning, parkPolling) {
		p.state.Store(parkRunning) // notified while running
		return false
	}
	efd := iw.efd
	fds := [2]pollFd{{fd: int32(iw.in.Fd()), events: pollIn}, {fd: int32(efd), events: pollIn}}
	var ts *syscall.Timespec
	if d >= 0 {
		t := syscall.NsecToTimespec(int64(d))
		ts = &t
	}
	syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 2, uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	p.state.Store(parkRunning)
	if fds[1].revents != 0 {
		var b [8]byte
		syscall.Read(efd, b[:]) // reset the counter; non-blocking
	}
	return fds[0].revents != 0
}

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1

// newInputWaiter returns a waiter on in, or nil when no eventfd can be
// had (the loops then park as usual).
func newInputWaiter(in Input) *inputWaiter {
	const efdCloexec, efdNonblock = 0x80000, 0x800
	efd, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, efdCloexec|efdNonblock, 0)
	if errno != 0 {
		return nil
	}
	return &inputWaiter{in: in, efd: int(efd)}
}

// wake makes the eventfd readable, unless the runtime closed it. Safe
// from any goroutine.
func (iw *inputWaiter) wake() {
	iw.mu.RLock()
	if !iw.closed {
		one := [8]byte{1}
		syscall.Write(iw.efd, one[:])
	}
	iw.mu.RUnlock()
}

// close closes the eventfd; a late wake (an unpark that saw the poll just
// before the runtime closed) then writes nowhere instead of to whatever
// file reuses the descriptor.
func (iw *inputWaiter) close() {
	iw.mu.Lock()
	iw.closed = true
	syscall.Close(iw.efd)
	iw.mu.Unlock()
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
