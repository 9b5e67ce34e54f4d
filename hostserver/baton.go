package hostserver

import (
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// baton lets the event loop of the host's one running cell read the
// parent's frames itself while it polls for a tool call's answer.
//
// Without it every answer takes two thread hand-offs: the reader
// goroutine, asleep in read, wakes to read it and posts it to the loop,
// then sleeps again, and with the host and its parent sharing a CPU each
// hand-off is a context switch on the path of a sequential call. With it,
// after the reader delivers a tool.result while exactly one cell runs, it
// lends the input to the loops and waits instead of reading; the loop
// reads the next answer between its polls (runtime.InputPoller), only
// when the whole frame has arrived, so it never blocks on the input.
//
// The input comes back to the reader goroutine when a loop stops polling
// (it goes to sleep or its cell ends: PollDone), when a loop reads a frame
// that is not a tool.result (the loop hands it over with the input), or
// when no loop has polled for leaseCheck (a long turn of script): nothing
// sent by the parent waits for a busy script longer than that. A lending
// ends at once when a loop stopped polling between the answer's delivery
// and the lending (see lend).
type baton struct {
	fr    *protocol.FrameReader
	avail func() int // bytes the input holds that a read gets at once

	mu       sync.Mutex  // held by whoever reads fr
	lent     atomic.Bool // loops may read; the reader goroutine waits
	handed   *readResult // read by a loop, for the reader to handle; guarded by mu
	lastPoll atomic.Int64
	left     atomic.Uint64 // times a loop stopped polling (done)
	back     chan struct{} // wakes the reader: lent ended
	lease    *time.Timer   // the reader's lease check; reader goroutine only

	loopReads atomic.Uint64 // frames read by loops, for tests
	lends     atomic.Uint64 // lendings, for tests
}

// readResult is one frame's outcome as the reader handles it.
type readResult struct {
	m   protocol.Message
	err error // from ReadFrame: fatal or io.EOF
	bad error // from Decode: answered, then read on
}

// leaseCheck is how long the input stays lent with no loop polling
// before the reader goroutine takes it back.
var leaseCheck = time.Millisecond // a variable for tests

func newBaton(fr *protocol.FrameReader, avail func() int) *baton {
	return &baton{fr: fr, avail: avail, back: make(chan struct{}, 1)}
}

// read reads the next frame for the reader goroutine: a frame a loop
// handed over, or the next one on the input. Reader goroutine only.
func (b *baton) read() readResult {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.handed; h != nil {
		b.handed = nil
		return *h
	}
	return readNext(b.fr)
}

// readNext reads and decodes one frame. Caller holds the input.
func readNext(fr *protocol.FrameReader) readResult {
	frame, err := fr.ReadFrame()
	if err != nil {
		return readResult{err: err}
	}
	m, err := protocol.Decode(frame)
	return readResult{m: m, bad: err}
}

// stops returns how many times a loop has stopped polling (PollDone), for
// lend. Any goroutine.
func (b *baton) stops() uint64 { return b.left.Load() }

// lend lends the input to the loops and waits until it comes back.
// since is what stops returned before the reader delivered the answer
// that made it lend: a loop that stopped polling after that (its cell
// ended, or it went to sleep) before the input was lent did not take it,
// and no loop would give it back, so lend returns at once instead of
// after a lease. Reader goroutine only.
func (b *baton) lend(since uint64) {
	b.lends.Add(1)
	b.lastPoll.Store(time.Now().UnixNano())
	b.lent.Store(true)
	// The loop counts its stop before it looks at lent (done): one of the
	// two sees the other's store.
	if b.left.Load() != since {
		b.takeBack()
		return
	}
	if b.lease == nil {
		b.lease = time.NewTimer(leaseCheck)
	} else {
		b.lease.Reset(leaseCheck)
	}
	t := b.lease
	defer t.Stop()
	for {
		select {
		case <-b.back:
		case <-t.C:
		}
		if !b.lent.Load() {
			return
		}
		if idle := time.Duration(time.Now().UnixNano() - b.lastPoll.Load()); idle >= leaseCheck {
			b.takeBack()
			return
		}
		t.Reset(leaseCheck)
	}
}

// takeBack ends a lending: the reader waits for a loop reading a frame.
// Reader goroutine only.
func (b *baton) takeBack() {
	b.mu.Lock()
	b.lent.Store(false)
	b.mu.Unlock()
}

// poll reads one frame if the input is lent and the whole frame has
// arrived: a tool.result it hands to deliver, anything else (or an error)
// to the reader goroutine with the input. It reports whether it read a
// frame. Loop goroutines only.
func (b *baton) poll(deliver func(*protocol.ToolResult)) bool {
	if !b.lent.Load() || !b.mu.TryLock() {
		return false
	}
	defer b.mu.Unlock()
	if !b.lent.Load() {
		return false
	}
	b.lastPoll.Store(time.Now().UnixNano())
	if !b.fr.Ready(b.avail) {
		return false
	}
	res := readNext(b.fr)
	b.loopReads.Add(1)
	if r, ok := res.m.(*protocol.ToolResult); ok && res.err == nil && res.bad == nil {
		deliver(r)
		return true
	}
	b.handed = &res
	b.returnLocked()
	return true
}

// done gives the input back if it is lent, and counts the stop for lend.
// Loop goroutines only.
//
// It must not wait for mu: the reader goroutine may take the input back
// (its lease ran out) between the look at lent and the lock, and then
// holds mu while it blocks in read, perhaps until the parent sends the
// next request, which may wait for this very cell's result. While lent
// is true mu is held only briefly (a loop reading a frame that has fully
// arrived, or the reader taking the input back), so done tries again
// until it gets mu or the input is no longer lent.
func (b *baton) done() {
	b.left.Add(1)
	for b.lent.Load() {
		if b.mu.TryLock() {
			b.returnLocked()
			b.mu.Unlock()
			return
		}
		goruntime.Gosched()
	}
}

func (b *baton) returnLocked() {
	if b.lent.Swap(false) {
		select {
		case b.back <- struct{}{}:
		default:
		}
	}
}
