package protocol

import (
	"errors"
	"io"
	"sync"
)

// ErrSenderClosed is returned by Sender.Send after Close.
var ErrSenderClosed = errors.New("protocol: sender closed")

// TryWriter is implemented by writers that can write without blocking (a
// pipe opened non-blocking, for instance). TryWrite writes as much of p as
// fits at once and returns how much it wrote; it never blocks. n < len(p)
// with a nil error means "the rest would block". A Sender whose writer
// implements TryWriter writes a frame from Send itself when nothing else
// is queued or being written, which saves waking its writer goroutine.
type TryWriter interface {
	TryWrite(p []byte) (n int, err error)
}

// Sender writes frames for many goroutines. Every method encodes the
// message in the caller's goroutine (so encoding runs in parallel) and
// never blocks on I/O unless its doc says so.
//
// The plain way is Queue: the frame is appended to a queue, and one writer
// goroutine swaps the queue for an empty one and writes everything queued
// with a single Write call, so N frames queued while a write was in
// progress cost one system call. Two variants save the hand-off to the
// writer goroutine when nothing is queued or being written, by writing
// from the caller's goroutine: Send writes only what fits at once, through
// a TryWriter (the rest is queued; without a TryWriter Send is Queue), so
// it is safe on a V8 loop; SendInline blocks until the frame is written,
// for goroutines that may block.
//
// The queue is unbounded (an isolate's event loop must never block on the
// parent): a peer that stops reading makes it grow until the cell's own
// limits end the work. Frames from one goroutine go out in the order it
// sent them.
type Sender struct {
	w  io.Writer
	tw TryWriter // w as a TryWriter, or nil

	mu      sync.Mutex
	pending []byte // frames waiting for the writer goroutine
	max     int
	err     error // first write error; sticky
	closed  bool
	writing bool // a Write is in progress (writer goroutine or SendInline)

	wake chan struct{} // capacity 1: "pending became non-empty" or "closed"
	done chan struct{} // closed when the writer goroutine exits
}

// NewSender starts a Sender writing to w, with frame bodies of at most
// maxFrame bytes (0 = DefaultMaxFrame). Call Close to stop it.
func NewSender(w io.Writer, maxFrame int) *Sender {
	s := &Sender{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.tw, _ = w.(TryWriter)
	s.SetMaxFrame(maxFrame)
	go s.run()
	return s
}

// SetMaxFrame changes the cap for frames sent from now on (0 =
// DefaultMaxFrame). Safe from any goroutine.
func (s *Sender) SetMaxFrame(n int) {
	s.mu.Lock()
	s.max = frameCap(n)
	s.mu.Unlock()
}

var frameBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Send sends m: when nothing is queued or being written and the writer is
// a TryWriter, it writes what fits at once itself, and queues the rest
// (see Queue). It fails without queueing when m does not encode (code
// bad_field), when its body exceeds the cap (code too_large: answer the
// request with an ErrorReply instead), after Close (ErrSenderClosed), and
// once a write has failed (that write's error). Never blocks. Safe from
// any goroutine.
func (s *Sender) Send(m Message) error { return s.send(m, sendTry) }

// SendInline is Send for goroutines that may block on I/O: when nothing is
// queued or being written, it writes m itself instead of waking the writer
// goroutine, which saves a hand-off per frame on request/response paths.
// Otherwise it queues m like Send. Never call it from a goroutine that must
// not block (an isolate's loop). Safe from any goroutine.
func (s *Sender) SendInline(m Message) error { return s.send(m, sendInline) }

// Queue is Send that never writes from the caller's goroutine: m always
// goes to the writer goroutine. Use it for the second and later frames of
// a burst (the tool calls one JS turn starts): the caller carries on at
// once and the writer sends what piled up meanwhile in one write, where
// Send would spend a system call on each frame. Safe from any goroutine.
func (s *Sender) Queue(m Message) error { return s.send(m, sendQueue) }

// How send may write: from the caller's goroutine, blocking (SendInline);
// from the caller's goroutine, only what fits (Send); or never (Queue).
const (
	sendInline = iota
	sendTry
	sendQueue
)

func (s *Sender) send(m Message, mode int) error {
	bp := frameBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 64<<10 {
			frameBuffers.Put(bp)
		}
	}()
	frame, err := AppendFrame((*bp)[:0], m)
	*bp = frame
	if err != nil {
		return err
	}
	return s.sendFrame(frame, mode, m)
}

