// Package hostile runs scripts written to break the host through the built
// binary's three front doors: `run --json`, the stdio protocol (a frame
// client of its own that decodes every frame the host sends) and the
// bridge. Each case must end in its documented status within its limits,
// the parent must never hang, and the next cell must run (issue #18).
package hostile

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// hostileCase is one script and what it must end in.
type hostileCase struct {
	name   string
	script string
	lang   protocol.Language // "" is JavaScript
	tools  []string          // bound tools; each answers with its input (run: {"tool": name})
	limits *protocol.Limits  // the cell's limits, e.g. a short wall time
	// want is the status; wantError the error's name ("" = not checked).
	want      protocol.Status
	wantError string
	// also, when set, checks more of the result.
	also func(t *testing.T, res *protocol.CellResult, notes []string)
	// then, when set, is the next cell and the text its last item must be
	// (in a session: run mode skips it); else the next cell is "return 1 + 1".
	then, thenWant string
	// restart kills the host before the next cell (the session and its
	// store must be restored on the new one).
	restart bool
	// session marks cases that need cells sharing a session.
	session bool
}

// wall is a short wall-time limit for the cases that must time out.
var wall = &protocol.Limits{WallTimeMS: 700}

// budgetBytes is the default output budget (10,000 tokens at 4 bytes
// each) and budgetSlack what the truncation notes may add to it.
const (
	budgetBytes = 4 * 10_000
	budgetSlack = 4 << 10
)

