package runtime

import (
	"syscall"
	"time"
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
