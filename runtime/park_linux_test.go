package runtime

import (
	goruntime "runtime"
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
		p.park(-1, poll, nil)
		close(done)
	}()
	return done
}

// withLoops makes loops event loops count as running, the poll a minute
// long (so an unpark always lands in it) and GOMAXPROCS 2 (polling needs a
// second P, even on a one-CPU machine) for the rest of the test.
func withLoops(t *testing.T, loops int32) {
	d := pollBeforeSleep
	pollBeforeSleep = time.Minute
	runningLoops.Add(loops)
	procs := goruntime.GOMAXPROCS(2)
	t.Cleanup(func() {
		pollBeforeSleep = d
		runningLoops.Add(-loops)
		goruntime.GOMAXPROCS(procs)
	})
}

// sleepsAtOnce checks that a park with poll goes straight to sleep.
func sleepsAtOnce(t *testing.T, poll bool) {
	var p parker
	done := parkIn(&p, poll)
	require.Eventually(t, func() bool { return p.state.Load() == parkSleeping }, 5*time.Second, time.Millisecond)
	p.unpark()
	<-done
	assert.Equal(t, uint32(1), p.sleeps.Load())
}

func TestParkPollsWhenItsLoopRunsAlone(t *testing.T) {
	withLoops(t, 1)
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
	withLoops(t, 1)
	sleepsAtOnce(t, false)
}

func TestParkSleepsAtOnceWhenOtherLoopsRun(t *testing.T) {
	withLoops(t, 2)
	sleepsAtOnce(t, true)
}

func TestParkSleepsAtOnceWithOneP(t *testing.T) {
	withLoops(t, 1)
	goruntime.GOMAXPROCS(1)
	sleepsAtOnce(t, true)
}

func TestParkPollsNoLongerThanItsDeadline(t *testing.T) {
	withLoops(t, 1)

	var p parker
	p.park(20*time.Millisecond, true, nil) // a timer due in 20 ms: the poll ends there
	assert.Zero(t, p.sleeps.Load(), "nothing is left to sleep after the poll")
	pollBeforeSleep = 5 * time.Millisecond
	p.park(20*time.Millisecond, true, nil)
	assert.Equal(t, uint32(1), p.sleeps.Load(), "a poll shorter than the wait is followed by a sleep")
}

// countingInput counts the calls a parker makes; its PollInput delivers
// (unparks) on the third look.
type countingInput struct {
	p           *parker
	polls, done int
}

func (c *countingInput) PollInput() bool {
	c.polls++
	if c.polls == 3 {
		c.p.unpark()
		return true
	}
	return false
}

func (c *countingInput) PollDone() { c.done++ }

func TestParkReadsItsInputWhilePolling(t *testing.T) {
	withLoops(t, 1)
	var p parker
	in := &countingInput{p: &p}
	p.park(-1, true, in)
	assert.Equal(t, 3, in.polls, "polled until the input delivered")
	assert.Zero(t, in.done, "a poll that caught its wake-up keeps reading the input")
	assert.Zero(t, p.sleeps.Load())
}

func TestParkStopsReadingItsInputBeforeItSleeps(t *testing.T) {
	withLoops(t, 2) // another loop runs: no poll
	var p parker
	in := &countingInput{p: &p}
	p.unpark() // the next park returns at once, after PollDone
	p.park(-1, true, in)
	assert.Zero(t, in.polls)
	assert.Equal(t, 1, in.done, "PollDone came before the (skipped) sleep")
}
