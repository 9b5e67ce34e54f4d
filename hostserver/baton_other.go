//go:build !linux

package hostserver

import "io"

// inputAvail returns nil: the input is lent to loops only on Linux,
// where they poll.
func inputAvail(io.Reader) func() int { return nil }
