package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/jsbindings"
	"github.com/codemode-host/codemode-host/protocol"
)

// The script's side of issue #18: what crosses from the bindings into Go
// is well-formed and bounded, store writes cannot be subverted or lost,
// and tool names cannot break the tools object.

func TestStringsLeaveV8WellFormed(t *testing.T) {
	rt := newRuntime(t)
	var notes []string
	res := runReq(t, rt, CellRequest{Events: &eventFuncs{notify: func(s string) { notes = append(notes, s) }}, Source: `
const lone = "😀".slice(0, 1);
text(lone);
console.log("a" + lone + "b");
notify(lone + "!");
store(lone, lone);
const back = await tools.apply(lone);
text(back === lone);
return lone + "z";`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"\uFFFD", "a\uFFFDb", "true", "\uFFFDz"}, texts(res))
	assert.Equal(t, []string{"\uFFFD!"}, notes)
	require.Len(t, res.StoreWrites, 1)
	for k, v := range res.StoreWrites {
		assert.Equal(t, "\uFFFD", k)
		assert.True(t, utf8.Valid(v) && protocol.ValidJSON(v), "%q", v)
	}

	res = runReq(t, rt, CellRequest{Source: `const e = new Error("x" + "😀".slice(1)); e.name = "😀".slice(0, 1); throw e;`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "\uFFFD", res.Error.Name)
	assert.Equal(t, "x\uFFFD", res.Error.Message)
	assert.True(t, utf8.ValidString(res.Error.Stack))
}

func TestStoreWritesBeforeExitAreKept(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `store("k", 42); exit(); store("after", 1);`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, map[string]json.RawMessage{"k": json.RawMessage(`42`)}, res.StoreWrites)

	res = runReq(t, rt, CellRequest{Source: `store("k", 1); await new Promise(r => setTimeout(r, 1)); store("k", 2); exit();`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, map[string]json.RawMessage{"k": json.RawMessage(`2`)}, res.StoreWrites)
}

func TestStoreKeysWithLoneSurrogatesLoadUnderTheKeyGoKeeps(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `const k = "k" + "😀".slice(0, 1);
store(k, 1);
return [load(k), load("k\uFFFD")];`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"[1,1]"}, texts(res), "the raw key and its well-formed form name one entry")
	assert.Equal(t, map[string]json.RawMessage{"k\uFFFD": json.RawMessage(`1`)}, res.StoreWrites)

	res = runReq(t, rt, CellRequest{Store: res.StoreWrites, Source: `return load("k" + "😀".slice(0, 1));`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"1"}, texts(res), "a later cell finds it by the key the script used")
}

func TestStoreEmptyKeyIsTypeError(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `store("", 1)`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "TypeError", res.Error.Name)
	assert.Equal(t, "store: the key must be a non-empty string", res.Error.Message)
	assert.Empty(t, res.StoreWrites)
}

