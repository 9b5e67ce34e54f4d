// Package codexhost serves Codex's Code Mode host protocols on the
// runtime seam: it is a drop-in for Codex's own codex-code-mode-host.
//
// Serve speaks v1 (a u32 little-endian length, then one JSON object), what
// that host serves started without arguments. One goroutine reads and
// dispatches frames under one mutex; frames leave through a
// protocol.Sender (from the sending goroutine when the output is a
// protocol.TryWriter with room, else from its writer goroutine), so a
// V8 loop that reports an event never waits on the pipe.
//
// ServeGRPC serves the gRPC service codex.code_mode.v1.CodeModeHost
// (codexpb), what codex 0.169 starts by default (`--listen
// grpc+stdio://`): the same sessions and cells, each handler taking the
// same mutex; what cells report goes into per-stream queues that the
// streams' handlers drain.
//
// Each execute is a runtime cell whose Events (cell.go) turn output, tool
// calls, notifications and yield_control into what the protocol sends,
// through the output interface (sink.go: v1out, grpc.go: grpcOut); the
// observer of a cell (its execute, or a later wait) answers with Yielded,
// Terminated or Result.
//
// What a client sees follows the traces recorded from Codex's 0.169.0
// host; where this host differs on purpose (its limits, its fatal decode
// errors' positions, its ToolError) the tests say so by name.
package codexhost
