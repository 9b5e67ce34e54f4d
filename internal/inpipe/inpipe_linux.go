package inpipe

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/codemode-host/codemode-host/internal/nbpipe"
	"github.com/codemode-host/codemode-host/protocol"
)

// Input is a pipe's read end, opened again as its own non-blocking file
// description (the inherited descriptor keeps its blocking mode).
type Input struct {
	f  *os.File // non-blocking, registered with the runtime's poller
	rc syscall.RawConn
	fd int

	mu     sync.Mutex  // held by whoever reads; frames are handled under it
	missed atomic.Bool // someone found mu taken: its holder reads once more

	held     atomic.Bool // a loop polls Fd and reads what arrives (Hold)
	deferred atomic.Bool // the watcher left input to the holder
	fb       *protocol.FrameBuffer
	handle   func(frame []byte)

	done    chan struct{}
	endOnce sync.Once
	err     error // why the input ended; set before done is closed
}

// Open reopens f's pipe non-blocking. It returns nil when f is not a pipe
// (a file, a terminal or a socket) or cannot be reopened: read f with a
// FrameReader then.
func Open(f *os.File) *Input {
	fd, ok := nbpipe.Reopen(f, syscall.O_RDONLY)
	if !ok {
		return nil
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	rc, err := nf.SyscallConn()
	if err != nil {
		nf.Close()
		return nil
	}
	return &Input{f: nf, rc: rc, fd: fd, done: make(chan struct{})}
}

// Read reads the pipe like a blocking file (waiting in the runtime's
// poller): for the handshake, before Start. Not after Start.
func (in *Input) Read(p []byte) (int, error) { return in.f.Read(p) }

// Start switches to frames: pending are bytes already read past the last
// frame taken (FrameReader.Buffered), frame bodies are capped at maxFrame,
// and handle gets each frame in stream order, on whichever goroutine
// pumps, with the input's lock held: it must not block, and the frame is
// valid only during the call. Start also starts the watcher goroutine,
// which pumps whenever the pipe becomes readable.
func (in *Input) Start(pending []byte, maxFrame int, handle func(frame []byte)) {
	in.mu.Lock()
	in.fb = protocol.NewFrameBuffer(pending, maxFrame)
	in.handle = handle
	in.mu.Unlock()
	go in.watch()
}

func (in *Input) watch() {
	err := in.rc.Read(func(uintptr) bool {
		in.deferred.Store(true)
		if in.held.Load() {
			return in.ended() // the holder reads it, or Release does
		}
		in.deferred.Store(false)
		in.Pump()
		return in.ended()
	})
	if err != nil {
		in.end(err) // closed
	}
}

// Fd is the non-blocking descriptor, for a loop to poll for readability.
// Valid until Close.
func (in *Input) Fd() int { return in.fd }

// Hold makes the caller the reader of what arrives until Release: the
// watcher, woken by the same input, leaves it alone, so the holder (a loop
// polling Fd) is not raced to its own tool results. False when another
// caller holds the input, or when it has ended (a pipe at its end polls
// readable for ever).
func (in *Input) Hold() bool { return !in.ended() && in.held.CompareAndSwap(false, true) }

// Release ends Hold and pumps when pump is true or when the watcher left
// input to the holder meanwhile.
func (in *Input) Release(pump bool) {
	in.held.Store(false)
	if in.deferred.Swap(false) || pump {
		in.Pump()
	}
}

// Pump reads and handles what is waiting, without blocking. Safe from any
// goroutine; when another one is pumping it returns at once, and that one
// reads again before it lets go, so nothing that arrived is left unread.
func (in *Input) Pump() {
	for {
		in.missed.Store(true)
		if !in.mu.TryLock() {
			return
		}
		in.missed.Store(false)
		in.drainLocked()
		in.mu.Unlock()
		if !in.missed.Load() {
			return
		}
	}
}

func (in *Input) drainLocked() {
	if in.fb == nil || in.ended() {
		return
	}
	for {
		for {
			frame, err := in.fb.Next()
			if err != nil {
				in.end(err)
				return
			}
			if frame == nil {
				break
			}
			in.handle(frame)
		}
		n, err := syscall.Read(in.fd, in.fb.Space())
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return
		case err != nil:
			in.end(&os.PathError{Op: "read", Path: in.f.Name(), Err: err})
			return
		case n == 0:
			in.end(in.fb.End())
			return
		}
		in.fb.Wrote(n)
	}
}

func (in *Input) end(err error) {
	in.endOnce.Do(func() {
		in.err = err
		close(in.done)
	})
}

func (in *Input) ended() bool {
	select {
	case <-in.done:
		return true
	default:
		return false
	}
}

// Done is closed when the input has ended: end of stream, broken framing
// or Close.
func (in *Input) Done() <-chan struct{} { return in.done }

// Err is why the input ended: io.EOF at a clean end of stream between
// frames, a fatal *protocol.ProtocolError for broken framing, or the
// read's error. Nil before Done is closed.
func (in *Input) Err() error {
	if !in.ended() {
		return nil
	}
	return in.err
}

// Close closes the second file description (the inherited one stays open)
// and stops the watcher. Nobody may poll Fd afterwards.
func (in *Input) Close() error {
	err := in.f.Close()
	in.end(os.ErrClosed)
	return err
}
