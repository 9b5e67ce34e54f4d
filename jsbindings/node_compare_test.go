package jsbindings_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// nodeCase is a script body run in a cell and in Node 20: what it prints
// with console.log, one line a call, then what it returns as JSON, must
// be the same. Cases print only primitives, which Node's console and ours
// print alike (objects are JSON here, util.inspect there).
type nodeCase struct {
	name string
	src  string
}

var nodeCases = []nodeCase{
	{name: "console.log format directives", src: `
console.log("%s is %d years, %i, %f %% %c done", "Bob", 42.5, 3.9, "1.5", "color: red", "extra");
console.log("100%"); console.log("%s", 5, "x"); console.log("%d%%", 50); console.log("a%", 1);
console.log("%x %s", 1); console.log("%s %s", "only"); console.log("%s|%s|%s", null, undefined, true);
console.log("%d %i %f", "abc", "42.9px", "x"); console.log("%s %d %i", 5n, 6n, 7n);
console.log("%s", Symbol("q")); console.log("%j", [1, "a"]); console.log("%", "%%", "%s");
console.log(5, "%s", "x"); console.log("end%s", ""); console.log("%s %d %i %f", -0, -0, -0.5, -0);
return null`},
	{name: "TextEncoder and TextDecoder members are enumerable", src: `
const keys = (o) => { const r = []; for (const k in o) r.push(k); return r.sort(); };
const d = Object.getOwnPropertyDescriptor(TextDecoder.prototype, "encoding");
return [keys(new TextDecoder()), keys(new TextEncoder()), d.enumerable, d.configurable, typeof d.get,
  Object.getOwnPropertyDescriptor(TextEncoder.prototype, "encodeInto").enumerable,
  Object.getOwnPropertyDescriptor(TextEncoder.prototype, "constructor").enumerable]`},
	{name: "URL parse failures say Invalid URL", src: `
const r = [];
for (const [s, base] of [["nope"], ["http://"], [""], ["http://a.com:99999"], ["http://[::1"], ["/p", "bad"]]) {
  try { new URL(s, base); r.push("parsed " + s); } catch (e) { r.push(e.name + ": " + e.message, e instanceof TypeError); }
}
try { new URL("http://a.com/").href = "x"; } catch (e) { r.push(e.name + ": " + e.message); }
return [r, URL.canParse("x"), URL.canParse("/a", "http://b.c")]`},
	{name: "structuredClone says what it could not clone", src: `
const r = [];
for (const v of [() => 1, function f(a) { return a; }, class A {}, { m() {} }, Symbol("s"), new WeakMap(), Promise.resolve(), { a: [() => 2] }]) {
  try { structuredClone(v); r.push("cloned"); } catch (e) { r.push([e.name, e.message, e.code, e instanceof DOMException]); }
}
return r`},
	{name: "URL static methods are enumerable", src: `
return ["canParse", "parse"].map((k) => { const d = Object.getOwnPropertyDescriptor(URL, k); return [k, d.enumerable, d.writable, d.configurable, d.value.length]; })`},
}

// nodeHarness runs the body (an async function's) and prints, as one JSON
// array, each console.log line and then {"v": result} or {"throws": name}.
const nodeHarness = `
async function runCase(src, logs) {
  let last;
  try {
    const v = await (async function () {}).constructor(src)();
    last = { v: v === undefined ? "<undefined>" : v };
  } catch (e) {
    last = { throws: e && e.name };
  }
  return JSON.stringify([...logs, JSON.stringify(last)]);
}
`

func runInNode(t *testing.T, src string) string {
	t.Helper()
	js, err := json.Marshal(src)
	require.NoError(t, err)
	script := nodeHarness + `const util = require("util"); const logs = [];
console.log = (...a) => { logs.push(util.format(...a)); };
runCase(` + string(js) + `, logs).then((s) => { process.stdout.write(s); process.exit(0); });`
	out, err := exec.Command("node", "-e", script).Output()
	require.NoError(t, err)
	return string(out)
}

// TestGlobalsMatchNode compares the cell's standard globals with Node 20
// on the cases above, through the real runtime and V8.
func TestGlobalsMatchNode(t *testing.T) {
	_, err := exec.LookPath("node")
	testhost.Need(t, "node (to compare the standard library with Node)", err)
	rt := runtime.New(runtime.Config{})
	t.Cleanup(rt.Close)
	for _, c := range nodeCases {
		t.Run(c.name, func(t *testing.T) {
			want := runInNode(t, c.src)
			js, err := json.Marshal(c.src)
			require.NoError(t, err)
			// The last item is the cell's return: runCase's own JSON, whose
			// console lines come from the items before it.
			res, err := rt.Run(context.Background(), runtime.CellRequest{
				Source: nodeHarness + "return await runCase(" + string(js) + ", [])",
			})
			require.NoError(t, err)
			require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
			require.NotEmpty(t, res.Items)
			var ret []string
			require.NoError(t, json.Unmarshal([]byte(res.Items[len(res.Items)-1].Text), &ret))
			lines := make([]string, 0, len(res.Items))
			for _, it := range res.Items[:len(res.Items)-1] {
				lines = append(lines, it.Text)
			}
			got, err := json.Marshal(append(lines, ret...))
			require.NoError(t, err)
			assert.JSONEq(t, want, string(got), "host vs node:\n%s", strings.Join(lines, "\n"))
		})
	}
}
