// Package runtime runs cells: model-written JavaScript executed in V8
// (rogchap.com/v8go) with tools, timers and output, under limits.
//
// Each isolate belongs to one worker goroutine locked to its OS thread; only
// that goroutine touches V8 values. A cell runs on one worker from start to
// end. Everything else — tool answers, timeouts, Terminate — is posted to
// the worker's mailbox and handled by the cell's event loop, which runs a
// microtask checkpoint after each delivery and ends the cell when its
// top-level code has settled.
//
// The seam to whoever runs a cell (seam.go) is typed: commands in
// (Runtime.Start, ToolCall.Answer, Cell.Terminate) and events out (the
// Events of the CellRequest: output, tool calls, notify, yield, the
// result), each reported once. In process, CellRequest.Caller answers the
// tool calls with a plain function.
//
// Runtime, Cell and their exported methods are safe to call from any
// goroutine unless their doc says "loop only".
package runtime
