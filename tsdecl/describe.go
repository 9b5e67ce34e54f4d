package tsdecl

import (
	"strconv"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/toolsearch"
)

// ExecOptions tunes ExecDescription. The zero value uses the defaults.
type ExecOptions struct {
	// Options renders the tool declarations.
	Options
	// YieldMS is the default yield time of a cell, in milliseconds.
	// Default protocol.DefaultYieldMS.
	YieldMS uint64
	// Limits are the cell limits to quote; zero fields take
	// protocol.DefaultLimits.
	Limits protocol.Limits
	// Namespaces describes namespaces (by name, e.g. "mcp__files__"; an MCP
	// server's instructions): the description heads the namespace's
	// declared tools as // comment lines (capped at
	// Options.MaxNamespaceDescription runes), and its first 200 runes name the
	// namespace in the deferred-tools guidance. Optional.
	Namespaces map[string]string
}

// execIntro is the fixed part of the exec description. %YIELD%,
// %TOKENS% and %SEARCH% are replaced.
const execIntro = "Run a JavaScript or TypeScript program (a cell) that calls tools. Use it to make many tool calls in one step — loop, filter and combine their results — and output only what matters.\n" +
	"- The input is the program source. Top-level `await` works. TypeScript types are stripped, not checked. No `import`, `require`, `fetch`, `process`, file system or network: use tools for I/O.\n" +
	"- " + stdlibSummary + "\n" +
	"- Call a tool as `await tools.<name>(...)`: function tools take one object (omit it when nothing is required), freeform tools one string. Calls return promises; run independent calls together with `Promise.all`. Unawaited calls are cancelled when the cell ends.\n" +
	"- A failed call rejects with an Error named `ToolError` with `.code` (" + toolErrorCodes + "), `.tool` and `.message`; use try/catch.\n" +
	"- Output, in order: `text(value)`, `console.log/info/warn/error(...)`, `image(dataUrlOrMcpImage, detail?)`, and a top-level `return value` (JSON, last). `notify(text)` sends progress at once. Output over %TOKENS% tokens is cut in the middle, so print only what you need.\n" +
	"- `store(key, value)` / `load(key)` keep JSON values across cells of this session. `setTimeout(fn, ms)` / `clearTimeout(id)` work, but pending timers do not keep a cell alive: await a promise to wait.\n" +
	"- A cell still running after %YIELD% returns its output so far and its cell ID, and keeps running: call `wait` with that ID. A first line `" + PragmaLine + "` sets the cell's own yield time. `yield_control()` returns the output so far at once; `exit()` ends the cell successfully.\n" +
	"- `ALL_TOOLS` lists every tool you can call as `{ name, description, declaration }`; `searchTools(query, limit = %SEARCH%)` returns the best matches."

const toolErrorCodes = protocol.CodeToolFailed + ", " + protocol.CodeInvalidArguments + ", " +
	protocol.CodeUnknownTool + ", " + protocol.CodeDenied + ", " + protocol.CodeLimitExceeded + ", …"

// ExecDescription renders the full description of the model-facing `exec`
// tool for the bound tools.
func ExecDescription(defs []protocol.ToolDef) string {
	return ExecOptions{}.ExecDescription(defs)
}

// ExecDescription renders the full description of the model-facing `exec`
// tool for the bound tools: how to write a cell, then the declarations of
// the tools that are not deferred, then where to find the deferred ones.
// Only the tools protocol.Bind binds are described.
func (e ExecOptions) ExecDescription(defs []protocol.ToolDef) string {
	yield := e.YieldMS
	if yield == 0 {
		yield = protocol.DefaultYieldMS
	}
	limits := e.Limits.WithDefaults()
	var b strings.Builder
	b.WriteString(strings.NewReplacer(
		"%YIELD%", duration(yield),
		"%TOKENS%", strconv.FormatUint(uint64(limits.OutputTokens), 10),
		"%SEARCH%", strconv.Itoa(toolsearch.DefaultLimit),
	).Replace(execIntro))

	var declared, deferred []protocol.ToolDef
	for _, d := range protocol.Bind(defs).Defs() {
		switch {
		case d.Exposure == protocol.ExposureDeferred:
			deferred = append(deferred, d)
		default:
			declared = append(declared, d)
		}
	}
	if len(declared) > 0 {
		b.WriteString("\n\nTools:\n```ts\n")
		b.WriteString(e.Options.withDefaults().declarations(declared, e.Namespaces))
		b.WriteString("```")
	}
	if len(deferred) > 0 {
		b.WriteString("\n\n")
		b.WriteString(e.deferredGuidance(deferred))
	}
	return b.String()
}

