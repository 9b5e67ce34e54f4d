package codexhost_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-host/codemode-host/internal/testhost"
)

// session is a v1 connection with one open session, for the tests that
// run single cells.
type session struct {
	t testing.TB
	p *peer
	n int // frames seen
}

func openSession(t testing.TB, env []string, open map[string]any) *session {
	t.Helper()
	return openSessionOn(t, startPeerEnv(t, env, testhost.Bin(t), "codex-host"), open)
}

// openSessionOn is openSession on a started host.
func openSessionOn(t testing.TB, p *peer, open map[string]any) *session {
	t.Helper()
	s := &session{t: t, p: p}
	s.send(map[string]any{"type": "connection/hello", "supportedVersions": []int{1}, "requiredCapabilities": []string{},
		"optionalCapabilities": []string{"session-cell-execution-resource-limits"}})
	s.next()
	req := map[string]any{"method": "session/open", "sessionId": "s"}
	for k, v := range open {
		req[k] = v
	}
	s.send(map[string]any{"type": "operation/request", "id": 1, "request": req})
	if f := s.next(); !strings.Contains(string(f), "session/ready") {
		t.Fatalf("open: %s", f)
	}
	return s
}

func (s *session) send(m any) {
	b, err := json.Marshal(m)
	if err != nil {
		s.t.Fatal(err)
	}
	s.p.sendBody(b)
}

// next returns the next frame from the host.
func (s *session) next() json.RawMessage {
	s.t.Helper()
	s.n++
	s.p.await(s.n)
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	if len(s.p.frames) < s.n {
		s.t.Fatalf("no frame %d from the host; stderr %s", s.n, s.p.stderr.String())
	}
	return s.p.frames[s.n-1]
}

// execute runs src as request id and returns the frame that answers
// it: an operation/response error, or its execute/initialResponse.
func (s *session) execute(id int, src string, yieldMS int) map[string]any {
	s.t.Helper()
	s.send(map[string]any{"type": "operation/request", "id": id, "request": map[string]any{"method": "session/execute", "sessionId": "s",
		"request": map[string]any{"tool_call_id": "c", "enabled_tools": []any{}, "source": src, "yield_time_ms": yieldMS}}})
	for {
		var f map[string]any
		if err := json.Unmarshal(s.next(), &f); err != nil {
			s.t.Fatal(err)
		}
		if f["id"] != float64(id) {
			continue
		}
		r := f["result"].(map[string]any)
		if f["type"] == "execute/initialResponse" || r["status"] == "error" {
			return f
		}
	}
}

// result returns the Result body of an initial response.
func result(t testing.TB, f map[string]any) map[string]any {
	t.Helper()
	r := f["result"].(map[string]any)
	v, ok := r["value"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", f)
	}
	res, ok := v["Result"].(map[string]any)
	if !ok {
		t.Fatalf("not a Result: %v", f)
	}
	return res
}

func texts(res map[string]any) []string {
	var out []string
	for _, it := range res["content_items"].([]any) {
		out = append(out, it.(map[string]any)["text"].(string))
	}
	return out
}

// TestCodexOnlyGlobals checks the globals Codex's host defines and our
// runtime does not: content, as_settled and stream_settled.
func TestCodexOnlyGlobals(t *testing.T) {
	s := openSession(t, nil, nil)
	res := result(t, s.execute(2, `content({type: "text", text: "a"}); content([{type: "text", text: "b"}, {type: "text", text: "c"}]);
try { content("d") } catch (e) { text(e) }
for await (const r of as_settled([new Promise(r => setTimeout(() => r(1), 20)), Promise.reject("x")])) text(JSON.stringify(r));
await stream_settled([Promise.resolve(2)], r => text("emit " + r.value));
text(JSON.stringify(as_settled([])));
try { await stream_settled([], 5) } catch (e) { text(e.name + ": " + e.message) }
text(typeof content + typeof as_settled + typeof stream_settled + typeof exit + typeof yield_control + typeof notify + typeof store + typeof load)`, 5000))
	want := []string{"a", "b", "c", "content expects one MCP ContentBlock", `{"index":1,"status":"rejected","reason":"x"}`,
		`{"index":0,"status":"fulfilled","value":1}`, "emit 2", "{}",
		"TypeError: stream_settled requires a callback", "functionfunctionfunctionfunctionfunctionfunctionfunctionfunction"}
	if got := texts(res); strings.Join(got, "|") != strings.Join(want, "|") || res["error_text"] != nil {
		t.Errorf("got %q (error_text %v), want %q", got, res["error_text"], want)
	}
	// A script may name its own variable content: the globals are
	// properties of globalThis, not declarations in its scope.
	res = result(t, s.execute(3, `const content = "mine"; text(content)`, 5000))
	if got := texts(res); len(got) != 1 || got[0] != "mine" {
		t.Errorf("shadowing content: %q %v", got, res["error_text"])
	}
	// The prelude shares line 1: columns there are the script's own.
	res = result(t, s.execute(4, `throw new Error("boom")`, 5000))
	if res["error_text"] != "Error: boom\n    at exec_main.mjs:1:7" {
		t.Errorf("error_text %q", res["error_text"])
	}
}