// SendFrame is Send for a frame of another wire format that the caller
// encoded itself, header included (codexhost's v1 frames). The Sender's
// frame cap is not checked: the caller applies its own. Frame is not
// kept: the caller may reuse it once SendFrame returns.
func (s *Sender) SendFrame(frame []byte) error { return s.sendFrame(frame, sendTry, nil) }

// sendFrame sends an encoded frame in mode; m is the message it encodes,
// whose size is checked against the cap, or nil for SendFrame.
func (s *Sender) sendFrame(frame []byte, mode int, m Message) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ErrSenderClosed
	case s.err != nil:
		err := s.err
		s.mu.Unlock()
		return err
	}
	if m != nil {
		if err := checkFrameSize(frame, s.max, m); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	idle := !s.writing && len(s.pending) == 0
	switch {
	case idle && mode == sendInline:
		return s.writeNow(frame, s.w.Write) // unlocks s.mu
	case idle && mode == sendTry && s.tw != nil:
		return s.writeNow(frame, s.tw.TryWrite) // unlocks s.mu
	}
	if len(s.pending) == 0 {
		s.signal()
	}
	s.pending = append(s.pending, frame...)
	s.mu.Unlock()
	return nil
}

// writeNow writes frame from the caller's goroutine with write (w.Write,
// which blocks, or TryWrite, which writes what fits) and queues what was
// not written for the writer goroutine, ahead of frames queued meanwhile.
// Caller holds s.mu, with nothing queued or being written; writeNow
// releases it.
func (s *Sender) writeNow(frame []byte, write func([]byte) (int, error)) error {
	s.writing = true
	s.mu.Unlock()
	n, werr := write(frame)
	s.mu.Lock()
	s.writing = false
	switch {
	case werr != nil:
		if s.err == nil {
			s.err = werr
			s.pending = nil
		}
	case n < len(frame):
		rest := make([]byte, 0, len(frame)-n+len(s.pending))
		s.pending = append(append(rest, frame[n:]...), s.pending...)
	}
	if len(s.pending) > 0 || s.closed || s.err != nil {
		s.signal()
	}
	s.mu.Unlock()
	return werr
}

// signal wakes the writer goroutine; it never blocks.
func (s *Sender) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Err returns the first write error, or nil. Safe from any goroutine.
func (s *Sender) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Done is closed when the writer goroutine has exited: after Close has
// drained the queue, or after a write error.
func (s *Sender) Done() <-chan struct{} { return s.done }

// Close stops accepting frames, waits until every queued frame is written
// and returns the first write error. It blocks while the peer does not
// read; close the underlying writer to abort a stuck write. It does not
// close w. Safe from any goroutine; later calls return the same error.
func (s *Sender) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.signal()
	<-s.done
	return s.Err()
}

func (s *Sender) run() {
	defer close(s.done)
	var spare []byte
	for range s.wake {
		for {
			s.mu.Lock()
			if s.err != nil {
				s.mu.Unlock()
				return
			}
			if s.writing {
				// SendInline is writing; it signals again when done.
				s.mu.Unlock()
				break
			}
			if len(s.pending) == 0 {
				closed := s.closed
				s.mu.Unlock()
				if closed {
					return
				}
				break
			}
			batch := s.pending
			s.pending = spare[:0] // spare never shares batch's array
			s.writing = true
			s.mu.Unlock()
			_, err := s.w.Write(batch)
			s.mu.Lock()
			s.writing = false
			if err != nil {
				s.err = err
				s.pending = nil
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			if cap(batch) > keepBuffer {
				batch = nil // release a buffer grown by a burst
			}
			spare = batch
		}
	}
}
