package registry

import (
	"context"
	"sync"
)

// gate is the concurrency gate every call passes: parallel-safe tools
// share it, the others hold it alone (a readers/writer lock that can be
// given up when ctx is done, and that lets a waiting exclusive call in
// before new shared ones). Safe from any goroutine.
type gate struct {
	mu          sync.Mutex
	shared      int
	exclusive   bool
	waitingExcl int
	changed     chan struct{} // closed and replaced whenever the state changes
}

func (g *gate) notifyLocked() {
	if g.changed != nil {
		close(g.changed)
	}
	g.changed = make(chan struct{})
}

// acquire takes the gate, shared or exclusive, or returns ctx.Err().
func (g *gate) acquire(ctx context.Context, exclusive bool) error {
	g.mu.Lock()
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	if exclusive {
		g.waitingExcl++
	}
	for {
		if exclusive && !g.exclusive && g.shared == 0 {
			g.waitingExcl--
			g.exclusive = true
			g.mu.Unlock()
			return nil
		}
		if !exclusive && !g.exclusive && g.waitingExcl == 0 {
			g.shared++
			g.mu.Unlock()
			return nil
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
			g.mu.Lock()
		case <-ctx.Done():
			g.mu.Lock()
			if exclusive {
				g.waitingExcl--
				g.notifyLocked() // shared waiters may go now
			}
			g.mu.Unlock()
			return ctx.Err()
		}
	}
}

// release gives back what acquire took.
func (g *gate) release(exclusive bool) {
	g.mu.Lock()
	if exclusive {
		g.exclusive = false
	} else {
		g.shared--
	}
	g.notifyLocked()
	g.mu.Unlock()
}
