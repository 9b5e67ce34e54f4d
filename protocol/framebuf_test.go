package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func frameOf(body string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	return append(b, body...)
}

// feed writes data into fb in pieces of n bytes and collects every frame.
func feed(t *testing.T, fb *FrameBuffer, data []byte, n int) []string {
	var got []string
	for len(data) > 0 {
		k := copy(fb.Space(), data[:min(n, len(data))])
		fb.Wrote(k)
		data = data[k:]
		for {
			f, err := fb.Next()
			require.NoError(t, err)
			if f == nil {
				break
			}
			got = append(got, string(f))
		}
	}
	return got
}

func TestFrameBufferAssemblesFramesFromAnyPieces(t *testing.T) {
	big := string(bytes.Repeat([]byte("x"), 300<<10)) // larger than one read
	stream := bytes.Join([][]byte{frameOf("a"), frameOf("hello"), frameOf(big), frameOf("z")}, nil)
	for _, n := range []int{1, 3, 4, 5, 4096, len(stream)} {
		fb := NewFrameBuffer(nil, 0)
		assert.Equal(t, []string{"a", "hello", big, "z"}, feed(t, fb, stream, n), "pieces of %d", n)
		assert.ErrorIs(t, fb.End(), io.EOF, "the stream ended between frames")
	}
}

func TestFrameBufferStartsWithPendingBytes(t *testing.T) {
	stream := append(frameOf("one"), frameOf("two")...)
	fb := NewFrameBuffer(stream[:9], 0) // "one" and 2 bytes of the next prefix
	f, err := fb.Next()
	require.NoError(t, err)
	assert.Equal(t, "one", string(f))
	assert.Equal(t, []string{"two"}, feed(t, fb, stream[9:], 1))
}

func TestFrameBufferChecksLikeReadFrame(t *testing.T) {
	fb := NewFrameBuffer([]byte{0, 0, 0, 0}, 0)
	_, err := fb.Next()
	var pe *ProtocolError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, ErrCodeBadFrame, pe.Code)

	fb = NewFrameBuffer([]byte{0, 0, 1, 0}, 100) // 256 bytes, cap 100
	_, err = fb.Next()
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, ErrCodeTooLarge, pe.Code, "detected from the prefix alone")

	fb = NewFrameBuffer([]byte{0, 0}, 0)
	require.True(t, errors.As(fb.End(), &pe))
	assert.Contains(t, pe.Message, "inside a length prefix (2 of 4 bytes)")

	fb = NewFrameBuffer(append(frameOf("abcdef")[:7], []byte{}...), 0)
	f, err := fb.Next()
	require.NoError(t, err)
	assert.Nil(t, f, "incomplete")
	require.True(t, errors.As(fb.End(), &pe))
	assert.Contains(t, pe.Message, "inside a frame (3 of 6 bytes)")
	assert.ErrorIs(t, pe, io.ErrUnexpectedEOF)
}

func TestFrameReaderBufferedHandsOverReadAhead(t *testing.T) {
	stream := append(append(frameOf("first"), frameOf("second")...), frameOf("third")[:3]...)
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	f, err := fr.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "first", string(f))
	assert.Equal(t, stream[9:], fr.Buffered(), "the rest was read ahead in one read")
}
