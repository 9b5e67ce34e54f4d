// Package registry is the parent agent's tool registry for Code Mode: tool
// names and namespaces, the six exposures, registration with collision
// rules, the immutable tool sets handed to the model and to the host,
// BM25 tool_search over deferred tools, and the one dispatch pipeline that
// every tool call goes through, whether the model made it directly or a
// script made it from inside the host.
//
// The life cycle is build → finalize → immutable snapshot:
//
//	reg := registry.New(registry.Config{Logger: log})
//	reg.AddTrusted(registry.NewFunc(spec, handler))   // built-ins, in order
//	reg.AddServer(server, mcpTools)                   // external, at any time
//	set, err := reg.Finalize(registry.DefaultAgentMode) // one model step
//	set.ModelToolsFor(id) // what the model sees this step in session id
//	set.CodeModeDefs()    // what the host binds into the isolate
//	set.Dispatch(ctx, c)  // a call the model made in this step
//	set.CallTool(ctx, tc) // a call a script made (bridge.ToolExecutor)
//
// A *ToolSet never changes, so a call is executed by the same tools and
// exposures that advertised it, even if the registry changed meanwhile.
// Pass the set that built a cell's definitions to the bridge as that cell's
// executor. Registry.CallTool, for callers that don't track sets, uses the
// most recently finalized set.
//
// A tool may advertise parameter names that differ from the ones its code
// reads (Spec.ParamNames): the model, scripts, validation errors and hooks
// see the advertised names, and the tool's input is renamed on the way in.
//
// Modes: DefaultAgentMode (ModeCodeModeOnly) offers exec and wait, with
// every tool scripts may call declared once in exec's description;
// ModeCodeMode also lists the Direct tools (described there only);
// ModeDirect has no exec. Config.ExecShape offers exec as a freeform or a
// JSON function tool (ExecArgs decodes either).
//
// tool_search loads what it finds: the hits of a call in session id are
// added to that session's loaded tools, kept in its session state
// (LoadedToolsStateName; saved with the rest of it when Config.State.Dir
// is set), and ToolSet.ModelToolsFor(id) lists them from the next step on,
// until Registry.ResetLoadedTools(id). Give model calls their Call.SessionID.
//
// Tools keep typed per-session state and configuration with StateKey,
// reached through the call (SessionStateOf(ctx), Invocation.SessionState)
// and selected by Call.SessionID. With Config.State.Dir set, each session's
// state is saved to a versioned JSON file (debounced, or synchronously with
// StateConfig.Sync; written atomically) and read back when the session's id
// is used again, by this process or a restarted one. Call Registry.Close
// to save what is pending.
//
// Concurrency: every method of Registry and of ToolSet is safe from any
// goroutine. Callbacks in Config (hooks, approval, events) are called from
// the goroutine that dispatches the call, often many at once.
package registry
