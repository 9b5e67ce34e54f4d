package runtime

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// rusageThread is RUSAGE_THREAD: the calling thread's usage.
const rusageThread = 1

// threadCPU returns the CPU time the calling OS thread has used. The loop
// goroutine is locked to its thread, so this is the isolate's CPU time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPUOf returns the CPU time thread tid of this process has used:
// the clock_gettime clock of that thread (what pthread_getcpuclockid
// gives, CPUCLOCK_SCHED: nanoseconds on the CPU), one system call. Where
// the kernel refuses that clock it reads the same count from /proc (the
// first field of schedstat), which costs an open, a read and a close.
// Safe from any goroutine.
func threadCPUOf(tid int) (time.Duration, bool) {
	if d, ok := threadCPUClock(tid); ok {
		return d, true
	}
	return threadCPUFromProc(tid)
}

// threadCPUClock reads thread tid's CPU clock with clock_gettime.
func threadCPUClock(tid int) (time.Duration, bool) {
	// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED): ~tid << 3, then
	// CPUCLOCK_PERTHREAD_MASK (4) | CPUCLOCK_SCHED (2).
	clock := ^tid<<3 | 6
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, uintptr(clock), uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// threadCPUFromProc reads a thread's CPU time from
// /proc/self/task/<tid>/schedstat.
func threadCPUFromProc(tid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return 0, false
	}
	f, _, _ := bytes.Cut(b, []byte{' '})
	ns, err := strconv.ParseInt(string(f), 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(ns), true
}
