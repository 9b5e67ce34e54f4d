package nbpipe

import (
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func TestTryWriteStopsWhenThePipeIsFullAndWriteStillBlocks(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	w.Fd() // blocking mode, as a host inherits it
	wc := Wrap(w)
	defer wc.Close()
	tw, ok := wc.(protocol.TryWriter)
	require.True(t, ok, "a pipe must get a TryWriter")

	chunk := make([]byte, 4096)
	total := 0
	for i := 0; ; i++ {
		require.Less(t, i, 1<<12, "TryWrite never reported a full pipe")
		n, err := tw.TryWrite(chunk)
		require.NoError(t, err)
		total += n
		if n < len(chunk) {
			break
		}
	}
	assert.Positive(t, total)
	n, err := tw.TryWrite(chunk)
	require.NoError(t, err)
	assert.Zero(t, n, "a full pipe takes nothing")

	// The reader drains; the blocking Write then delivers all of its bytes.
	done := make(chan int64)
	go func() {
		got, _ := io.Copy(io.Discard, r)
		done <- got
	}()
	_, err = wc.Write(chunk)
	require.NoError(t, err)
	require.NoError(t, wc.Close())
	assert.Equal(t, int64(total+len(chunk)), <-done)
}

func TestWrapLeavesOtherFilesAlone(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	require.NoError(t, err)
	defer f.Close()
	_, isTry := Wrap(f).(protocol.TryWriter)
	assert.False(t, isTry, "a regular file is not reopened")
}

func TestTryWriteOnASocketStopsWhenItIsFull(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	r := os.NewFile(uintptr(fds[0]), "r")
	defer r.Close()
	wc := Wrap(os.NewFile(uintptr(fds[1]), "w"))
	tw, ok := wc.(protocol.TryWriter)
	require.True(t, ok, "a stream socket must get a TryWriter (a Node parent's stdio)")

	chunk := make([]byte, 4096)
	total := 0
	for i := 0; ; i++ {
		require.Less(t, i, 1<<14, "TryWrite never reported a full socket")
		n, err := tw.TryWrite(chunk)
		require.NoError(t, err)
		total += n
		if n < len(chunk) {
			break
		}
	}
	done := make(chan int64)
	go func() {
		got, _ := io.Copy(io.Discard, r)
		done <- got
	}()
	_, err = wc.Write(chunk)
	require.NoError(t, err)
	require.NoError(t, wc.Close())
	assert.Equal(t, int64(total+len(chunk)), <-done)
}
