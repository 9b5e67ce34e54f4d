//go:build !linux

package runtime

import (
	"sync"
	"time"
)

// parker puts a loop to sleep on a channel where no futex is available.
type parker struct {
	once   sync.Once
	signal chan struct{}
}

func (p *parker) ch() chan struct{} {
	p.once.Do(func() { p.signal = make(chan struct{}, 1) })
	return p.signal
}

// unpark wakes park, or makes the next park return at once. Safe from any
// goroutine.
func (p *parker) unpark() {
	select {
	case p.ch() <- struct{}{}:
	default:
	}
}

// pollsNow reports false: no loop polls here.
func pollsNow(time.Duration) bool { return false }

// park sleeps until unpark is called or d has passed (d < 0: no limit).
// poll and in are ignored here (no loop polls, so in is never lent
// input). Owner only.
func (p *parker) park(d, poll time.Duration, in InputPoller) {
	if d < 0 {
		<-p.ch()
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.ch():
	case <-t.C:
	}
}