// TestOurLimitsApply checks the limits this host adds to Codex's v1:
// each is a deliberate difference from Codex's host, which has none of
// them (its cells yield on and on).
func TestOurLimitsApply(t *testing.T) {
	t.Run("WallAndCPU", func(t *testing.T) {
		s := openSession(t, []string{`CODEMODE_HOST_LIMITS={"wall_ms": 300, "cpu_ms": 300}`}, nil)
		res := result(t, s.execute(2, `text("spin"); while (true) {}`, 10000))
		if e, _ := res["error_text"].(string); !strings.Contains(e, "TimeoutError") || texts(res)[0] != "spin" {
			t.Errorf("want a TimeoutError after the output: %v", res)
		}
	})
	t.Run("HeapFromCellExecutionLimits", func(t *testing.T) {
		s := openSession(t, nil, map[string]any{"cellExecutionLimits": map[string]any{"maxHeapSizeBytes": 16 << 20}})
		res := result(t, s.execute(2, `const a = []; while (true) a.push(new Array(1e5).fill(1.5));`, 20000))
		if e, _ := res["error_text"].(string); !strings.Contains(e, "OutOfMemoryError") || !strings.Contains(e, "16 MiB") {
			t.Errorf("want an OutOfMemoryError naming 16 MiB: %v", res)
		}
		// The session runs its next cell.
		if got := texts(result(t, s.execute(3, `text("next")`, 5000))); len(got) != 1 || got[0] != "next" {
			t.Errorf("next cell: %q", got)
		}
	})
	t.Run("CellsPerSession", func(t *testing.T) {
		s := openSession(t, []string{`CODEMODE_HOST_LIMITS={"cells": 2}`}, nil)
		for id := 2; id <= 3; id++ {
			if f := s.execute(id, `await new Promise(r => setTimeout(r, 5000))`, 10); f["type"] != "execute/initialResponse" {
				t.Fatalf("cell %d: %v", id, f)
			}
		}
		f := s.execute(4, `text("third")`, 5000)
		if r := f["result"].(map[string]any); r["status"] != "error" || !strings.Contains(r["message"].(string), "already has 2 live cells") {
			t.Errorf("want the third live cell refused: %v", f)
		}
	})
	t.Run("SourceBytes", func(t *testing.T) {
		s := openSession(t, nil, nil)
		f := s.execute(2, "//"+strings.Repeat("x", 2<<20), 5000)
		r := f["result"].(map[string]any)
		if r["status"] != "error" || !strings.Contains(r["message"].(string), "the limit is 1048576") {
			t.Errorf("want the source refused naming its limit: %v", f)
		}
	})
}

// startPeerEnv is startPeer with extra environment variables.
func startPeerEnv(t testing.TB, env []string, bin string, args ...string) *peer {
	t.Helper()
	if len(env) == 0 {
		return startPeer(t, bin, args...)
	}
	return startCmd(t, exec.Command(bin, args...), env)
}

