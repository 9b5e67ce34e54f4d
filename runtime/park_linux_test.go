package runtime

import (
	"context"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// aMinute is a poll long enough that an unpark always lands in it.
const aMinute = time.Minute

// parkIn runs p.park(-1, poll) on its own goroutine and returns a channel
// closed when it returns.
func parkIn(p *parker, poll time.Duration) chan struct{} {
	done := make(chan struct{})
	go func() {
		p.park(-1, poll, nil)
		close(done)
	}()
	return done
}

// withLoops makes loops event loops count as running and GOMAXPROCS 2
// (polling needs a second P, even on a one-CPU machine) for the rest of
// the test.
func withLoops(t *testing.T, loops int32) {
	runningLoops.Add(loops)
	procs := goruntime.GOMAXPROCS(2)
	t.Cleanup(func() {
		runningLoops.Add(-loops)
		goruntime.GOMAXPROCS(procs)
	})
}

// sleepsAtOnce checks that a park with poll goes straight to sleep.
func sleepsAtOnce(t *testing.T, poll time.Duration) {
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
	done := parkIn(&p, aMinute)
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, parkRunning, p.state.Load(), "polling, not asleep")
	p.unpark()
	<-done
	assert.Zero(t, p.sleeps.Load(), "the wake-up was caught without a futex sleep")
	assert.Equal(t, parkRunning, p.state.Load())
}

func TestParkSleepsAtOnceWhenNotAskedToPoll(t *testing.T) {
	withLoops(t, 1)
	sleepsAtOnce(t, 0)
}

func TestParkSleepsAtOnceWhenOtherLoopsRun(t *testing.T) {
	withLoops(t, 2)
	sleepsAtOnce(t, aMinute)
}

func TestParkSleepsAtOnceWithOneP(t *testing.T) {
	withLoops(t, 1)
	goruntime.GOMAXPROCS(1)
	sleepsAtOnce(t, aMinute)
}

func TestParkPollsNoLongerThanItsDeadline(t *testing.T) {
	withLoops(t, 1)

	var p parker
	p.park(20*time.Millisecond, aMinute, nil) // a timer due in 20 ms: the poll ends there
	assert.Zero(t, p.sleeps.Load(), "nothing is left to sleep after the poll")
	p.park(20*time.Millisecond, 5*time.Millisecond, nil)
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
	p.park(-1, aMinute, in)
	assert.Equal(t, 3, in.polls, "polled until the input delivered")
	assert.Zero(t, in.done, "a poll that caught its wake-up keeps reading the input")
	assert.Zero(t, p.sleeps.Load())
}

func TestParkStopsReadingItsInputBeforeItSleeps(t *testing.T) {
	withLoops(t, 2) // another loop runs: no poll
	var p parker
	in := &countingInput{p: &p}
	p.unpark() // the next park returns at once, after PollDone
	p.park(-1, aMinute, in)
	assert.Zero(t, in.polls)
	assert.Equal(t, 1, in.done, "PollDone came before the (skipped) sleep")
}

// polledCaller answers a tool call when the cell's loop next polls it
// (it is the runtime's Config.Input), or after 50 ms when no poll comes
// first.
type polledCaller struct {
	mu      sync.Mutex
	pending []*ToolCall
	byPoll  atomic.Int64
}

func (c *polledCaller) start(call *ToolCall) {
	c.mu.Lock()
	c.pending = append(c.pending, call)
	c.mu.Unlock()
	time.AfterFunc(50*time.Millisecond, func() { call.Answer(call.Input, nil) })
}

func (c *polledCaller) PollInput() bool {
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, call := range pending {
		if call.Answer(call.Input, nil) {
			c.byPoll.Add(1)
		}
	}
	return len(pending) > 0
}

func (c *polledCaller) PollDone() {}

func TestLoopPollsForAsPollBeforeSleepSays(t *testing.T) {
	t.Cleanup(func() { goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(2)) })
	for _, poll := range []time.Duration{time.Second, 0} {
		caller := &polledCaller{}
		rt := New(Config{PollBeforeSleep: poll, Input: caller})
		t.Cleanup(rt.Close)
		res, err := rt.Run(context.Background(), CellRequest{Tools: testTools, Events: &eventFuncs{toolCall: caller.start},
			Source: `let n = 0; for (let i = 0; i < 3; i++) n += (await tools.echo({i})).i; return n`})
		require.NoError(t, err)
		require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		assert.Equal(t, "3", res.Items[len(res.Items)-1].Text)
		if poll > 0 {
			assert.Equal(t, int64(3), caller.byPoll.Load(), "every answer was read while the loop polled")
		} else {
			assert.Zero(t, caller.byPoll.Load(), "no PollBeforeSleep, no polling")
		}
	}
}

func TestLoopPollsWhenOneLoopRunsWithASecondP(t *testing.T) {
	on, off := New(Config{PollBeforeSleep: 30 * time.Microsecond}), New(Config{})
	t.Cleanup(on.Close)
	t.Cleanup(off.Close)
	withLoops(t, 1)
	assert.True(t, on.LoopPolls(), "one loop, two Ps, a poll")
	assert.False(t, off.LoopPolls(), "no polling by default")
	runningLoops.Add(1)
	assert.False(t, on.LoopPolls(), "two loops running")
	runningLoops.Add(-1)
	goruntime.GOMAXPROCS(1)
	assert.False(t, on.LoopPolls(), "one P")
}
