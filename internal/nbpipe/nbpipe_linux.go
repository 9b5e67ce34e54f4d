package nbpipe

import (
	"io"
	"os"
	"strconv"
	"syscall"
)

// Writer writes to a pipe. Write blocks like the *os.File it wraps;
// TryWrite never blocks. Both are safe to call from one goroutine at a
// time (the caller serialises writes, as protocol.Sender does).
type Writer struct {
	f  *os.File
	nb int // a second open file description of the same pipe, O_NONBLOCK
}

// Wrap returns a *Writer for f when f is a pipe this process can open a
// second time through /proc/self/fd; otherwise it returns f unchanged
// (TryWrite is then unavailable and writers fall back to blocking).
//
// The second open file description carries O_NONBLOCK; f's own stays
// blocking, so a descriptor shared with other processes (an inherited
// standard output, say) is not changed under them.
func Wrap(f *os.File) io.WriteCloser {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return f
	}
	nb, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return f
	}
	return &Writer{f: f, nb: nb}
}

// Write writes p, blocking until the pipe has taken all of it.
func (w *Writer) Write(p []byte) (int, error) { return w.f.Write(p) }

// TryWrite writes as much of p as the pipe takes now and returns how much;
// it never blocks. A pipe with no room returns 0 and a nil error.
func (w *Writer) TryWrite(p []byte) (int, error) {
	for {
		n, err := syscall.Write(w.nb, p)
		switch err {
		case nil:
			return n, nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, nil
		}
		return 0, &os.PathError{Op: "write", Path: w.f.Name(), Err: err}
	}
}

// Close closes both descriptors.
func (w *Writer) Close() error {
	syscall.Close(w.nb)
	return w.f.Close()
}
