// Package mcp connects the registry to MCP servers: it starts a server
// (a command speaking MCP on stdio, or a streamable HTTP endpoint), lists
// its tools and registers each one as an external tool in namespace
// "mcp__<server>__", so scripts call tools.mcp__<server>__<tool>(args).
//
//	srv, err := mcp.Connect(ctx, reg, mcp.ServerConfig{
//		Name:    "everything",
//		Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"},
//		Policy:  &registry.ExposurePolicy{Mode: registry.ModeCodeMode},
//	})
//	defer srv.Close()
//
// Connect returns once the tools are registered; Attach returns at once and
// calls made before the server is ready wait for it (registry.ReadyWaiter).
// ServerConfig.Tools (a listing cached from an earlier session) are
// registered by Attach at once. ServerConfig.Exposure or .Policy chooses
// the exposure of the server's tools; ParseFlag reads the `--mcp
// 'NAME=COMMAND ARGS…'` spelling of a server.
// A tools/list_changed notification lists the tools again and updates the
// registry; a server that exits has its tools removed, and calls in flight
// fail with a *protocol.ToolError that says so.
//
// Declarations: a tool's schemas reach its registry.Spec as the server
// wrote them, in its key order (the adapter keeps the tools/list text from
// the connection or the HTTP responses; the SDK's decoded maps have lost
// the order), except behind a ServerConfig.Transport that is the SDK's
// streamable HTTP one.
// Its OutputSchema describes what a script gets: {content} and, when the
// tool declares an output schema, a required structuredContent of it. The
// server's instructions, cut to 2,000 characters, describe its namespace
// (Server.Instructions) unless ServerConfig.Description is set.
//
// Calls: the caller's context cancellation is sent to the server as a
// notifications/cancelled; the server's progress notifications are
// reported with registry.ReportProgress to the registry.WithProgress
// function of the call's context; a result with isError and JSON-RPC
// errors become a *protocol.ToolError with code tool_failed (the script
// catches it as a ToolError). A successful call gives scripts the
// CallToolResult without _meta — {content, structuredContent} — and gives
// the model the text blocks.
//
// A command server's lines on stdout that are not JSON (banners) are
// dropped with a warning rather than ending the session; its stderr goes
// to the logger at debug level, and its last lines into the error that
// says why it failed or exited. Close stops it as the MCP spec asks (close
// stdin, wait, SIGTERM, wait, SIGKILL) along with its process group.
//
// Concurrency: Attach, Connect and every method of Server are safe from
// any goroutine. Tools run on the dispatching goroutine, many at once
// unless ServerConfig.Sequential; progress is reported from the session's
// notification goroutine.
package mcp
