package protocol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frames concatenates the frames of msgs.
func frames(t testing.TB, msgs ...Message) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		var err error
		out, err = AppendFrame(out, m)
		require.NoError(t, err)
	}
	return out
}

func requireFatal(t *testing.T, err error, code ErrorCode) {
	t.Helper()
	var pe *ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, code, pe.Code)
	assert.True(t, pe.Fatal, "a broken stream is fatal")
	assert.True(t, IsFatal(err))
}

func TestFrameReaderReadsFramesInOrder(t *testing.T) {
	msgs := samples()
	fr := NewFrameReader(bytes.NewReader(frames(t, msgs...)), 0)
	for _, want := range msgs {
		got, err := fr.ReadMessage()
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := fr.ReadMessage()
	assert.ErrorIs(t, err, io.EOF)
}

func TestFrameReaderCleanEOF(t *testing.T) {
	_, err := NewFrameReader(bytes.NewReader(nil), 0).ReadFrame()
	assert.Equal(t, io.EOF, err)
	assert.False(t, IsFatal(err), "EOF at a frame boundary is a clean end")
}

func TestFrameReaderPartialHeader(t *testing.T) {
	_, err := NewFrameReader(bytes.NewReader([]byte{0, 0}), 0).ReadFrame()
	requireFatal(t, err, ErrCodeBadFrame)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestFrameReaderTruncatedBody(t *testing.T) {
	stream := frames(t, &Ping{ID: 1})
	_, err := NewFrameReader(bytes.NewReader(stream[:len(stream)-1]), 0).ReadFrame()
	requireFatal(t, err, ErrCodeBadFrame)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestFrameReaderZeroLength(t *testing.T) {
	_, err := NewFrameReader(bytes.NewReader([]byte{0, 0, 0, 0}), 0).ReadFrame()
	requireFatal(t, err, ErrCodeBadFrame)
}

func TestFrameReaderOversizeRefusedBeforeReadingTheBody(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 0xffffffff)
	fr := NewFrameReader(bytes.NewReader(hdr[:]), 0)
	_, err := fr.ReadFrame()
	requireFatal(t, err, ErrCodeTooLarge)
	assert.Contains(t, err.Error(), "exceeds the 8388608-byte cap")

	binary.BigEndian.PutUint32(hdr[:], DefaultMaxFrame+1)
	_, err = NewFrameReader(bytes.NewReader(hdr[:]), 0).ReadFrame()
	requireFatal(t, err, ErrCodeTooLarge)
}

func TestFrameReaderHonoursANegotiatedCap(t *testing.T) {
	big := &Notify{Session: "s", Cell: "c", Text: string(bytes.Repeat([]byte("x"), 100))}
	stream := frames(t, big)
	fr := NewFrameReader(bytes.NewReader(stream), 64)
	assert.Equal(t, 64, fr.MaxFrame())
	_, err := fr.ReadFrame()
	requireFatal(t, err, ErrCodeTooLarge)

	fr = NewFrameReader(bytes.NewReader(stream), 64)
	fr.SetMaxFrame(0)
	assert.Equal(t, DefaultMaxFrame, fr.MaxFrame())
	_, err = fr.ReadFrame()
	require.NoError(t, err)
}

func TestFrameReaderGarbageFrameIsNotFatal(t *testing.T) {
	garbage := []byte{0, 0, 0, 3, 'a', 'b', 'c'}
	stream := append(garbage, frames(t, &Ping{ID: 2})...)
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	_, err := fr.ReadMessage()
	requireProtocolError(t, err, ErrCodeBadFrame)
	assert.False(t, IsFatal(err), "one bad frame fails one request")
	m, err := fr.ReadMessage()
	require.NoError(t, err, "the next frame still reads")
	assert.Equal(t, &Ping{ID: 2}, m)
}

func TestFrameReaderReusesItsBuffer(t *testing.T) {
	stream := frames(t, &Ping{ID: 1}, &Ping{ID: 2})
	fr := NewFrameReader(bytes.NewReader(stream), 0)
	a, err := fr.ReadFrame()
	require.NoError(t, err)
	first := &a[0]
	b, err := fr.ReadFrame()
	require.NoError(t, err)
	assert.Same(t, first, &b[0])
}

func TestFrameReaderPassesThroughReadErrors(t *testing.T) {
	boom := errors.New("pipe broke")
	_, err := NewFrameReader(io.MultiReader(bytes.NewReader([]byte{0, 0}), errReader{boom}), 0).ReadFrame()
	assert.ErrorIs(t, err, boom)
	assert.True(t, IsFatal(err))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestFrameWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf, 0)
	for _, m := range samples() {
		require.NoError(t, fw.WriteMessage(m))
	}
	assert.Zero(t, buf.Len(), "nothing is written before Flush")
	assert.NotZero(t, fw.Buffered())
	require.NoError(t, fw.Flush())
	assert.Equal(t, frames(t, samples()...), buf.Bytes())
}

func TestFrameWriterRefusesOversizeMessages(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf, 32)
	err := fw.WriteMessage(&CellResult{ID: 4, Session: "s", Cell: "c", Status: StatusCompleted, Items: []Item{{Type: ItemText, Text: "a long output line"}}})
	pe := requireProtocolError(t, err, ErrCodeTooLarge)
	assert.Equal(t, uint64(4), pe.ID, "the caller can fail that request instead")
	assert.Equal(t, TypeCellResult, pe.Type)
	require.NoError(t, fw.WriteMessage(&Ping{ID: 1}))
	require.NoError(t, fw.Flush())
	assert.Equal(t, frames(t, &Ping{ID: 1}), buf.Bytes(), "the refused message left no bytes behind")
}

