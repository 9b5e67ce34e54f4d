package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parkIn runs p.park(-1, poll) on its own goroutine and returns a channel
// closed when it returns.
func parkIn(p *parker, poll bool) chan struct{} {
	done := make(chan struct{})
	go func() {
		p.park(-1, poll)
		close(done)
	}()
	return done
}

func TestParkPollsWhenItsLoopRunsAlone(t *testing.T) {
	defer func(d time.Duration) { pollBeforeSleep = d }(pollBeforeSleep)
	pollBeforeSleep = time.Minute // the unpark below always lands in the poll
	runningLoops.Add(1)
	defer runningLoops.Add(-1)
	require.Equal(t, int32(1), runningLoops.Load())

	var p parker
	done := parkIn(&p, true)
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, parkRunning, p.state.Load(), "polling, not asleep")
	p.unpark()
	<-done
	assert.Zero(t, p.sleeps.Load(), "the wake-up was caught without a futex sleep")
	assert.Equal(t, parkRunning, p.state.Load())
}

func TestParkSleepsAtOnceWhenNotAskedToPoll(t *testing.T) {
	defer func(d time.Duration) { pollBeforeSleep = d }(pollBeforeSleep)
	pollBeforeSleep = time.Minute
	runningLoops.Add(1)
	defer runningLoops.Add(-1)

	var p parker
	done := parkIn(&p, false)
	require.Eventually(t, func() bool { return p.state.Load() == parkSleeping }, 5*time.Second, time.Millisecond)
	p.unpark()
	<-done
	assert.Equal(t, uint32(1), p.sleeps.Load())
}

func TestParkSleepsAtOnceWhenOtherLoopsRun(t *testing.T) {
	defer func(d time.Duration) { pollBeforeSleep = d }(pollBeforeSleep)
	pollBeforeSleep = time.Minute
	runningLoops.Add(2)
	defer runningLoops.Add(-2)

	var p parker
	done := parkIn(&p, true)
	require.Eventually(t, func() bool { return p.state.Load() == parkSleeping }, 5*time.Second, time.Millisecond)
	p.unpark()
	<-done
	assert.Equal(t, uint32(1), p.sleeps.Load())
}

func TestParkPollsNoLongerThanItsDeadline(t *testing.T) {
	defer func(d time.Duration) { pollBeforeSleep = d }(pollBeforeSleep)
	pollBeforeSleep = time.Minute
	runningLoops.Add(1)
	defer runningLoops.Add(-1)

	var p parker
	p.park(20*time.Millisecond, true) // a timer due in 20 ms: the poll ends there
	assert.Zero(t, p.sleeps.Load(), "nothing is left to sleep after the poll")
	pollBeforeSleep = 5 * time.Millisecond
	p.park(20*time.Millisecond, true)
	assert.Equal(t, uint32(1), p.sleeps.Load(), "a poll shorter than the wait is followed by a sleep")
}
