// Package hostserver is the host side of the codemode-host protocol: it
// serves one parent over a byte-stream pair (stdin/stdout, or the fd 3/4
// pipes of plugin mode) and runs the parent's cells in a runtime.Runtime.
//
// Serve owns everything it creates. One goroutine reads frames and
// dispatches them, and every frame the host sends goes through one
// protocol.Sender, whose single writer goroutine never blocks a V8 loop;
// transport.go says how and where the loops take part on pipes (the
// host's only latency machinery). A cell's exec, wait and terminate
// requests are answered by the cell's own bookkeeping (see cell.go); the
// cell is the runtime.Events of its runtime cell, and each tool call it
// sends to the parent waits in one table (tools.go) for its tool.result.
package hostserver
