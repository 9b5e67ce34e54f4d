// Package hostserver is the host side of the codemode-host protocol: it
// serves one parent over a byte-stream pair (stdin/stdout, or the fd 3/4
// pipes of plugin mode) and runs the parent's cells in a runtime.Runtime.
//
// Serve owns everything it creates. One goroutine reads frames and
// dispatches them, except while it lends the input to the loop of the one
// running cell, which then reads the answers to its sequential tool calls
// itself (see baton); every frame the host sends goes through one
// protocol.Sender, whose single writer goroutine never blocks a V8 loop.
// A cell's exec, wait and terminate requests are answered by the cell's
// own bookkeeping (see cell.go); tool calls are sent to the parent by the
// cell's ToolCaller and matched with their tool.result by id.
package hostserver
