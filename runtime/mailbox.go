package runtime

import (
	"sync"
	"sync/atomic"
	"time"
)

// mailbox is an unbounded queue of work for a loop goroutine. Posting never
// blocks: a script can start ten thousand tool calls before the loop gets to
// drain a single result, and a bounded queue would deadlock there.
type mailbox struct {
	mu    sync.Mutex
	items []func()
	park  parker
}

func newMailbox() *mailbox {
	return &mailbox{}
}

// post queues f to run on the loop goroutine. Safe from any goroutine.
func (m *mailbox) post(f func()) {
	m.mu.Lock()
	m.items = append(m.items, f)
	m.mu.Unlock()
	m.wake()
}

// wake nudges the loop without queueing work. Safe from any goroutine.
func (m *mailbox) wake() {
	m.park.unpark()
}

// wait blocks until work is posted, wake is called or d has passed (d < 0:
// no limit); it may return early. With poll > 0 it may first poll for up
// to that long, reading in between looks when in is not nil (see
// parker.park). Loop only.
func (m *mailbox) wait(d, poll time.Duration, in InputPoller) {
	m.park.park(d, poll, in)
}

// take swaps the queued work into buf (reusing its storage) and returns it.
// Loop only.
func (m *mailbox) take(buf []func()) []func() {
	m.mu.Lock()
	items := m.items
	m.items = buf[:0]
	m.mu.Unlock()
	return items
}

// runningLoops counts the event loops of this process between their first
// and last turn; a parker polls before it sleeps only while its loop is
// the only one.
var runningLoops atomic.Int32