func TestFrameWriterWriteFrame(t *testing.T) {
	var buf bytes.Buffer
	fw := NewFrameWriter(&buf, 0)
	require.NoError(t, fw.WriteFrame(body(t, &Ping{ID: 3})))
	requireProtocolError(t, fw.WriteFrame(nil), ErrCodeTooLarge)
	require.NoError(t, fw.Flush())
	assert.Equal(t, frames(t, &Ping{ID: 3}), buf.Bytes())
}

func TestFrameCapsNeverExceedHardMax(t *testing.T) {
	fr := NewFrameReader(bytes.NewReader(nil), 1<<31)
	assert.Equal(t, HardMaxFrame, fr.MaxFrame(), "a peer cannot make the reader accept 2 GiB frames")
	assert.Equal(t, DefaultMaxFrame, NewFrameReader(bytes.NewReader(nil), 0).MaxFrame())
}

func TestRefusedHugeMessageDoesNotPinItsBuffer(t *testing.T) {
	var out bytes.Buffer
	fw := NewFrameWriter(&out, 64<<10)
	big := &Notify{Session: "s", Cell: "c", Text: strings.Repeat("x", 2<<20)}
	require.Error(t, fw.WriteMessage(big))
	assert.LessOrEqual(t, cap(fw.buf), keepBuffer)
}

// tricklingReader serves data up to limit, which a test raises to model
// bytes arriving; a read with nothing available fails the test, because
// on a pipe it would block.
type tricklingReader struct {
	t          *testing.T
	data       []byte
	pos, limit int
}

func (r *tricklingReader) Read(p []byte) (int, error) {
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	if r.pos == r.limit {
		r.t.Fatal("a read that would block")
	}
	n := copy(p, r.data[r.pos:r.limit])
	r.pos += n
	return n, nil
}

func (r *tricklingReader) avail() int { return r.limit - r.pos }

func TestFrameReaderReadyOnlyWhenTheWholeFrameIsThere(t *testing.T) {
	msgs := []Message{&ToolResult{ID: 1, Value: []byte(`"` + strings.Repeat("x", 100<<10) + `"`)}, &Ping{ID: 2}}
	data := frames(t, msgs...)
	first := len(frames(t, msgs[0]))
	r := &tricklingReader{t: t, data: data}
	fr := NewFrameReader(r, 0)
	for _, limit := range []int{0, 3, 4, 1000, first - 1} {
		r.limit = limit
		assert.False(t, fr.Ready(r.avail), "%d of %d bytes", limit, first)
	}
	r.limit = first
	require.True(t, fr.Ready(r.avail))
	got, err := fr.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, msgs[0], got)

	r.limit = len(data) - 1
	assert.False(t, fr.Ready(r.avail))
	r.limit = len(data)
	require.True(t, fr.Ready(r.avail))
	got, err = fr.ReadMessage()
	require.NoError(t, err)
	assert.Equal(t, msgs[1], got)
}

func TestFrameReaderReadyForAFrameItRefuses(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], 1<<30)
	r := &tricklingReader{t: t, data: hdr[:], limit: 4}
	fr := NewFrameReader(r, 0)
	require.True(t, fr.Ready(r.avail), "a length over the cap fails at once")
	_, err := fr.ReadFrame()
	requireFatal(t, err, ErrCodeTooLarge)
}