// TestStoreCommitsOnlyTheValuesJSON: whatever built-ins the script
// replaces, before or after it stores, the write is the JSON of the value
// at the time of the store.
func TestStoreCommitsOnlyTheValuesJSON(t *testing.T) {
	rt := newRuntime(t)
	overrides := map[string]string{
		"Object.fromEntries":            `Object.fromEntries = () => ({k: "forged"});`,
		"JSON.stringify":                `JSON.stringify = () => "{not json";`,
		"JSON.parse":                    `JSON.parse = () => ({k: 0});`,
		"Map iterator next":             `Object.getPrototypeOf(new Map().entries()).next = () => ({done: false, value: ["k", "{bad"]});`,
		"Map.prototype":                 `for (const m of ["get", "set", "has", "entries", "forEach"]) Map.prototype[m] = () => { throw new Error("m") };`,
		"Array.prototype":               `for (const m of ["push", "pop", "join", "map", "includes"]) Array.prototype[m] = () => "x"; Array.prototype[0] = "a";`,
		"Reflect.apply":                 `Reflect.apply = () => "{bad";`,
		"Function.prototype.call":       `Function.prototype.call = Function.prototype.apply = () => "{bad";`,
		"String.prototype":              `String.prototype.slice = String.prototype.charCodeAt = () => 0; String.prototype.toJSON = () => 1;`,
		"Object.prototype.toJSON after": `Object.prototype.toJSON = () => undefined;`,
	}
	for name, o := range overrides {
		for _, order := range []string{"before", "after"} {
			src := `store("k", {a: [1, "two", {b: null}]});` + o
			if order == "before" && !strings.HasSuffix(name, "after") {
				src = o + `store("k", {a: [1, "two", {b: null}]});`
			}
			res := runReq(t, rt, CellRequest{Source: src + ` exit();`})
			require.Equal(t, protocol.StatusCompleted, res.Status, "%s %s: %+v", name, order, res.Error)
			require.Len(t, res.StoreWrites, 1, "%s %s", name, order)
			assert.JSONEq(t, `{"a":[1,"two",{"b":null}]}`, string(res.StoreWrites["k"]), "%s %s", name, order)
		}
	}

	// The value's own JSON is what it commits, and load sees the same.
	res := runReq(t, rt, CellRequest{Source: `
Object.prototype.toJSON = function () { return {own: true}; };
store("k", {a: 1});
return JSON.stringify(load("k"));`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.JSONEq(t, `{"own":true}`, string(res.StoreWrites["k"]))
}

func TestStoreLimitCountsTheSnapshotAndTheCellsWrites(t *testing.T) {
	rt := newRuntime(t)
	snap := map[string]json.RawMessage{"old": json.RawMessage(`"` + strings.Repeat("o", 300) + `"`)}
	snapCost := protocol.StoreCost("old", snap["old"]) // 433
	lim := protocol.Limits{StoreBytes: 1000}
	// "v" + 400-byte string: 1 + 402 + 128 = 531; with the snapshot 964.
	res := runReq(t, rt, CellRequest{Store: snap, Limits: lim, Source: `
const big = "x".repeat(400);
store("v", big);
store("v", big);  // replacing a key replaces its cost
store("old", 1);  // and a snapshot key's
store("w", big);  // 531 + 132 ("old": 1) + 531 = 1194
`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Equal(t, `store: storing "w" would make the session's store 1194 bytes, over its limit of 1000 bytes (store_bytes); store less, or overwrite keys you no longer need with a small value`, res.Error.Message)
	assert.Equal(t, 964, snapCost+531)
	assert.Equal(t, map[string]json.RawMessage{"v": json.RawMessage(`"` + strings.Repeat("x", 400) + `"`), "old": json.RawMessage(`1`)}, res.StoreWrites,
		"the refused write is not kept; the others are")

	res = runReq(t, rt, CellRequest{Limits: lim, Source: `store("huge", "x".repeat(5e6))`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Contains(t, res.Error.Message, `store: storing "huge" would make the session's store more than 1000 bytes, over its limit of 1000 bytes (store_bytes)`)

	res = runReq(t, rt, CellRequest{Limits: lim, Source: `store("k".repeat(5e6))`})
	require.Equal(t, protocol.StatusFailed, res.Status, "a huge key is refused before it crosses, a deletion too")
	assert.Equal(t, "RangeError", res.Error.Name)
}

// Deleting keys cannot grow what the cell records: only deletions of keys
// the session held are recorded; a key written and deleted in the cell,
// or never held, leaves nothing.
func TestStoreDeletionsAreRecordedOnlyForKeysTheSessionHeld(t *testing.T) {
	rt := newRuntime(t)
	snap := map[string]json.RawMessage{"old": json.RawMessage(`1`)}
	res := runReq(t, rt, CellRequest{Store: snap, Source: `
for (let i = 0; i < 100000; i++) store("never" + i);
store("mine", 2); store("mine");
store("old");
return [load("old"), load("mine")];`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, map[string]json.RawMessage{"old": json.RawMessage(``)}, res.StoreWrites)
}

// TestToolsNamedLikeObjectBuiltinsAreJustTools: each is callable, listed,
// and formatting the tools object calls none of them.
func TestToolsNamedLikeObjectBuiltinsAreJustTools(t *testing.T) {
	names := []string{"__proto__", "constructor", "toJSON", "then", "hasOwnProperty", "toString", "valueOf"}
	var defs []protocol.ToolDef
	for _, n := range names {
		defs = append(defs, protocol.ToolDef{Name: n})
	}
	defs = append(defs, protocol.ToolDef{Namespace: "x", Name: "free", Kind: protocol.KindFreeform})
	rt := newRuntime(t)
	caller := &echoCaller{}
	res := runReq(t, rt, CellRequest{Tools: defs, Caller: caller, Source: `
const out = [];
for (const n of ["__proto__", "constructor", "toJSON", "then", "hasOwnProperty", "toString", "valueOf"]) {
  out.push(n + "=" + (await tools[n]({n})).n);
}
out.push(Object.getPrototypeOf(tools) === null, ALL_TOOLS.map(t => t.name).join());
text(tools);
console.log({tools}, [tools]);
notify(tools);
try { await tools; } catch (e) { out.push(e.name); }
return out;`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.EqualValues(t, 7, caller.calls.Load(), "only the seven calls the script made")
	all := texts(res)
	require.Len(t, all, 3)
	assert.Contains(t, all[0], `"toJSON":"[Function: toJSON]"`)
	assert.Contains(t, all[0], `"__proto__":"[Function: __proto__]"`)
	assert.Equal(t, `["__proto__=__proto__","constructor=constructor","toJSON=toJSON","then=then","hasOwnProperty=hasOwnProperty","toString=toString","valueOf=valueOf",true,"__proto__,constructor,toJSON,then,hasOwnProperty,toString,valueOf,x__free","TypeError"]`, all[2])

	// Returning the tools object with a tool named then fails the cell
	// at once with a message that says why, calling no tool.
	res = runReq(t, rt, CellRequest{Tools: defs, Caller: caller, Source: `return tools`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "TypeError", res.Error.Name)
	assert.Contains(t, res.Error.Message, "the tools object cannot be awaited or returned as a value: it has a tool named then")
	assert.EqualValues(t, 7, caller.calls.Load())

	// Without one it is an ordinary value.
	res = runReq(t, rt, CellRequest{Tools: defs[2:3], Caller: caller, Source: `return tools`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`{"toJSON":"[Function: toJSON]"}`}, texts(res))
	assert.EqualValues(t, 7, caller.calls.Load())
}

func TestSearchQueriesAreBounded(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Source: `searchTools('alpha beta '.repeat(5e6))`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Equal(t, "searchTools: the query is 55000000 characters; the limit is 1000. Search with a few keywords", res.Error.Message)

	res = runReq(t, rt, CellRequest{Source: `return [searchTools("echo " + "x".repeat(990)).length, searchTools("echo", 1e12).length]`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"[1,1]"}, texts(res))
}

func TestSearchToolsCutsALongQuery(t *testing.T) {
	idx := toolIndex([]protocol.ToolDef{{Name: "echo"}, {Name: "zulu"}})
	q := strings.Repeat("echo ", maxSearchQueryBytes/5) + "zulu"
	assert.Equal(t, "[0]", searchTools(idx, q, 5), "the words past the cap are not searched")
}

func TestImagesLargerThanTheOutputLimitAreRangeErrors(t *testing.T) {
	rt := newRuntime(t)
	res := runReq(t, rt, CellRequest{Limits: protocol.Limits{OutputBytes: 1000}, Source: `
const errs = [];
for (const url of ["data:text/plain," + "A".repeat(9e5), "data:text/plain," + "é".repeat(600)]) {
  try { image(url); } catch (e) { errs.push(e.name + ": " + e.message); }
}
image("data:image/png;base64," + "A".repeat(100));
return errs.join("\n");`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.Len(t, res.Items, 2, "%+v", res.Items)
	assert.Equal(t, protocol.ItemImage, res.Items[0].Type, "%+v", res.Items)
	assert.Equal(t, "RangeError: image: the data URL is at least 900016 bytes, more than the cell's output limit of 1000 bytes; send a smaller image (scale it down or compress it)\n"+
		"RangeError: image: the data URL is 1216 bytes, more than the cell's output limit of 1000 bytes; send a smaller image (scale it down or compress it)",
		res.Items[1].Text)
}

func TestLongTextIsCutBeforeItCrosses(t *testing.T) {
	rt := newRuntime(t)
	lim := protocol.Limits{OutputBytes: 1000}
	crossed := func(src string) (protocol.Item, Result) {
		var items []protocol.Item
		res := runReq(t, rt, CellRequest{Limits: lim, Source: src, Events: &eventFuncs{output: func(it protocol.Item) { items = append(items, it) }}})
		require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		require.Len(t, items, 1)
		assert.LessOrEqual(t, len(items[0].Text), 1000)
		assert.True(t, utf8.ValidString(items[0].Text))
		assert.NotContains(t, items[0].Text, "\uFFFD", "no surrogate pair is split")
		return items[0], res
	}
	a, _ := crossed(`text("<" + "a".repeat(5e6) + ">")`)
	assert.True(t, strings.HasPrefix(a.Text, "<aaa") && strings.HasSuffix(a.Text, "aaa>"), a.Text)
	assert.Regexp(t, `\n\[\.\.\. 499\d{4} characters cut: this text was longer than the cell's output limit of 1000 bytes \.\.\.\]\n`, a.Text)
	b, _ := crossed(`console.log("😀".repeat(1e5) + "!")`)
	assert.True(t, strings.HasPrefix(b.Text, "😀😀") && strings.HasSuffix(b.Text, "😀!"), b.Text)

	res := runReq(t, rt, CellRequest{Limits: lim, Source: `return "😀".repeat(1e5) + "!"`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	last := res.Items[len(res.Items)-1].Text
	assert.LessOrEqual(t, len(last), 1000)
	assert.True(t, strings.HasPrefix(last, "😀😀") && strings.HasSuffix(last, "😀!"), "the return value keeps both ends: %s", last)
}

func TestNotifyTextsAreBounded(t *testing.T) {
	rt := newRuntime(t)
	var notes []string
	res := runReq(t, rt, CellRequest{Events: &eventFuncs{notify: func(s string) { notes = append(notes, s) }}, Source: `notify("n".repeat(1e6))`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.Len(t, notes, 1)
	assert.LessOrEqual(t, len(notes[0]), jsbindings.NotifyTextBytes)
	assert.Contains(t, notes[0], "characters cut: a notification may be at most 4096 bytes")

	notes = nil
	res = runReq(t, rt, CellRequest{Limits: protocol.Limits{OutputTokens: 1000}, Events: &eventFuncs{notify: func(s string) { notes = append(notes, s) }},
		Source: `for (let i = 0; i < 3; i++) notify("x".repeat(1500))`})
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Equal(t, "notify: this cell's notifications would pass their limit of 4000 bytes in all (its output budget); notify less often, or with shorter texts", res.Error.Message)
	assert.Len(t, notes, 2)
}

func TestErrorTextsAreCutBeforeTheyCross(t *testing.T) {
	rt := newRuntime(t)
	for _, src := range []string{
		`throw new Error("m".repeat(1e6))`,
		`const e = new Error("short"); e.stack = "s".repeat(1e6); throw e`,
		`throw "t".repeat(1e6)`,
		`Promise.reject(new RangeError("r".repeat(1e6)))`,
	} {
		// An output budget that leaves the texts as they crossed.
		res := runReq(t, rt, CellRequest{Source: src, Limits: protocol.Limits{OutputTokens: 1 << 20, OutputBytes: 16 << 20}})
		require.Equal(t, protocol.StatusFailed, res.Status, src)
		assert.LessOrEqual(t, len(res.Error.Message), jsbindings.ErrorTextBytes+len("Uncaught (in promise) "), src)
		assert.LessOrEqual(t, len(res.Error.Stack), jsbindings.ErrorTextBytes, src)
		assert.Contains(t, res.Error.Message+res.Error.Stack, "characters cut: an error text may be at most 16384 bytes", src)
	}
}