var cases = []hostileCase{
	// Text that is not UTF-8: lone surrogates everywhere a script's text leaves V8.
	{name: "lone surrogate returned", script: `return "😀".slice(0, 1)`, want: protocol.StatusCompleted,
		also: lastText("\uFFFD")},
	{name: "lone surrogates in output", script: `console.log("a\ud800b"); text("\udc00"); console.error("\ud83d"); return ["\ud800"]`,
		want: protocol.StatusCompleted},
	{name: "lone surrogate in a thrown message", script: `throw new Error("bad \ud800 news")`, want: protocol.StatusFailed, wantError: "Error",
		also: func(t *testing.T, res *protocol.CellResult, _ []string) {
			assert.Contains(t, res.Error.Message, "bad \uFFFD news")
		}},
	{name: "lone surrogate in an error name and stack", script: `const e = new Error("m"); e.name = "N\udc00"; e.stack = "\ud800"; throw e`,
		want: protocol.StatusFailed},
	{name: "lone surrogate in notify", script: `notify("x\ud800y"); return 1`, want: protocol.StatusCompleted},
	{name: "lone surrogate in a store key and value", script: `store("k\ud800", "v\udc00"); return load("k\ud800")`,
		want: protocol.StatusCompleted, session: true, restart: true,
		then: `return typeof load("k\ud800")`, thenWant: "string"},
	{name: "lone surrogate in a tool input", script: `return (await tools.echo({s: "\ud800"})).s === undefined`, tools: []string{"echo"},
		want: protocol.StatusCompleted},
	{name: "lone surrogate in an image url", script: `image("data:image/png;base64,\ud800"); return 1`, want: protocol.StatusCompleted},

	// Counts and sizes past what one frame may carry.
	{name: "38000 console.logs then return", script: `for (let i = 0; i < 38000; i++) console.log(i % 10); return 1`,
		want: protocol.StatusCompleted, also: truncatedKeeping("1")},
	{name: "200000 empty texts", script: `for (let i = 0; i < 200000; i++) text(""); return "end"`,
		want: protocol.StatusCompleted, also: lastText("end")},
	{name: "one 10 MB log line", script: `console.log("x".repeat(1e7)); return "end"`, want: protocol.StatusCompleted,
		also: truncatedKeeping("end")},
	{name: "a 10 MB return value", script: `return "y".repeat(1e7)`, want: protocol.StatusCompleted},
	{name: "image data url of 9e5 bytes", script: `image('data:image/png;base64,' + 'A'.repeat(9e5)); return "end"`,
		want: protocol.StatusCompleted, also: lastText("end")},
	{name: "text data url of 9e5 bytes", script: `try { image('data:text/plain,' + 'A'.repeat(9e5)) } catch (e) {} return "end"`,
		want: protocol.StatusCompleted, also: lastText("end")},
	{name: "large notify texts", script: `for (let i = 0; i < 200; i++) notify("n".repeat(1e6)); return 1`,
		want: protocol.StatusCompleted, also: func(t *testing.T, _ *protocol.CellResult, notes []string) {
			total := 0
			for _, n := range notes {
				total += len(n)
			}
			assert.Less(t, total, 1<<20, "200 MB of notify texts must be capped per text and per cell")
		}},
	{name: "huge error message", script: `throw new Error("E".repeat(5e6))`, want: protocol.StatusFailed, wantError: "Error"},
	{name: "huge error stack", script: `Error.stackTraceLimit = Infinity; const f = (n) => { if (!n) throw new Error("deep"); return f(n - 1) }; f(5000)`,
		want: protocol.StatusFailed, wantError: "Error"},
	{name: "huge error name", script: `const e = new Error("m"); e.name = "N".repeat(3e6); throw e`, want: protocol.StatusFailed},
	{name: "100000 store keys", script: `for (let i = 0; i < 1e5; i++) store("key" + i, i); return 1`,
		want: protocol.StatusFailed, wantError: "RangeError", session: true, restart: true},

	// Stores.
	{name: "empty store key", script: `store("", 1); return 1`, want: protocol.StatusFailed, wantError: "TypeError"},
	{name: "store then exit keeps the write", script: `store("k", 42); exit();`, want: protocol.StatusCompleted,
		session: true, then: `return load("k")`, thenWant: "42"},
	{name: "a 5 MB store value", script: `store("big", "x".repeat(5e6)); return 1`, want: protocol.StatusFailed, wantError: "RangeError",
		session: true, restart: true},
	{name: "second of two 3 MB stores", script: `store("a", "x".repeat(3e6)); store("b", "x".repeat(3e6)); return 1`,
		want: protocol.StatusFailed, wantError: "RangeError", session: true, restart: true,
		then: `return [load("a") === undefined ? 0 : load("a").length, load("b") === undefined].join()`, thenWant: "3000000,true"},
	{name: "store with JSON.stringify replaced", script: `JSON.stringify = () => "{not json"; store("j", {a: 1}); return 1`,
		want: protocol.StatusCompleted, session: true, restart: true, then: `return load("j").a`, thenWant: "1"},
	{name: "store with JSON deleted", script: `globalThis.JSON = undefined; store("j2", [1]); return 1`,
		want: protocol.StatusCompleted, session: true, then: `return load("j2")[0]`, thenWant: "1"},
	{name: "store of a value whose toJSON lies", script: `store("t", {toJSON() { return () => 1 }}); return 1`,
		want: protocol.StatusFailed, wantError: "TypeError", session: true, then: `return String(load("t"))`, thenWant: "undefined"},
	{name: "store of a Map with a hostile iterator", script: `Map.prototype[Symbol.iterator] = function* () { yield 1; yield "x"; };
Map.prototype.entries = Map.prototype[Symbol.iterator];
try { store("m", new Map([["a", 1]])) } catch (e) { if (!(e instanceof TypeError)) throw e }
return 1`, want: protocol.StatusCompleted, session: true},
	{name: "Object.prototype.toJSON set", script: `Object.prototype.toJSON = function () { return "\ud800" + this }; store("o", {a: 1}); return {b: 2}`,
		want: protocol.StatusCompleted, session: true},

	// Stops that V8 does not honour.
	{name: "exit inside a builtin that never returns", script: `Array.prototype.includes.call({length: 1e12, get 0() { exit(); return 0; }}, 1)`,
		wantError: protocol.ErrorNameStuck, session: true},

	// Inputs that crash parsers and host functions.
	{name: "300000 nested parens in TypeScript", script: strings.Repeat("(", 300000) + "1" + strings.Repeat(")", 300000),
		lang: protocol.LangTS, want: protocol.StatusFailed, wantError: "SyntaxError"},
	{name: "300000 nested brackets in TypeScript types", script: "let x: " + strings.Repeat("Array<", 100000) + "number" + strings.Repeat(">", 100000) + " = []; return 1",
		lang: protocol.LangTS}, // any status: the host must not crash
	{name: "searchTools of a 5e7-char query", script: `try { await searchTools('alpha beta '.repeat(5e6)) } catch (e) {} return "end"`,
		want: protocol.StatusCompleted, also: lastText("end")},

	// Loops inside the formatting of results, errors and rejections.
	{name: "toJSON loop in the returned value", script: `return {toJSON() { for (;;) {} }}`, limits: wall, want: protocol.StatusTimedOut},
	{name: "message getter loop in a thrown value", script: `throw {get message() { for (;;) {} }}`, limits: wall, want: protocol.StatusTimedOut},
	{name: "stack getter loop in a thrown Error", script: `const e = new Error("x"); Object.defineProperty(e, "stack", {get() { for (;;) {} }}); throw e`,
		limits: wall, want: protocol.StatusTimedOut},
	{name: "Proxy trap loop in a rejection", script: `Promise.reject(new Proxy({}, {get() { for (;;) {} }})); await new Promise(r => setTimeout(r, 10))`,
		limits: wall, want: protocol.StatusTimedOut},
	{name: "getter loop in a console.log", script: `console.log({get x() { for (;;) {} }}); return 1`,
		limits: wall, want: protocol.StatusTimedOut},

	// Tool identifiers that collide with JavaScript's own.
	{name: "tools named __proto__ constructor toJSON then", tools: []string{"__proto__", "constructor", "toJSON", "then", "hasOwnProperty", "echo"},
		script: `const out = [];
for (const n of ["__proto__", "constructor", "toJSON", "then", "hasOwnProperty", "echo"]) out.push(typeof tools[n]);
await tools.echo({});
return out.join()`, want: protocol.StatusCompleted, also: lastText("function,function,function,function,function,function")},
	{name: "no internal function reachable", script: `return Object.getOwnPropertyNames(globalThis).filter(n => n.startsWith("__cm")).join() || "none"`,
		want: protocol.StatusCompleted, also: lastText("none")},

	// Limits.
	{name: "heap bomb", script: `const a = []; for (;;) a.push(new Array(1e6).fill(1.5))`, want: protocol.StatusOutOfMemory},
	{name: "infinite loop", script: `for (;;) {}`, limits: wall, want: protocol.StatusTimedOut},
	{name: "infinite loop that catches", script: `for (;;) { try { for (;;) {} } catch (e) {} finally { continue } }`, limits: wall,
		want: protocol.StatusTimedOut},
	{name: "unhandled rejection", script: `Promise.reject(new TypeError("nobody catches me")); await new Promise(r => setTimeout(r, 50)); return 1`,
		want: protocol.StatusFailed, wantError: "TypeError"},
	{name: "thrown symbol", script: `throw Symbol("s")`, want: protocol.StatusFailed},
	{name: "self-referencing error cause", script: `const e = new Error("loop"); e.cause = e; throw e`, want: protocol.StatusFailed, wantError: "Error"},
	{name: "cyclic return value", script: `const a = {}; a.a = a; return a`, want: protocol.StatusCompleted},
	{name: "100000 timers", script: `for (let i = 0; i < 1e5; i++) setTimeout(() => {}, 0); return "end"`, want: protocol.StatusCompleted,
		also: lastText("end")},
	{name: "globals overwritten for the next cell", script: `JSON.stringify = () => { throw new Error("x") }; String.prototype.slice = null; Object.prototype.toString = null; return 1`,
		want: protocol.StatusCompleted, session: true, then: `return {ok: "2"}.ok`, thenWant: "2"},
}

