package codexhost

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxFrame is the v1 frame cap: a frame's JSON payload may be at most
// this many bytes, in both directions (Codex's host: 64 MiB).
const MaxFrame = 64 << 20

// errCleanEOF is the input ending at a frame boundary.
var errCleanEOF = errors.New("end of input")

// frameLengthError is Codex's text for a frame over MaxFrame.
func frameLengthError(n int) error {
	return fmt.Errorf("code-mode IPC frame length %d exceeds %d bytes", n, MaxFrame)
}

// readFrame reads one frame: a u32 little-endian length, then the
// payload. errCleanEOF when the input ends before a header; "early eof"
// when it ends inside a frame.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var h [4]byte
	n, err := io.ReadFull(r, h[:])
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, errCleanEOF
		}
		return nil, errors.New("early eof")
	}
	size := binary.LittleEndian.Uint32(h[:])
	if size > MaxFrame {
		return nil, frameLengthError(int(size))
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, errors.New("early eof")
	}
	return body, nil
}

// writer sends frames from a queue on its own goroutine, so a V8 loop
// that reports an event never waits for the pipe.
type writer struct {
	mu     sync.Mutex
	cond   *sync.Cond
	queue  [][]byte
	closed bool
	done   chan struct{}
	w      io.Writer
	err    error
}

func newWriter(w io.Writer) *writer {
	wr := &writer{w: w, done: make(chan struct{})}
	wr.cond = sync.NewCond(&wr.mu)
	go wr.run()
	return wr
}

func (wr *writer) run() {
	defer close(wr.done)
	bw := bufio.NewWriterSize(wr.w, 64<<10)
	for {
		wr.mu.Lock()
		for len(wr.queue) == 0 && !wr.closed {
			wr.cond.Wait()
		}
		q := wr.queue
		wr.queue = nil
		closed := wr.closed
		wr.mu.Unlock()
		for _, f := range q {
			if wr.err == nil {
				_, wr.err = bw.Write(f)
			}
		}
		if wr.err == nil {
			wr.err = bw.Flush()
		}
		if closed && len(q) == 0 {
			return
		}
	}
}

// send queues one message, encoded as JSON. A message over MaxFrame is
// refused with Codex's error, so the caller can answer in its place.
func (wr *writer) send(m any) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(body) > MaxFrame {
		return frameLengthError(len(body))
	}
	f := make([]byte, 4+len(body))
	binary.LittleEndian.PutUint32(f, uint32(len(body)))
	copy(f[4:], body)
	wr.mu.Lock()
	if !wr.closed {
		wr.queue = append(wr.queue, f)
		wr.cond.Signal()
	}
	wr.mu.Unlock()
	return nil
}

// close sends what is queued and stops the writer.
func (wr *writer) close() {
	wr.mu.Lock()
	wr.closed = true
	wr.cond.Signal()
	wr.mu.Unlock()
	<-wr.done
}