// deferredGuidance says how many deferred tools exist, in which
// namespaces, and how to find them.
func (e ExecOptions) deferredGuidance(deferred []protocol.ToolDef) string {
	var order []string
	count := map[string]int{}
	for _, d := range deferred {
		ns := d.Namespace
		if protocol.IsDefaultNamespace(ns) {
			ns = protocol.DefaultNamespace
		}
		if count[ns] == 0 {
			order = append(order, ns)
		}
		count[ns]++
	}
	var b strings.Builder
	n := len(deferred)
	b.WriteString(strconv.Itoa(n))
	if n == 1 {
		b.WriteString(" more tool is callable but not declared above. Find it")
	} else {
		b.WriteString(" more tools are callable but not declared above. Find them")
	}
	b.WriteString(" inside a cell with `searchTools(\"what you need\")` or by filtering `ALL_TOOLS`, read `declaration`, then call `tools[name](...)`. By namespace:")
	for _, ns := range order {
		b.WriteString("\n- ")
		b.WriteString(ns)
		b.WriteString(" (")
		b.WriteString(strconv.Itoa(count[ns]))
		b.WriteString(")")
		if desc := strings.Join(strings.Fields(capRunes(e.Namespaces[ns], 200)), " "); desc != "" {
			b.WriteString(": ")
			b.WriteString(desc)
		}
	}
	return b.String()
}

// duration renders milliseconds for a person: "10 s", "1.5 s", "250 ms".
func duration(ms uint64) string {
	switch {
	case ms < 1000:
		return strconv.FormatUint(ms, 10) + " ms"
	case ms%1000 == 0:
		return strconv.FormatUint(ms/1000, 10) + " s"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s"
}

// RunningPrefix starts the first line of the result of a cell that is
// still running, as render writes it and as the wait tool's description
// and schema quote it: "Script running with cell ID c3 · 10.0 s …".
const RunningPrefix = "Script running with cell ID "

// DefaultWaitMS is how long the model-facing wait blocks when the model
// gives no yield_time_ms: until the cell ends, which the default wall
// limit bounds at 5 minutes. A model pays a turn for every answer, so
// wait does not return early on its own.
const DefaultWaitMS = protocol.DefaultWallTimeMS

// waitDescription is the description of the wait tool.
const waitDescription = "Wait on an `exec` cell still running: its result starts with \"" + RunningPrefix + "<id>\"; pass that id as `cell_id`.\n" +
	"- Blocks until the cell finishes or calls `yield_control()`, or `yield_time_ms` passes (default %WAIT%), and returns what is new since the last result; `wake_on_output: true` also returns on new output or `notify`.\n" +
	"- Still running: call `wait` again. `terminate: true` stops the cell."

// PragmaLine is an example of the first-line pragma a cell sets its exec
// yield time (and output budget) with (protocol.PragmaPrefix).
const PragmaLine = protocol.PragmaPrefix + ` {"yield_time_ms": 60000}`

// WaitDescription is the description of the model-facing `wait` tool. It
// names the parameters cell_id, yield_time_ms, wake_on_output and
// terminate.
func WaitDescription() string {
	return strings.ReplaceAll(waitDescription, "%WAIT%", duration(DefaultWaitMS))
}

// stdlibSummary names, for the model, what a script has beyond ES2022 and
// what it does not have: the standard library of jsbindings/stdlib (and
// the host's timers, performance and crypto). It lives here, not there,
// so that a parent does not embed the bundle.
const stdlibSummary = "Beyond ES2022 you have: the ES2023-ES2026 built-ins (toSorted/toReversed/toSpliced/with, Object.groupBy, Map.groupBy, " +
	"Promise.withResolvers/try, Array.fromAsync, Set union/intersection/difference/..., Iterator helpers, " +
	"Uint8Array toBase64/fromBase64/toHex/fromHex, RegExp.escape), atob/btoa, TextEncoder/TextDecoder, URL/URLSearchParams, " +
	"structuredClone, DOMException, setInterval/clearInterval, performance.now(), crypto.getRandomValues/randomUUID. " +
	"Not available: fetch or other network, require/import, process, Buffer, file system, crypto.subtle."
