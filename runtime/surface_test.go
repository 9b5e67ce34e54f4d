package runtime

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func runReq(t *testing.T, rt *Runtime, req CellRequest) Result {
	t.Helper()
	if req.Caller == nil {
		req.Caller = &echoCaller{}
		if req.Tools == nil {
			req.Tools = testTools
		}
	}
	res, err := rt.Run(context.Background(), req)
	require.NoError(t, err)
	return res
}

func TestSearchToolsRanksBoundTools(t *testing.T) {
	rt := newRuntime(t)
	tools := []protocol.ToolDef{
		{Name: "create_issue", Description: "Open a new issue in a GitHub repository", Exposure: "deferred"},
		{Name: "send_message", Description: "Post a message to a Slack channel"},
		{Name: "list_events", Description: "List calendar events between two dates", Exposure: "code_mode_only"},
	}
	res := runReq(t, rt, CellRequest{Tools: tools, Caller: &echoCaller{}, Source: `
const hits = searchTools("post to slack channel");
const two = searchTools("calendar events", 1);
return [hits[0].name, hits[0] === ALL_TOOLS[1], two.length, two[0].name, ALL_TOOLS.length, typeof ALL_TOOLS[0].declaration];`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`["send_message",true,1,"list_events",3,"string"]`}, texts(res))

	res = runReq(t, rt, CellRequest{Source: `searchTools("")`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "TypeError", res.Error.Name)
}

func TestImage(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `
image("data:image/png;base64,AAAA");
image({image_url: "data:image/jpeg;base64,BBBB", detail: "LOW"});
image({type: "image", data: "CCCC", mimeType: "image/gif"}, "original");
const errs = [];
for (const args of [["https://example.com/x.png"], [42], ["data:image/png;base64,AA", "huge"], ["file.png"]]) {
  try { image(...args); } catch (e) { errs.push(e.name + ": " + e.message); }
}
return errs.join("\n");`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.Len(t, res.Items, 4)
	assert.Equal(t, protocol.Item{Type: "image", ImageURL: "data:image/png;base64,AAAA", Detail: "high"}, res.Items[0])
	assert.Equal(t, protocol.Item{Type: "image", ImageURL: "data:image/jpeg;base64,BBBB", Detail: "low"}, res.Items[1])
	assert.Equal(t, protocol.Item{Type: "image", ImageURL: "data:image/gif;base64,CCCC", Detail: "original"}, res.Items[2])
	errs := strings.Split(res.Items[3].Text, "\n")
	require.Len(t, errs, 4)
	assert.Contains(t, errs[0], "remote URLs are not supported")
	assert.Contains(t, errs[0], "data: URL")
	assert.Contains(t, errs[1], "got a number (42)")
	assert.Contains(t, errs[2], `detail must be one of auto, low, high, original; got "huge"`)
	assert.Contains(t, errs[3], "expects a data: URL")
}

func TestNotifyAndYield(t *testing.T) {
	rt := newRuntime(t)
	var notes []string
	yields := 0
	res := runReq(t, rt, CellRequest{
		Source: `notify("step 1"); text("a"); yield_control(); notify({done: 2}); try { notify("  ") } catch (e) { text(e.message) }`,
		Events: &eventFuncs{notify: func(s string) { notes = append(notes, s) }, yield: func() { yields++ }},
	})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"step 1", `{"done":2}`}, notes)
	assert.Equal(t, 1, yields)
	assert.Equal(t, []string{"a", "notify expects non-empty text"}, texts(res))

	res = runReq(t, rt, CellRequest{Source: `for (let i = 0; ; i++) notify("n")`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Contains(t, res.Error.Message, "limit of 1000 notifications")
}

func TestStoreAndLoad(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{
		Store: map[string]json.RawMessage{"seen": json.RawMessage(`{"n":1}`)},
		Source: `
const a = load("seen"); a.n = 99;
const fresh = load("seen").n;
store("count", 3);
store("obj", {list: [1, 2], when: "now"});
const copy = load("obj"); copy.list.push(3);
const errs = [];
for (const bad of [() => 1, 10n, Symbol("s")]) { // store(k, undefined) deletes k
  try { store("bad", bad); } catch (e) { errs.push(e.name); }
}
const cyc = {}; cyc.self = cyc;
try { store("cyc", cyc); } catch (e) { errs.push(e.message.slice(0, 30)); }
return [fresh, load("count"), load("obj").list.length, load("missing"), errs];`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[1,3,2,null,["TypeError","TypeError","TypeError","Unable to store \"cyc\": only JS"]]`}, texts(res))
	require.Len(t, res.StoreWrites, 2)
	assert.JSONEq(t, `3`, string(res.StoreWrites["count"]))
	assert.JSONEq(t, `{"list":[1,2],"when":"now"}`, string(res.StoreWrites["obj"]))

	res = runReq(t, rt, CellRequest{Source: `store("k", 1); throw new Error("x")`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Contains(t, res.StoreWrites, "k", "writes commit on script error too")
}

func TestMCPResultsLoseMeta(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `
const r = await tools.echo({content: [{type: "text", text: "hi"}], structuredContent: {a: 1}, _meta: {secret: 1}});
const plain = await tools.echo({_meta: 1});
return [r, plain];`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}},{"_meta":1}]`}, texts(res))
}

