//go:build !linux

package nbpipe

import (
	"io"
	"os"
)

// Wrap returns f: only Linux offers a second open file description of a
// pipe, so writers fall back to blocking writes.
func Wrap(f *os.File) io.WriteCloser { return f }
