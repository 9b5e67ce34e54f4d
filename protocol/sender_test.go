package protocol

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// gateWriter blocks its first Write until released, and records writes.
type gateWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	writes  int
	entered chan struct{}
	release chan struct{}
}

func newGateWriter() *gateWriter {
	return &gateWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.writes++
	first := g.writes == 1
	g.buf.Write(p)
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.release
	}
	return len(p), nil
}

func TestSenderBatchesFramesQueuedDuringAWrite(t *testing.T) {
	defer goleak.VerifyNone(t)
	w := newGateWriter()
	s := NewSender(w, 0)
	require.NoError(t, s.Send(&Ping{ID: 1}))
	<-w.entered // the writer goroutine is stuck in the first write
	for i := uint64(2); i <= 100; i++ {
		require.NoError(t, s.Send(&Ping{ID: i}), "Send never blocks on I/O")
	}
	close(w.release)
	require.NoError(t, s.Close())
	assert.Equal(t, 2, w.writes, "99 frames queued during a write go out in one write")

	fr := NewFrameReader(&w.buf, 0)
	for i := uint64(1); i <= 100; i++ {
		m, err := fr.ReadMessage()
		require.NoError(t, err)
		assert.Equal(t, &Ping{ID: i}, m)
	}
}

func TestSenderConcurrentSendersKeepFramesWhole(t *testing.T) {
	defer goleak.VerifyNone(t)
	pr, pw := io.Pipe()
	s := NewSender(pw, 0)
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				call := &ToolCallRequest{ID: uint64(g*each + i + 1), ToolCall: ToolCall{CellID: "c", CallID: uint64(i), Name: "echo", Kind: KindFunction, Input: []byte(`{"n":1}`)}}
				assert.NoError(t, s.Send(call))
			}
		}()
	}
	seen := map[uint64]uint64{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fr := NewFrameReader(pr, 0)
		for {
			m, err := fr.ReadMessage()
			if err != nil {
				assert.ErrorIs(t, err, io.EOF)
				return
			}
			call := m.(*ToolCallRequest)
			g := (call.ID - 1) / each
			assert.Equal(t, seen[g], call.CallID, "frames of one goroutine stay in order")
			seen[g]++
		}
	}()
	wg.Wait()
	require.NoError(t, s.Close())
	require.NoError(t, pw.Close())
	<-done
	assert.Len(t, seen, goroutines)
}

func TestSenderWriteErrorIsSticky(t *testing.T) {
	defer goleak.VerifyNone(t)
	boom := errors.New("broken pipe")
	s := NewSender(failWriter{boom}, 0)
	require.NoError(t, s.Send(&Ping{ID: 1}))
	<-s.Done()
	assert.ErrorIs(t, s.Err(), boom)
	assert.ErrorIs(t, s.Send(&Ping{ID: 2}), boom)
	assert.ErrorIs(t, s.Close(), boom)
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

func TestSenderAfterClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	var buf bytes.Buffer
	s := NewSender(&buf, 0)
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Send(&Ping{ID: 1}), ErrSenderClosed)
	require.NoError(t, s.Close(), "Close twice is fine")
	assert.Zero(t, buf.Len())
}

func TestSenderRefusesOversizeAndInvalidMessages(t *testing.T) {
	defer goleak.VerifyNone(t)
	var buf bytes.Buffer
	s := NewSender(&buf, 16)
	err := s.Send(&Notify{Session: "s", Cell: "c", Text: "more than sixteen bytes"})
	requireProtocolError(t, err, ErrCodeTooLarge)
	requireProtocolError(t, s.Send(&Ping{}), ErrCodeBadField)
	s.SetMaxFrame(0)
	require.NoError(t, s.Send(&Ping{ID: 1}))
	require.NoError(t, s.Close())
	assert.Equal(t, frames(t, &Ping{ID: 1}), buf.Bytes())
}