// lastText checks the last item is text want (the return value is always kept).
func lastText(want string) func(t *testing.T, res *protocol.CellResult, _ []string) {
	return func(t *testing.T, res *protocol.CellResult, _ []string) {
		require.NotEmpty(t, res.Items)
		assert.Equal(t, want, res.Items[len(res.Items)-1].Text)
	}
}

// truncatedKeeping checks the budget cut the output and kept the return value.
func truncatedKeeping(want string) func(t *testing.T, res *protocol.CellResult, notes []string) {
	return func(t *testing.T, res *protocol.CellResult, notes []string) {
		// run --json prints no truncated flag: the note says it.
		note := false
		for _, it := range res.Items {
			note = note || strings.Contains(it.Text, "truncated")
		}
		assert.True(t, res.Truncated || note, "the output was over budget")
		lastText(want)(t, res, notes)
	}
}

// outputBytes is what a result carries of script output: every item, the
// error's name, message and stack.
func outputBytes(res *protocol.CellResult) int {
	n := 0
	for _, it := range res.Items {
		n += len(it.Text) + len(it.ImageURL)
	}
	if e := res.Error; e != nil {
		n += len(e.Name) + len(e.Message) + len(e.Stack)
	}
	return n
}

func runCases(t *testing.T, d driver) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d.newSession(t, fmt.Sprintf("case%d", i))
			res, notes := d.exec(t, cell{source: c.script, lang: c.lang, tools: c.tools, limits: c.limits})
			if c.want != "" {
				assert.Equal(t, c.want, res.Status, "error: %+v", res.Error)
			}
			if c.wantError != "" {
				if assert.NotNil(t, res.Error, "status %s", res.Status) {
					assert.Equal(t, c.wantError, res.Error.Name, "message: %.300s", res.Error.Message)
				}
			}
			assert.LessOrEqual(t, outputBytes(res), budgetBytes+budgetSlack, "the output budget covers everything a cell emits")
			for _, it := range res.Items {
				assert.True(t, utf8.ValidString(it.Text), "item text is valid UTF-8")
			}
			if c.also != nil {
				c.also(t, res, notes)
			}
			if c.restart {
				d.restart(t)
			}
			next, want := c.then, c.thenWant
			if next == "" || !d.sessions() {
				next, want = "return 1 + 1", "2"
			}
			res, _ = d.exec(t, cell{source: next})
			require.Equal(t, protocol.StatusCompleted, res.Status, "the next cell must run: %+v", res.Error)
			lastText(want)(t, res, nil)
		})
	}
}

