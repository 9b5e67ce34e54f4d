//go:build !linux

package inpipe

import "os"

// Input is unavailable on this system: Open returns nil.
type Input struct{}

// Open returns nil here: read f with a FrameReader.
func Open(f *os.File) *Input { return nil }

// Read is never called: Open returns nil.
func (in *Input) Read(p []byte) (int, error) { return 0, os.ErrInvalid }

// Start is never called: Open returns nil.
func (in *Input) Start(pending []byte, maxFrame int, handle func(frame []byte)) {}

// Fd is never called: Open returns nil.
func (in *Input) Fd() int { return -1 }

// Hold is never called: Open returns nil.
func (in *Input) Hold() bool { return false }

// Release is never called: Open returns nil.
func (in *Input) Release(pump bool) {}

// Pump is never called: Open returns nil.
func (in *Input) Pump() {}

// Done is never called: Open returns nil.
func (in *Input) Done() <-chan struct{} { return nil }

// Err is never called: Open returns nil.
func (in *Input) Err() error { return nil }

// Close is never called: Open returns nil.
func (in *Input) Close() error { return nil }
