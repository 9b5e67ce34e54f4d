package runtime

import (
	"sync"
	"time"
)

// Input is the process's input, for a loop to wait on itself (see
// Config.Input). inpipe.Input implements it.
type Input interface {
	// Fd is a descriptor that polls readable when input is waiting.
	Fd() int
	// Hold makes the calling loop the input's reader until Release: the
	// input's own reader then leaves what arrives to the holder. It
	// returns false when another loop holds the input.
	Hold() bool
	// Release ends Hold and reads and handles what is waiting (without
	// blocking) when pump is true or when anything was left to the
	// holder.
	Release(pump bool)
}

// inputWaiter lets a loop wait on Config.Input.
type inputWaiter struct {
	in  Input
	efd int // eventfd that wakes the polling loop (see parker)

	mu     sync.RWMutex // closed and efd's life
	closed bool
}

// waitInput waits like mb.wait, but also for the runtime's Input, and
// reads the input on this thread when it becomes readable: a tool result
// then reaches the script without a hand-off from the reader's thread. It
// returns false without waiting when there is no Input, no tool call is
// in flight (nothing to expect from the input), or another loop holds the
// input. Loop only.
func (r *cellRun) waitInput(d time.Duration) bool {
	iw := r.w.rt.input
	if iw == nil || r.inflight == 0 || !iw.in.Hold() {
		return false
	}
	iw.in.Release(r.c.mb.park.pollPark(d, iw))
	return true
}
