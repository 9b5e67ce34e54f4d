//go:build !linux

package bridge

import "io"

// pollingReader is Linux only: elsewhere frames are read from the reader
// as given.
type pollingReader struct{ io.Reader }

func newPollingReader(io.Reader) *pollingReader { return nil }

func (r *pollingReader) expect() {}