func TestTypeScript(t *testing.T) {
	rt := newRuntime(t)
	src := `interface Weather { city: string; temp: number }
enum Unit { C = "C", F = "F" }
function pick<T>(xs: T[], i: number): T { return xs[i]; }
const w: Weather = await tools.echo({ city: "Lisbon", temp: 21 }) as Weather;
type Pair = [string, number];
const p: Pair = [w.city, w.temp];
return ` + "`${pick(p, 0)} ${p[1]}${Unit.C}`" + `;`
	res := runReq(t, rt, CellRequest{Source: src, Language: protocol.LangTS, Origin: "cell.ts"})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"Lisbon 21C"}, texts(res))

	res = runReq(t, rt, CellRequest{Language: protocol.LangTS, Origin: "cell.ts", Source: `type Id = string;
interface Box<T> {
  value: T;
}

function open<T>(b: Box<T> | null): T {
  return b!.value;
}
const id: Id = "x";
open<Id>(null);`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "TypeError", res.Error.Name)
	assert.Equal(t, 7, res.Error.Line, res.Error.Stack)
	assert.Contains(t, res.Error.Stack, "cell.ts:7:")
	assert.Contains(t, res.Error.Stack, "cell.ts:10:")

	res = runReq(t, rt, CellRequest{Language: protocol.LangTS, Origin: "cell.ts", Source: "const a: number = 1;\nconst b: = 2;"})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "SyntaxError", res.Error.Name)
	assert.Equal(t, 2, res.Error.Line)
	assert.Equal(t, 10, res.Error.Column)

	res = runReq(t, rt, CellRequest{Language: protocol.LangTS, Source: `let x: number = 1; throw new Error("first line")`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, 1, res.Error.Line)
	assert.Equal(t, 26, res.Error.Column, "the column of new Error(...) after the type annotation")
}

func TestImportAndRequireSayWhatToDo(t *testing.T) {
	rt := newRuntime(t)
	for lang, src := range map[protocol.Language]string{protocol.LangJS: `import fs from "fs";`, protocol.LangTS: `import fs from "fs";\nfs.readFileSync("x");`} {
		res := runReq(t, rt, CellRequest{Source: src, Language: lang})
		require.Equal(t, protocol.StatusFailed, res.Status, lang)
		assert.Contains(t, res.Error.Message, "import is not supported in Code Mode", lang)
	}
	res := runReq(t, rt, CellRequest{Source: "\nconst fs = require('fs');"})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Contains(t, res.Error.Message, "require is not supported in Code Mode")
	assert.Equal(t, 2, res.Error.Line)
}

// TestGlobalScopeAllowList pins the script's global scope: standard
// ECMAScript globals, the web platform's that the standard library adds
// (jsbindings/stdlib), plus ours. A new global must be added here on
// purpose.
func TestGlobalScopeAllowList(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `return JSON.stringify(Object.getOwnPropertyNames(globalThis).sort())`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	var got []string
	require.NoError(t, json.Unmarshal([]byte(res.Items[0].Text), &got))
	ours := []string{"ALL_TOOLS", "ToolError", "clearInterval", "clearTimeout", "console", "crypto", "exit", "image",
		"load", "notify", "performance", "queueMicrotask", "searchTools", "setInterval", "setTimeout", "store", "text",
		"tools", "yield_control"}
	web := []string{"DOMException", "TextDecoder", "TextEncoder", "URL", "URLSearchParams", "atob", "btoa", "structuredClone"}
	standard := []string{"AggregateError", "Array", "ArrayBuffer", "BigInt", "BigInt64Array", "BigUint64Array",
		"Boolean", "DataView", "Date", "Error", "EvalError", "FinalizationRegistry", "Float32Array", "Float64Array",
		"Function", "Infinity", "Int16Array", "Int32Array", "Int8Array", "Intl", "Iterator", "JSON", "Map", "Math",
		"NaN", "Number", "Object", "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set",
		"String", "Symbol", "SyntaxError", "TypeError", "URIError", "Uint16Array", "Uint32Array", "Uint8Array",
		"Uint8ClampedArray", "WeakMap", "WeakRef", "WeakSet", "decodeURI", "decodeURIComponent", "encodeURI",
		"encodeURIComponent", "escape", "eval", "globalThis", "isFinite", "isNaN", "parseFloat", "parseInt",
		"undefined", "unescape"}
	want := append(append(append([]string{}, ours...), web...), standard...)
	sort.Strings(want)
	assert.Equal(t, want, got)
}

