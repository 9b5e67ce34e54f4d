package protocol

import "io"

// FrameBuffer assembles frames from a stream that arrives in pieces, for a
// reader that never blocks: read into Space, report the bytes with Wrote,
// then take every complete frame with Next. The same checks as ReadFrame
// apply. It is not safe for concurrent use.
type FrameBuffer struct {
	buf []byte // buf[off:] is unconsumed
	off int
	max int
}

// NewFrameBuffer returns a buffer that starts with pending (bytes already
// read from the stream, for example FrameReader.Buffered) and caps frame
// bodies at maxFrame bytes (0 = DefaultMaxFrame).
func NewFrameBuffer(pending []byte, maxFrame int) *FrameBuffer {
	return &FrameBuffer{buf: append([]byte(nil), pending...), max: frameCap(maxFrame)}
}

// minRead is the least free space Space offers.
const minRead = 64 << 10

// Space returns free space at the end of the buffer to read into; the
// frame Next returned last is invalid from then on.
func (b *FrameBuffer) Space() []byte {
	if b.off == len(b.buf) { // everything consumed
		b.buf, b.off = b.buf[:0], 0
		if cap(b.buf) > keepBuffer {
			b.buf = nil // one large frame does not pin memory
		}
	}
	if cap(b.buf)-len(b.buf) < minRead {
		if b.off > 0 { // slide the partial frame down first
			n := copy(b.buf, b.buf[b.off:])
			b.buf, b.off = b.buf[:n], 0
		}
		if cap(b.buf)-len(b.buf) < minRead {
			grown := make([]byte, len(b.buf), len(b.buf)+max(minRead, len(b.buf)))
			copy(grown, b.buf)
			b.buf = grown
		}
	}
	return b.buf[len(b.buf):cap(b.buf)]
}

// Wrote records that n bytes were read into the slice Space returned.
func (b *FrameBuffer) Wrote(n int) { b.buf = b.buf[:len(b.buf)+n] }

// Next returns the next complete frame's body, or nil when none is
// complete yet. The body is valid until the next call to Space; Decode
// copies what it keeps. Errors are those of ReadFrame and fatal.
func (b *FrameBuffer) Next() ([]byte, error) {
	rest := b.buf[b.off:]
	if len(rest) < 4 {
		return nil, nil
	}
	size, err := frameSize(rest[:4], b.max)
	if err != nil {
		return nil, err
	}
	if uint64(len(rest)-4) < uint64(size) {
		return nil, nil
	}
	b.off += 4 + int(size)
	return rest[4 : 4+size], nil
}

// End is what the end of the stream means now: io.EOF between frames, a
// bad_frame ProtocolError inside one.
func (b *FrameBuffer) End() error {
	rest := b.buf[b.off:]
	switch {
	case len(rest) == 0:
		return io.EOF
	case len(rest) < 4:
		return endedInPrefix(len(rest))
	}
	size, err := frameSize(rest[:4], b.max)
	if err != nil {
		return err
	}
	return endedInFrame(len(rest)-4, size)
}
