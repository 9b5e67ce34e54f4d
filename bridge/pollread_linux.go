//go:build linux

package bridge

import (
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// pollNextFrame is how long the reader polls for the host's next frame
// right after it answered a call inline. A script in a loop of awaited
// calls sends its next call within about this time; caught while polling,
// it costs the reader no park in the runtime's poller and no wake-up
// (bench/README.md has the figures). Each look yields the CPU, so the
// host keeps running while the reader waits.
var pollNextFrame = 30 * time.Microsecond // a variable for tests

// pollingReader reads a pipe through the runtime's poller. After expect,
// its next read that finds the pipe empty first polls it for up to
// pollNextFrame before it parks. Read is for the reader goroutine; expect
// is safe from any goroutine.
type pollingReader struct {
	rc     syscall.RawConn
	soon   atomic.Bool   // the next read polls first
	parked atomic.Uint32 // reads that waited in the poller, for tests
}

// newPollingReader wraps r when it is a file the runtime polls (a pipe
// from os.Pipe or exec.Cmd); otherwise it returns nil.
func newPollingReader(r io.Reader) *pollingReader {
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return &pollingReader{rc: rc}
}

// expect makes the next read poll before it parks.
func (r *pollingReader) expect() { r.soon.Store(true) }

// Read reads what the pipe has, waiting for it in the poller like an
// *os.File, after polling first when expect was called.
func (r *pollingReader) Read(p []byte) (n int, err error) {
	var until time.Time
	if r.soon.Swap(false) {
		until = time.Now().Add(pollNextFrame)
		// The host's next frame cannot be there yet: it needs the answer
		// just written, and on a CPU shared with the host it runs only
		// once this thread yields. Yield before the first read instead of
		// spending a read that finds the pipe empty.
		syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
	rerr := r.rc.Read(func(fd uintptr) bool {
		for {
			n, err = syscall.Read(int(fd), p)
			switch {
			case err == syscall.EINTR:
				continue
			case err != syscall.EAGAIN:
				return true
			case until.IsZero() || !time.Now().Before(until):
				r.parked.Add(1)
				return false // park in the poller until the pipe is readable
			}
			syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	})
	switch {
	case rerr != nil:
		return 0, rerr
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}
