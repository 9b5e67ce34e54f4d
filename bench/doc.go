// Package bench measures codemode-host against its targets (DESIGN §7): the
// same four scenarios run through our host and through the peer
// @utcp/code-mode (bench/peer), next to the physical floor of a raw pipe
// ping-pong between two processes, plus the host's cold start and memory.
//
// Our side is one small interface, System, with three implementations:
// BridgeHost starts the host through package bridge (go-plugin, frames on
// fds 3/4), as a Go parent does; StdioHost runs `codemode-host stdio` and
// speaks to it with a bridge.Conn over its stdin and stdout; InProcess runs
// cells in this process's runtime, with no IPC at all. The targets are for
// the host process; the in-process rows show what the boundary costs.
//
// `make bench` runs the program in bench/run, which prints one table and
// writes it as JSON to bench/results/<timestamp>.json. Nothing here asserts
// a timing in a test.
package bench
