package protocol

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// FrameReader reads length-prefixed frames from a byte stream. It checks
// each length against its cap before allocating, and reuses one buffer for
// every frame. Use it from one goroutine.
type FrameReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// readBufferSize is the read-ahead buffer: many small frames that arrive
// together cost one read syscall.
const readBufferSize = 64 << 10

// keepBuffer is the largest frame buffer kept between frames; a bigger one
// is released after use so one large frame does not pin memory.
const keepBuffer = 1 << 20

// NewFrameReader returns a reader of frames from r whose bodies may be at
// most maxFrame bytes (0 = DefaultMaxFrame).
func NewFrameReader(r io.Reader, maxFrame int) *FrameReader {
	fr := &FrameReader{r: bufio.NewReaderSize(r, readBufferSize)}
	fr.SetMaxFrame(maxFrame)
	return fr
}

// SetMaxFrame changes the cap for the following frames (0 =
// DefaultMaxFrame), for example to the size negotiated in the handshake.
func (fr *FrameReader) SetMaxFrame(n int) {
	fr.max = frameCap(n)
}

// frameCap is a frame cap as asked for: 0 or less means DefaultMaxFrame,
// and no cap exceeds HardMaxFrame, whatever a peer announced.
func frameCap(n int) int {
	if n <= 0 {
		return DefaultMaxFrame
	}
	return min(n, HardMaxFrame)
}

// Buffered returns how many bytes have been read from the stream but not
// yet returned as frames: more than 0 means the peer's next frame has, at
// least in part, already arrived.
func (fr *FrameReader) Buffered() int { return fr.r.Buffered() }

// Ready reports whether ReadFrame would return at once: the next frame,
// or the error it is, is buffered or can be read without waiting, given
// that avail returns how many bytes the stream holds that a read would
// get at once (FIONREAD on a pipe). To see a length prefix that is not yet
// buffered Ready reads once from the stream, which then must not block.
func (fr *FrameReader) Ready(avail func() int) bool {
	if fr.r.Buffered() < 4 {
		if fr.r.Buffered()+avail() < 4 {
			return false
		}
		if _, err := fr.r.Peek(4); err != nil {
			return true // ReadFrame returns it
		}
	}
	hdr, _ := fr.r.Peek(4)
	size := binary.BigEndian.Uint32(hdr)
	if size == 0 || uint64(size) > uint64(fr.max) {
		return true // refused before its body is read
	}
	need, have := 4+uint64(size), uint64(fr.r.Buffered())
	return have >= need || have+uint64(avail()) >= need // avail only when needed
}

// MaxFrame returns the current cap.
func (fr *FrameReader) MaxFrame() int { return fr.max }

// ReadFrame reads the next frame and returns its body (without the length
// prefix). The slice is valid until the next call; Decode copies what it
// keeps, so ReadFrame followed by Decode is safe.
//
// It returns io.EOF at a clean end of stream (no bytes of a next frame).
// Every other error is fatal (the stream cannot be resynchronised; close
// the connection):
//   - a *ProtocolError with code bad_frame for a partial length prefix, a
//     zero length or a body cut short by EOF (wrapping
//     io.ErrUnexpectedEOF);
//   - a *ProtocolError with code too_large for a length above the cap,
//     detected before reading or allocating the body;
//   - the reader's own error otherwise.
func (fr *FrameReader) ReadFrame() ([]byte, error) {
	if cap(fr.buf) > keepBuffer {
		fr.buf = nil
	}
	var hdr [4]byte
	if n, err := io.ReadFull(fr.r, hdr[:]); err != nil {
		switch {
		case n == 0 && errors.Is(err, io.EOF):
			return nil, io.EOF
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &ProtocolError{Code: ErrCodeBadFrame, Message: fmt.Sprintf("stream ended inside a length prefix (%d of 4 bytes)", n), Fatal: true, Err: io.ErrUnexpectedEOF}
		}
		return nil, err
	}
	size := binary.BigEndian.Uint32(hdr[:])
	switch {
	case size == 0:
		return nil, &ProtocolError{Code: ErrCodeBadFrame, Message: "zero-length frame", Fatal: true}
	case uint64(size) > uint64(fr.max):
		return nil, &ProtocolError{Code: ErrCodeTooLarge, Message: fmt.Sprintf("frame of %d bytes exceeds the %d-byte cap", size, fr.max), Fatal: true}
	}
	if cap(fr.buf) < int(size) {
		fr.buf = make([]byte, size, max(size, 4<<10))
	}
	body := fr.buf[:size]
	if n, err := io.ReadFull(fr.r, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &ProtocolError{Code: ErrCodeBadFrame, Message: fmt.Sprintf("stream ended inside a frame (%d of %d bytes)", n, size), Fatal: true, Err: io.ErrUnexpectedEOF}
		}
		return nil, err
	}
	return body, nil
}

