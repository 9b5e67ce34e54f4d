// Package codexhost serves Codex's Code Mode host protocol, v1 (a u32
// little-endian length, then one JSON object), on the runtime seam: it is
// a drop-in for Codex's own codex-code-mode-host started without
// arguments. One goroutine reads and dispatches frames under one mutex;
// one writer goroutine sends them, so a V8 loop that reports an event
// never waits on the pipe. Each execute is a runtime cell whose Events
// (cell.go) turn output, tool calls, notifications and yield_control into
// v1 frames; the observer of a cell (its execute, or a later wait)
// answers with Yielded, Terminated or Result.
//
// What a client sees follows the traces recorded from Codex's 0.169.0
// host; where this host differs on purpose (its
// limits, its fatal decode errors' positions) the tests say so by name.
package codexhost
