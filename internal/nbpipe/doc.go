// Package nbpipe lets a program write to a blocking pipe or stream socket
// without blocking when it wants to: Wrap returns a writer whose Write
// blocks as usual and whose TryWrite (protocol.TryWriter) writes only what
// fits at once.
//
// The host's event loops send tool calls this way: a frame that fits in
// the pipe goes out from the loop's own thread with one system call, with
// no hand-off to a writer goroutine, and a frame that does not fit is left
// to that goroutine, so a parent that stops reading never blocks a loop.
// A Node parent gives its child a Unix socket pair for stdio: without a
// TryWriter there, every tool call waited for the writer goroutine.
package nbpipe
