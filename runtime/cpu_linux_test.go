package runtime

import (
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThreadCPUClockCountsWhatProcCounts(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	tid := syscall.Gettid()
	before, ok := threadCPUClock(tid)
	require.True(t, ok, "the kernel gives the thread's CPU clock")
	for spin := time.Now(); time.Since(spin) < 20*time.Millisecond; {
	}
	clock, ok := threadCPUClock(tid)
	require.True(t, ok)
	proc, ok := threadCPUFromProc(tid)
	require.True(t, ok)
	assert.Greater(t, clock, before, "the thread's CPU time grew while it spun")
	// Both read the scheduler's count of the same thread, /proc a moment
	// later.
	assert.GreaterOrEqual(t, proc, clock)
	assert.Less(t, proc-clock, 5*time.Millisecond)

	other, ok := threadCPUClock(syscall.Getpid())
	require.True(t, ok, "another thread of the process (the main thread)")
	assert.NotEqual(t, clock, other)
}
