package codexhost

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/codemode-host/codemode-host/protocol"
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

// writer sends v1 frames through a protocol.Sender: a frame leaves from
// the sender's goroutine when the output is a protocol.TryWriter with
// room (a V8 loop's tool call, with no hand-off), else from the Sender's
// writer goroutine, so a V8 loop that reports an event never waits for
// the pipe.
type writer struct{ s *protocol.Sender }

func newWriter(w io.Writer) *writer { return &writer{protocol.NewSender(w, 0)} }

// send sends one message, encoded as JSON. A message over MaxFrame is
// refused with Codex's error, so the caller can answer in its place. A
// failed write is not the caller's to answer: the output is gone, and
// the reader ends the connection when its input does.
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
	_ = wr.s.SendFrame(f)
	return nil
}

// close sends what is queued and stops the writer.
func (wr *writer) close() { _ = wr.s.Close() }
