// Package bridge is the parent's side of codemode-host: it launches the
// host process, opens sessions, runs cells, and serves the tool calls
// scripts make by handing them to a ToolExecutor — typically a registry.
//
// Start launches the host binary through github.com/hashicorp/go-plugin
// (magic cookie, version negotiation, log forwarding, graceful kill) and
// carries the protocol's frames on a pipe pair passed as fds 3 and 4
// (docs/PROTOCOL.md §1); the host exits when fd 3 reaches end of file, and
// on Linux also when the parent dies (Pdeathsig). NewConn speaks the same
// protocol over any reader/writer pair, for example `codemode-host stdio`'s
// pipes or in-memory pipes in tests.
//
// A Conn has one reader goroutine, which dispatches replies to the
// pending-request map and starts one goroutine per tool call, and one
// writer goroutine (a protocol.Sender). A call that arrives alone (the
// sequential `await` of a script) runs on the reader goroutine instead,
// which spares it a goroutine start and a thread wake-up; if it runs for
// longer than about a millisecond, or the executor makes a request on the
// Conn, a new goroutine takes over the reading (reader.go). After such a
// call the reader polls a pipe input for up to 30 µs before it parks, as
// the script's next call is usually that close (pollread_linux.go). A tool call's context is cancelled
// when the host sends tool.cancelled, when its cell closes and when the
// connection ends. When the host dies, every pending request fails at once
// with a *HostDiedError (exit status, last stderr lines); a Client then
// starts a fresh host on its next use and re-opens its sessions with the
// store it mirrored from earlier results.
//
// Everything exported is safe from any goroutine unless its doc says
// otherwise; ExecRequest.OnEvent runs on the reader goroutine and must not
// block. This package never imports the runtime or V8.
package bridge