// ReadMessage reads and decodes the next message. A Decode error is
// returned as is (not fatal: the caller answers it and reads on); see
// ReadFrame for the fatal errors.
func (fr *FrameReader) ReadMessage() (Message, error) {
	frame, err := fr.ReadFrame()
	if err != nil {
		return nil, err
	}
	return Decode(frame)
}

// FrameWriter writes frames through a buffer. It is not safe for
// concurrent use: give it to one writer goroutine (the usual pattern: other
// goroutines hand it messages over a channel or through a Sender), and call
// Flush when that goroutine has nothing more queued.
type FrameWriter struct {
	w   *bufio.Writer
	max int
	buf []byte
}

// NewFrameWriter returns a writer of frames to w whose bodies may be at
// most maxFrame bytes (0 = DefaultMaxFrame).
func NewFrameWriter(w io.Writer, maxFrame int) *FrameWriter {
	fw := &FrameWriter{w: bufio.NewWriterSize(w, readBufferSize)}
	fw.SetMaxFrame(maxFrame)
	return fw
}

// SetMaxFrame changes the cap for the following frames (0 =
// DefaultMaxFrame).
func (fw *FrameWriter) SetMaxFrame(n int) {
	fw.max = frameCap(n)
}

// WriteMessage encodes m and buffers its frame. A message whose body would
// exceed the cap is not written: the error is a *ProtocolError with code
// too_large carrying m's type and id (answer the request with an error
// instead). Call Flush to send what is buffered.
func (fw *FrameWriter) WriteMessage(m Message) error {
	defer func() {
		if cap(fw.buf) > keepBuffer {
			fw.buf = nil // also after refusing a huge message
		}
	}()
	var err error
	fw.buf, err = AppendFrame(fw.buf[:0], m)
	if err != nil {
		return err
	}
	if err := checkFrameSize(fw.buf, fw.max, m); err != nil {
		return err
	}
	_, err = fw.w.Write(fw.buf)
	return err
}

// WriteFrame buffers one frame with the given body (which Validate should
// accept; it is not checked).
func (fw *FrameWriter) WriteFrame(body []byte) error {
	if len(body) == 0 || len(body) > fw.max {
		return &ProtocolError{Code: ErrCodeTooLarge, Message: fmt.Sprintf("frame body of %d bytes is empty or exceeds the %d-byte cap", len(body), fw.max)}
	}
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(body)))
	if _, err := fw.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := fw.w.Write(body)
	return err
}

// Flush writes the buffered frames to the underlying writer.
func (fw *FrameWriter) Flush() error { return fw.w.Flush() }

// Buffered returns how many bytes are waiting for Flush.
func (fw *FrameWriter) Buffered() int { return fw.w.Buffered() }

// checkFrameSize fails a frame (with its 4-byte prefix) whose body exceeds
// maxBody.
func checkFrameSize(frame []byte, maxBody int, m Message) error {
	if n := len(frame) - 4; n > maxBody {
		return &ProtocolError{Code: ErrCodeTooLarge, Message: fmt.Sprintf("%s frame of %d bytes exceeds the %d-byte cap", m.Type(), n, maxBody), Type: m.Type(), ID: idOf(m)}
	}
	return nil
}
