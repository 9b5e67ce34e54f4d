//go:build linux

package bridge

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipeReader returns a pollingReader on a new pipe and the pipe's writer.
func pipeReader(t *testing.T) (*pollingReader, *os.File) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	pr := newPollingReader(r)
	require.NotNil(t, pr, "an os.Pipe is polled by the runtime")
	return pr, w
}

// readLater reads from pr on its own goroutine while the test writes 10 ms
// later.
func readLater(t *testing.T, pr *pollingReader, w *os.File) {
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := pr.Read(buf)
		assert.NoError(t, err)
		got <- string(buf[:n])
	}()
	time.Sleep(10 * time.Millisecond)
	_, err := w.Write([]byte("frame"))
	require.NoError(t, err)
	assert.Equal(t, "frame", <-got)
}

func TestPollingReaderPollsOnlyAfterExpect(t *testing.T) {
	defer func(d time.Duration) { pollNextFrame = d }(pollNextFrame)
	pollNextFrame = time.Minute // the write below always lands in the poll
	pr, w := pipeReader(t)

	pr.expect()
	readLater(t, pr, w)
	assert.Zero(t, pr.parked.Load(), "after expect the read polled until the frame came")

	readLater(t, pr, w)
	assert.Equal(t, uint32(1), pr.parked.Load(), "expect holds for one read; the next one parks in the poller")
}

func TestPollingReaderSeesTheEnd(t *testing.T) {
	pr, w := pipeReader(t)
	_, err := w.Write([]byte("ab"))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	buf := make([]byte, 8)
	n, err := pr.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "ab", string(buf[:n]))
	pr.expect()
	_, err = pr.Read(buf)
	assert.ErrorIs(t, err, io.EOF)
}

func TestPollingReaderEndsWhenItsFileIsClosed(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	pr := newPollingReader(r)
	done := make(chan error, 1)
	go func() {
		_, err := pr.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond) // parked in the poller
	require.NoError(t, r.Close())
	assert.Error(t, <-done, "closing the file ends a parked read (the handshake's context does this)")
}
