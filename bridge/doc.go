// Package bridge is the parent's side of codemode-host: it launches the
// host process (through github.com/hashicorp/go-plugin), opens sessions,
// runs cells, and serves the tool calls scripts make by handing them to a
// ToolExecutor — typically a registry.
//
// Today it defines ToolExecutor, the interface both the bridge and the
// in-process runtime call tools through; the process-crossing client
// arrives with the protocol work.
package bridge