// TestHostileScriptsThroughRun runs every case as `codemode-host run --json`.
func TestHostileScriptsThroughRun(t *testing.T) {
	t.Parallel()
	runCases(t, &runDriver{dir: t.TempDir()})
}

// TestHostileScriptsThroughStdio runs every case in one session of a
// `codemode-host stdio` host, decoding every frame it sends.
func TestHostileScriptsThroughStdio(t *testing.T) {
	t.Parallel()
	runCases(t, newStdioDriver(t))
}

// TestHostileScriptsThroughBridge runs every case in one bridge session.
func TestHostileScriptsThroughBridge(t *testing.T) {
	t.Parallel()
	runCases(t, newBridgeDriver(t))
}

// TestSearchToolsOfAHugeQueryStaysWithinMemory checks a host function
// bounds its own input: the host's peak RSS stays far from the 900 MB the
// unbounded query took.
func TestSearchToolsOfAHugeQueryStaysWithinMemory(t *testing.T) {
	d := newStdioDriver(t)
	res, _ := d.exec(t, cell{source: `try { await searchTools('alpha beta '.repeat(5e6)) } catch (e) {} return "end"`})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	if rss := d.peakRSS(); rss != 0 {
		assert.Less(t, rss, uint64(600<<20), "host peak RSS")
	}
}