func TestSendInlineWritesInOrderWithQueuedFrames(t *testing.T) {
	var buf syncBuffer
	s := NewSender(&buf, 0)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				var err error
				if i%2 == 0 {
					err = s.SendInline(&Ping{ID: uint64(g*1000 + i + 1)})
				} else {
					err = s.Send(&Ping{ID: uint64(g*1000 + i + 1)})
				}
				require.NoError(t, err)
			}
		}(g)
	}
	wg.Wait()
	require.NoError(t, s.Close())
	r := NewFrameReader(bytes.NewReader(buf.Bytes()), 0)
	last := map[int]uint64{}
	n := 0
	for {
		m, err := r.ReadMessage()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		id := m.(*Ping).ID
		g := int((id - 1) / 1000)
		require.Greater(t, id, last[g], "frames from one goroutine stay in order")
		last[g] = id
		n++
	}
	require.Equal(t, 800, n)
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine and SendInline.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// partialPipe takes at most room bytes per TryWrite (as a nearly full pipe
// would) and records what arrived by either path, in order.
type partialPipe struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	room  int
	tries int
}

func (p *partialPipe) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.Write(b)
}

func (p *partialPipe) TryWrite(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tries++
	n := min(len(b), p.room)
	return p.buf.Write(b[:n])
}

func TestSenderTryWritesAndQueuesTheRestInOrder(t *testing.T) {
	p := &partialPipe{room: 10}
	s := NewSender(p, 0)
	var want []byte
	for i := range 20 {
		m := &Ping{ID: uint64(i + 1)}
		f, err := AppendFrame(nil, m)
		require.NoError(t, err)
		want = append(want, f...)
		require.NoError(t, s.Send(m))
	}
	require.NoError(t, s.Close())
	assert.Equal(t, want, p.buf.Bytes(), "frames arrive whole and in order")
	assert.Positive(t, p.tries, "Send tried the non-blocking write")
}

// tryGateWriter is a gateWriter that also takes TryWrite, which never blocks.
type tryGateWriter struct {
	*gateWriter
	tries int
}

func (g *tryGateWriter) TryWrite(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tries++
	return g.buf.Write(p)
}

func TestSenderQueueLeavesABurstToTheWriter(t *testing.T) {
	defer goleak.VerifyNone(t)
	w := &tryGateWriter{gateWriter: newGateWriter()}
	s := NewSender(w, 0)
	require.NoError(t, s.Send(&Ping{ID: 1}))
	for i := uint64(2); i <= 100; i++ {
		require.NoError(t, s.Queue(&Ping{ID: i}))
	}
	<-w.entered
	close(w.release)
	require.NoError(t, s.Close())
	assert.Equal(t, 1, w.tries, "only the burst's first frame is written by its sender")
	assert.LessOrEqual(t, w.writes, 2, "the writer goroutine sends the other 99 in one or two writes")

	fr := NewFrameReader(&w.buf, 0)
	for i := uint64(1); i <= 100; i++ {
		m, err := fr.ReadMessage()
		require.NoError(t, err)
		assert.Equal(t, &Ping{ID: i}, m)
	}
}

func TestSendFrameKeepsForeignFramesWholeAndInOrder(t *testing.T) {
	p := &partialPipe{room: 7}
	s := NewSender(p, 16) // the cap applies to Send, not to SendFrame
	var want []byte
	buf := make([]byte, 0, 64)
	for i := range 30 {
		buf = append(buf[:0], 0, 0, 0, byte(20+i))
		buf = append(buf, bytes.Repeat([]byte{byte('a' + i%26)}, 20+i)...)
		want = append(want, buf...)
		require.NoError(t, s.SendFrame(buf)) // buf is reused at once
	}
	require.NoError(t, s.Close())
	assert.Equal(t, want, p.buf.Bytes())
	assert.Positive(t, p.tries, "SendFrame tried the non-blocking write")
	assert.ErrorIs(t, s.SendFrame([]byte{0, 0, 0, 0}), ErrSenderClosed)
}
