// Package inpipe reads the host's input frames from a pipe so that the
// thread that needs them can read them itself.
//
// A host reads its parent's frames on one goroutine and hands each tool
// result to the loop thread that waits for it: a thread hand-off per call,
// which on this kind of machine costs as much as the pipe itself. An Input
// opens the pipe a second time, non-blocking, and lets whoever is waiting
// pump it: its own watcher goroutine (through the runtime's poller) or a
// loop that polls the descriptor while it waits for tool results (see
// runtime.Input). Frames are read under one lock and handled in stream
// order, whoever reads them.
package inpipe
