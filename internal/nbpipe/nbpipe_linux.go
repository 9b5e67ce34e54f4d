package nbpipe

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Writer writes to a pipe or a stream socket. Write blocks like the
// *os.File it wraps; TryWrite never blocks. Both are safe to call from one
// goroutine at a time (the caller serialises writes, as protocol.Sender
// does).
type Writer struct {
	f      *os.File
	nb     int  // a descriptor to write to without blocking
	socket bool // nb is f's own socket, written with MSG_DONTWAIT
}

// Wrap returns a *Writer for f when f is a pipe this process can open a
// second time through /proc/self/fd, or a stream socket (a parent such as
// Node gives its child a Unix socket pair for stdio); otherwise it
// returns f unchanged (TryWrite is then unavailable and writers fall back
// to blocking).
//
// A pipe's second open file description carries O_NONBLOCK; f's own
// stays blocking, so a descriptor shared with other processes (an
// inherited standard output, say) is not changed under them. A socket
// needs no second descriptor: each send asks for MSG_DONTWAIT itself.
func Wrap(f *os.File) io.WriteCloser {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return f
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFSOCK:
		if t, err := syscall.GetsockoptInt(int(f.Fd()), syscall.SOL_SOCKET, syscall.SO_TYPE); err != nil || t != syscall.SOCK_STREAM {
			return f
		}
		return &Writer{f: f, nb: int(f.Fd()), socket: true}
	case syscall.S_IFIFO:
		nb, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return f
		}
		return &Writer{f: f, nb: nb}
	}
	return f
}

// Write writes p, blocking until the pipe has taken all of it.
func (w *Writer) Write(p []byte) (int, error) { return w.f.Write(p) }

// TryWrite writes as much of p as the pipe takes now and returns how much;
// it never blocks. A pipe with no room returns 0 and a nil error.
func (w *Writer) TryWrite(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := w.write(p)
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

func (w *Writer) write(p []byte) (int, error) {
	if !w.socket {
		return syscall.Write(w.nb, p)
	}
	n, _, errno := syscall.Syscall6(syscall.SYS_SENDTO, uintptr(w.nb), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// Close closes f, and the pipe's second descriptor.
func (w *Writer) Close() error {
	if !w.socket {
		syscall.Close(w.nb)
	}
	return w.f.Close()
}
