package hostserver

import (
	"io"
	"syscall"
	"unsafe"
)

// inputAvail returns a function that reports how many bytes r's pipe or
// socket holds (FIONREAD), or nil when r is something else, which then
// is never lent to the loops.
func inputAvail(r io.Reader) func() int {
	sc, ok := r.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return nil
	}
	if kind := st.Mode & syscall.S_IFMT; kind != syscall.S_IFIFO && kind != syscall.S_IFSOCK {
		return nil
	}
	return func() int {
		var n int32
		var errno syscall.Errno
		if err := rc.Control(func(fd uintptr) {
			_, _, errno = syscall.RawSyscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
		}); err != nil || errno != 0 {
			return 0
		}
		return int(n)
	}
}