// TestNoInternalFunctionIsReachable walks everything reachable from the
// script's global scope (own properties, getters and setters, prototypes,
// whatever their keys) and pins the functions that are not ECMAScript's:
// the helpers a script is given and its tools, nothing the prelude keeps
// for itself.
func TestNoInternalFunctionIsReachable(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `
// The standard library loads on first use: load it all, so the walk sees
// its real functions rather than the stubs they replace.
void [[].toSorted(), new Int8Array(1).toSorted(), Object.groupBy([], String), new Set().union(new Set()), Iterator,
  new Uint8Array(1).toHex(), DOMException, atob, structuredClone, URL, TextEncoder];
const ours = new Set(["ALL_TOOLS", "ToolError", "clearInterval", "clearTimeout", "console", "crypto", "exit", "image",
  "load", "notify", "performance", "queueMicrotask", "searchTools", "setInterval", "setTimeout", "store", "text",
  "tools", "yield_control"]);
const std = new Set();
const seen = new Set([globalThis]);
const found = [];
function walk(v, path, record) {
  if ((typeof v !== "object" && typeof v !== "function") || v === null || seen.has(v)) return;
  seen.add(v);
  if (typeof v === "function") (record ? found.push(path) : std.add(v));
  for (const k of Reflect.ownKeys(v)) {
    let d;
    try { d = Reflect.getOwnPropertyDescriptor(v, k); } catch { continue; }
    const name = path + "." + String(k);
    if ("value" in d) walk(d.value, name, record);
    walk(d.get, name + "<get>", record);
    walk(d.set, name + "<set>", record);
  }
  walk(Reflect.getPrototypeOf(v), path + ".<proto>", record);
}
for (const k of Reflect.ownKeys(globalThis)) if (!ours.has(k)) walk(globalThis[k], String(k), false);
walk(Object.getPrototypeOf(globalThis), "<global proto>", false);
// Standard too, though no global names them: AsyncFunction and the generators.
for (const f of [async function () {}, function* () {}, async function* () {}]) walk(f, "<syntax>", false);
seen.clear();
seen.add(globalThis);
for (const f of std) seen.add(f);
for (const k of ours) walk(globalThis[k], k, true);
return found.sort();`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	var got []string
	require.NoError(t, json.Unmarshal([]byte(res.Items[0].Text), &got))
	want := []string{
		"ToolError", "clearInterval", "clearTimeout", "console.assert", "console.count", "console.countReset",
		"console.debug", "console.dir", "console.dirxml", "console.error", "console.group", "console.groupCollapsed",
		"console.groupEnd", "console.info", "console.log", "console.table", "console.time", "console.timeEnd",
		"console.timeLog", "console.warn", "crypto.getRandomValues", "crypto.randomUUID", "exit", "image", "load", "notify",
		"performance.now", "performance.timeOrigin<get>", "queueMicrotask", "searchTools", "setInterval", "setTimeout",
		"store", "text",
		"tools.apply", "tools.echo", "tools.fail", "tools.mcp__files__read_file", "tools.never", "yield_control",
	}
	sort.Strings(want)
	assert.Equal(t, want, got)
}

// TestRejectionHookIsOutOfReach: the hook the shim calls on unhandled
// rejections is no global, so a script can neither clear a real rejection
// nor fake one, and a global of its old name is never called.
func TestRejectionHookIsOutOfReach(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `
const p = Promise.reject(new Error("real"));
globalThis.__codemode_reject__ = () => { throw new Error("called"); };
text(typeof Object.getOwnPropertyDescriptor(globalThis, "__codemode_reject__").value);`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "Uncaught (in promise) real", res.Error.Message)

	res = runReq(t, rt, CellRequest{Source: `return typeof __codemode_reject__`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"undefined"}, texts(res))
}

// TestPreludeFramesHideTheirFunctions: a script that formats stack frames
// itself (Error.prepareStackTrace) or reads .caller from a function the
// prelude calls gets no internal function or receiver.
func TestPreludeFramesHideTheirFunctions(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `
const leaks = [];
Error.prepareStackTrace = (e, sites) => sites;
const probe = { toJSON: function toJSON() {
  if (toJSON.caller !== null) leaks.push("caller " + toJSON.caller.name);
  for (const s of new Error().stack) {
    if (s.getFunction() !== undefined && s.getFunction() !== probe.toJSON) leaks.push("function " + s.getFunctionName());
    if (s.getThis() !== undefined && s.getThis() !== probe) leaks.push("this of " + s.getFunctionName());
  }
  return 1;
} };
text(probe);
console.log(probe);
store("k", probe);
await tools.echo({probe});
return leaks;`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"1", "1", "[]"}, texts(res))
}
