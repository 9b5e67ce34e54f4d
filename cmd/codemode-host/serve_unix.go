//go:build unix

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// reserveStdout moves the real standard output to a private descriptor for
// frames and points fd 1 at standard error, so a stray write by any
// library (Go, C or V8) lands in the log instead of corrupting a frame.
func reserveStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("codemode-host: cannot duplicate standard output: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("codemode-host: cannot redirect standard output to standard error: %w", err)
	}
	return os.NewFile(uintptr(fd), "frames"), nil
}
