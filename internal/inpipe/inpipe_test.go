package inpipe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func frame(body string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// pipe returns a pipe whose read end is blocking, as a host inherits it.
func pipe(t *testing.T) (r, w *os.File) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	r.Fd() // blocking mode
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// collector records handled frames; handle runs with the input's lock
// held, so two calls never overlap.
type collector struct {
	mu      sync.Mutex
	frames  []string
	busy    bool
	overlap bool
}

func (c *collector) handle(f []byte) {
	c.mu.Lock()
	if c.busy {
		c.overlap = true
	}
	c.busy = true
	c.frames = append(c.frames, string(f))
	c.mu.Unlock()
	runtime.Gosched() // give an overlapping caller its chance
	c.mu.Lock()
	c.busy = false
	c.mu.Unlock()
}

// started opens an Input on a new pipe and starts it with frames capped at
// maxFrame, handled by a collector; w is the parent's end.
func started(t *testing.T, maxFrame int) (*Input, *os.File, *collector) {
	r, w := pipe(t)
	in := Open(r)
	require.NotNil(t, in)
	t.Cleanup(func() { in.Close() })
	c := &collector{}
	in.Start(nil, maxFrame, c.handle)
	return in, w, c
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.frames)
}

func TestOpenTakesOnlyPipes(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, Open(f), "a regular file is read with a FrameReader")

	r, _ := pipe(t)
	in := Open(r)
	require.NotNil(t, in)
	require.NoError(t, in.Close())
	_, err = r.Stat()
	assert.NoError(t, err, "Close leaves the inherited descriptor open")
}

func TestHandshakeThenFramesInOrderWithPendingBytes(t *testing.T) {
	r, w := pipe(t)
	in := Open(r)
	require.NotNil(t, in)
	defer in.Close()
	// The handshake reads through the FrameReader, which reads ahead.
	_, err := w.Write(append(append(frame("hello"), frame("one")...), frame("two")[:5]...))
	require.NoError(t, err)
	fr := protocol.NewFrameReader(in, 0)
	hello, err := fr.ReadFrame()
	require.NoError(t, err)
	require.Equal(t, "hello", string(hello))

	c := &collector{}
	in.Start(fr.Buffered(), 0, c.handle)
	_, err = w.Write(append(frame("two")[5:], frame("three")...))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return c.count() == 3 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, []string{"one", "two", "three"}, c.frames)

	w.Close()
	select {
	case <-in.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the end of the stream was not noticed")
	}
	assert.ErrorIs(t, in.Err(), io.EOF)
	assert.False(t, in.Hold(), "nobody waits on an input that ended")
}

func TestConcurrentPumpersHandleEveryFrameOnceInOrder(t *testing.T) {
	in, w, c := started(t, 0)
	const n = 3000
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 { // loops pumping as they would after a poll
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					in.Pump()
					time.Sleep(20 * time.Microsecond)
				}
			}
		}()
	}
	go func() {
		for i := range n {
			w.Write(frame(fmt.Sprint(i)))
		}
	}()
	require.Eventually(t, func() bool { return c.count() == n }, 20*time.Second, time.Millisecond)
	close(stop)
	wg.Wait()
	for i, f := range c.frames {
		require.Equal(t, fmt.Sprint(i), f)
	}
	assert.False(t, c.overlap, "two frames were handled at once")
}

func TestHoldLeavesInputToTheHolderAndReleaseReadsIt(t *testing.T) {
	in, w, c := started(t, 0)

	require.True(t, in.Hold())
	assert.False(t, in.Hold(), "one holder at a time")
	_, err := w.Write(frame("mine"))
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond) // the watcher is woken too, and must leave it
	assert.Zero(t, c.count(), "the watcher read what the holder waits for")
	in.Release(false) // the holder did not see it: Release reads what was left
	assert.Equal(t, []string{"mine"}, c.frames)

	_, err = w.Write(frame("after"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return c.count() == 2 }, 5*time.Second, time.Millisecond, "the watcher reads again once released")
}

func TestBrokenFramingEndsTheInput(t *testing.T) {
	for name, tc := range map[string]struct {
		data []byte
		code protocol.ErrorCode
	}{
		"too large":         {[]byte{0x7f, 0, 0, 0}, protocol.ErrCodeTooLarge},
		"zero length":       {[]byte{0, 0, 0, 0}, protocol.ErrCodeBadFrame},
		"cut inside a body": {frame("abcdef")[:7], protocol.ErrCodeBadFrame},
	} {
		t.Run(name, func(t *testing.T) {
			in, w, c := started(t, 1<<20)
			_, err := w.Write(append(frame("ok"), tc.data...))
			require.NoError(t, err)
			w.Close()
			select {
			case <-in.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("the input did not end")
			}
			var pe *protocol.ProtocolError
			require.True(t, errors.As(in.Err(), &pe), "%v", in.Err())
			assert.Equal(t, tc.code, pe.Code)
			assert.True(t, pe.Fatal)
			assert.Equal(t, []string{"ok"}, c.frames, "frames before the break are handled")
		})
	}
}