// TestGlobalsAgainstCodex compares the cell's globals with the ones
// Codex's host defines (trace s05g). Named differences: V8Version (our
// V8 10.9 predates AsyncDisposableStack, DisposableStack, Float16Array
// and SuppressedError), NoAudio (no audio or generatedImage: our output
// items have no audio, and Codex's generated-image semantics are not
// recorded), and ours adds its own (console, searchTools, ToolError, the
// web built-ins...).
func TestGlobalsAgainstCodex(t *testing.T) {
	var codex []string
	for _, e := range loadTrace(t, "s05g-globals").entries {
		var f struct {
			Type   string
			Result struct {
				Value struct {
					Result struct {
						ContentItems []struct{ Text string } `json:"content_items"`
					}
				}
			}
		}
		if e.Dir == "host->client" && json.Unmarshal(e.Frame, &f) == nil && f.Type == "execute/initialResponse" {
			if err := json.Unmarshal([]byte(f.Result.Value.Result.ContentItems[0].Text), &codex); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(codex) == 0 {
		t.Fatal("no globals in the trace")
	}
	s := openSession(t, nil, nil)
	var ours []string
	got := texts(result(t, s.execute(2, `text(JSON.stringify(Object.getOwnPropertyNames(globalThis)))`, 5000)))
	if err := json.Unmarshal([]byte(got[0]), &ours); err != nil {
		t.Fatal(err)
	}
	missing := map[string]string{"AsyncDisposableStack": "V8Version", "DisposableStack": "V8Version", "Float16Array": "V8Version",
		"SuppressedError": "V8Version", "audio": "NoAudio", "generatedImage": "NoAudio"}
	for _, g := range codex {
		if _, excused := missing[g]; !excused && !slices.Contains(ours, g) {
			t.Errorf("Codex's cells have %s, ours do not", g)
		}
	}
}

// TestTypeScriptCellsRun: what our host adds to Codex's. A cell that only
// parses as TypeScript runs with its types stripped, and its errors point
// into the source the model wrote; a JavaScript syntax error is still
// V8's, in V8's words, as Codex's host reports it.
func TestTypeScriptCellsRun(t *testing.T) {
	s := openSession(t, nil, nil)
	res := result(t, s.execute(2, `interface Point { x: number; y: number }
const p: Point = {x: 1, y: 2};
function norm(q: Point): number { return Math.hypot(q.x, q.y) }
text((norm(p) as number).toFixed(3));
const names: Array<string> = ["a", "b"];
text(names.join());`, 5000))
	if got := texts(res); strings.Join(got, "|") != "2.236|a,b" || res["error_text"] != nil {
		t.Errorf("got %q, error_text %v", got, res["error_text"])
	}
	res = result(t, s.execute(3, "const n: number = 1;\nthrow new Error(\"at line two\")", 5000))
	if e, _ := res["error_text"].(string); !strings.HasPrefix(e, "Error: at line two\n    at exec_main.mjs:2:") {
		t.Errorf("the TypeScript cell's error points elsewhere: %q", e)
	}
	res = result(t, s.execute(4, `const x = ;`, 5000))
	if e, _ := res["error_text"].(string); e != "SyntaxError: Unexpected token ';'" {
		t.Errorf("a JavaScript syntax error: %q", e)
	}
}

// TestStuckCellExitsThree: a cell stopped inside a builtin that never
// checks for termination is stuck; after CODEMODE_HOST_STUCK_AFTER the
// host exits 3 (Codex starts a new one), as the stdio host does.
func TestStuckCellExitsThree(t *testing.T) {
	s := openSession(t, []string{"CODEMODE_HOST_STUCK_AFTER=300ms"}, nil)
	s.send(map[string]any{"type": "operation/request", "id": 2, "request": map[string]any{"method": "session/execute", "sessionId": "s",
		"request": map[string]any{"tool_call_id": "c", "enabled_tools": []any{}, "yield_time_ms": 60000,
			"source": `Array.prototype.includes.call({length: 1e12, get 0() { exit(); return 0; }}, 1)`}}})
	// Well before the default 5 s: the variable was read.
	select {
	case <-s.p.done:
	case <-time.After(4 * time.Second):
		t.Fatalf("the host did not exit after its 300 ms stuck deadline")
	}
	if code := s.p.cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit status %d, want 3; stderr: %s", code, s.p.stderr.String())
	}
}

// TestToolArgumentsAreChecked names a deliberate difference,
// NonObjectArgument: a function tool called with a value that is not an
// object (tools.echo(5)), or a freeform tool with one that is not a
// string, throws a TypeError naming the tool in the cell at once, where
// Codex's host sends the value on for Codex's tool to refuse.
func TestToolArgumentsAreChecked(t *testing.T) {
	s := openSession(t, nil, nil)
	tools := []any{
		map[string]any{"name": "echo", "tool_name": map[string]any{"name": "echo", "namespace": nil}, "description": "d", "kind": "function"},
		map[string]any{"name": "free", "tool_name": map[string]any{"name": "free", "namespace": nil}, "description": "d", "kind": "freeform"},
	}
	s.send(map[string]any{"type": "operation/request", "id": 2, "request": map[string]any{"method": "session/execute", "sessionId": "s",
		"request": map[string]any{"tool_call_id": "c", "enabled_tools": tools, "yield_time_ms": 5000,
			"source": `for (const f of [() => tools.echo(5), () => tools.echo("x"), () => tools.free({a: 1})]) ` +
				`{ try { await f(); text("sent") } catch (e) { text(e.name + ": " + e.message) } }`}}})
	for {
		var f map[string]any
		if err := json.Unmarshal(s.next(), &f); err != nil {
			t.Fatal(err)
		}
		if f["type"] == "delegate/request" {
			t.Fatalf("a tool call went out: %v", f)
		}
		if f["type"] != "execute/initialResponse" {
			continue
		}
		want := []string{"TypeError: tools.echo expects an object argument; got a number (5)",
			"TypeError: tools.echo expects an object argument; got a string",
			"TypeError: tools.free is a freeform tool and expects a string; got an object"}
		if got := texts(result(t, f)); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("got %q, want %q", got, want)
		}
		return
	}
}
