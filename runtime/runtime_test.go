package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// echoCaller answers every call with its input, after delay when the input
// has a "delay_ms" field, and fails calls to the tool named "fail".
type echoCaller struct{ calls atomic.Int64 }

func (e *echoCaller) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	e.calls.Add(1)
	if call.Name == "fail" {
		return nil, &protocol.ToolError{Code: "tool_failed", Message: "it broke"}
	}
	if call.Name == "never" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var in struct {
		DelayMS int `json:"delay_ms"`
	}
	_ = json.Unmarshal(call.Input, &in)
	if in.DelayMS > 0 {
		select {
		case <-time.After(time.Duration(in.DelayMS) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return call.Input, nil
}

var testTools = []protocol.ToolDef{
	{Name: "echo"}, {Name: "fail"}, {Name: "never"},
	{Namespace: "mcp__files__", Name: "read-file"},
	{Name: "apply", Kind: protocol.KindFreeform},
}

func newRuntime(t *testing.T) *Runtime {
	rt := New(Config{})
	t.Cleanup(rt.Close)
	return rt
}

func run(t *testing.T, rt *Runtime, src string, limits ...protocol.Limits) Result {
	t.Helper()
	req := CellRequest{Source: src, Tools: testTools, Caller: &echoCaller{}}
	if len(limits) > 0 {
		req.Limits = limits[0]
	}
	res, err := rt.Run(context.Background(), req)
	require.NoError(t, err)
	return res
}

func texts(res Result) []string {
	var out []string
	for _, it := range res.Items {
		out = append(out, it.Text)
	}
	return out
}

func TestCellOutputAndReturnValue(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "console.log('a', 1, {b: [2]});\ntext('t');\nconsole.warn('w');\nreturn {ok: true};")
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`a 1 {"b":[2]}`, "t", "w", `{"ok":true}`}, texts(res))
	assert.Equal(t, "log", res.Items[0].Level)
	assert.Equal(t, "", res.Items[1].Level)
	assert.Equal(t, "warn", res.Items[2].Level)
}

func TestTopLevelAwaitAndToolCalls(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `
const r = await tools.echo({x: 1});
const all = await Promise.all([3, 1, 2].map(i => tools.echo({i, delay_ms: i * 5})));
const f = await tools.mcp__files__read_file({path: "/a"});
return [r.x, all.map(a => a.i), f.path, await tools.apply("patch")];`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{`[1,[3,1,2],"/a","patch"]`}, texts(res))
	assert.Equal(t, 6, res.Stats.ToolCalls)
}

func TestToolErrorIsCatchable(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `
try { await tools.fail({}); } catch (e) {
  return [e instanceof Error, e instanceof ToolError, e.name, e.code, e.tool, e.message].join('|');
}`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"true|true|ToolError|tool_failed|fail|it broke"}, texts(res))
}

func TestBadArgumentsAreTypeErrors(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `
const out = [];
for (const a of [5, "s", [1], null]) {
  try { await tools.echo(a); } catch (e) { out.push(e.name + ': ' + e.message); }
}
try { await tools.apply({}); } catch (e) { out.push(e.message); }
const cyc = {}; cyc.self = cyc;
try { await tools.echo(cyc); } catch (e) { out.push(e.name); }
return out.join('\n');`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, strings.Join([]string{
		"TypeError: tools.echo expects an object argument; got a number (5)",
		"TypeError: tools.echo expects an object argument; got a string",
		"TypeError: tools.echo expects an object argument; got an array",
		"TypeError: tools.echo expects an object argument; got null",
		"tools.apply is a freeform tool and expects a string; got an object",
		"TypeError",
	}, "\n"), texts(res)[0])
}

func TestUncaughtErrorReportsUserLine(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "const a = 1;\n\nfunction f() {\n  throw new RangeError('bad ' + a);\n}\nf();")
	require.Equal(t, protocol.StatusFailed, res.Status)
	require.NotNil(t, res.Error)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Equal(t, "bad 1", res.Error.Message)
	assert.Equal(t, 4, res.Error.Line)
	assert.Equal(t, 9, res.Error.Column)
	assert.Contains(t, res.Error.Stack, "cell.js:4:9")
}

func TestErrorOnFirstLineHasUserColumn(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "let x = 1; null.boom;")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "TypeError", res.Error.Name)
	assert.Equal(t, 1, res.Error.Line)
	assert.Equal(t, 17, res.Error.Column)
}

func TestSyntaxErrorReportsLine(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "let a = 1;\nlet b = ;\n")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "SyntaxError", res.Error.Name)
	assert.Equal(t, 2, res.Error.Line)
}

func TestThrownNonError(t *testing.T) {
	rt := newRuntime(t)
	for src, msg := range map[string]string{
		`throw "boom"`:             "Uncaught boom",
		`throw {custom: 1}`:        `Uncaught {"custom":1}`,
		`throw undefined`:          "Uncaught undefined",
		`await Promise.reject(42)`: "Uncaught 42",
	} {
		res := run(t, rt, src)
		require.Equal(t, protocol.StatusFailed, res.Status, src)
		assert.Equal(t, msg, res.Error.Message, src)
	}
}

func TestUnhandledRejectionFailsCell(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "async function main() {\n  await tools.echo({});\n  throw new Error('lost');\n}\nmain();\nawait tools.echo({delay_ms: 50});\nreturn 'unreachable';")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "Uncaught (in promise) lost", res.Error.Message)
	assert.Equal(t, 3, res.Error.Line)
	assert.Empty(t, texts(res))

	res = run(t, rt, "tools.fail({});\nawait tools.echo({delay_ms: 20});")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Contains(t, res.Error.Message, "it broke")
	assert.Equal(t, "ToolError", res.Error.Name)

	res = run(t, rt, "Promise.reject(1);\nawait tools.echo({delay_ms: 20});")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "Uncaught (in promise) 1", res.Error.Message, "one prefix for a non-Error reason")

	res = run(t, rt, "Promise.reject(new Error('Uncaught x'));\nawait tools.echo({delay_ms: 20});")
	assert.Equal(t, "Uncaught (in promise) Uncaught x", res.Error.Message, "an Error's own message is kept")

	res = run(t, rt, "const p = Promise.reject(new Error('x'));\np.catch(() => {});\nreturn 'ok';")
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
}

// A rejection deep inside a runaway recursion runs the rejection hook
// with no stack left; what the hook throws must not outlive the script
// (the isolate stays locked between cells, so nothing clears it for us).
func TestRunawayAsyncRecursionIsDescribedAndTheIsolateServesOn(t *testing.T) {
	rt := New(Config{IdleIsolates: 1})
	t.Cleanup(rt.Close)
	for range 2 {
		res := run(t, rt, "async function f() { await f() }\nawait f()")
		require.Equal(t, protocol.StatusFailed, res.Status)
		assert.Equal(t, "RangeError", res.Error.Name)
		assert.Equal(t, "Maximum call stack size exceeded", res.Error.Message)
		res = run(t, rt, "function g(n) { return n ? g(n - 1) : 'deep' }\nreturn g(5000)")
		require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		assert.Equal(t, []string{"deep"}, texts(res))
	}
}

func TestTimeoutStopsRunawayCodeAndRuntimeKeepsServing(t *testing.T) {
	rt := newRuntime(t)
	for _, src := range []string{"while (true) {}", "for (;;) { await null; }", "await tools.never({})"} {
		res := run(t, rt, src, protocol.Limits{WallTimeMS: 100})
		require.Equal(t, protocol.StatusTimedOut, res.Status, src)
		assert.Equal(t, "TimeoutError", res.Error.Name)
	}
	res := run(t, rt, "return 1 + 1")
	assert.Equal(t, []string{"2"}, texts(res))
}

func TestTerminate(t *testing.T) {
	rt := newRuntime(t)
	// The tool call says the script printed; terminate lands while it
	// spins (or before its answer is delivered: terminated all the same).
	called := make(chan struct{}, 1)
	c, err := rt.Start(CellRequest{Tools: testTools, Source: "text('before'); await tools.echo({}); while (true) {}",
		Caller: ToolCallerFunc(func(_ context.Context, call protocol.ToolCall) (json.RawMessage, error) {
			called <- struct{}{}
			return call.Input, nil
		})})
	require.NoError(t, err)
	<-called
	c.Terminate()
	res := c.Result()
	assert.Equal(t, protocol.StatusTerminated, res.Status)
	assert.Equal(t, []string{"before"}, texts(res))
}

func TestDeadlockIsReported(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "await new Promise(() => {});")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "DeadlockError", res.Error.Name)
}

func TestTimers(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `
const order = [];
setTimeout(() => order.push('b'), 20);
setTimeout(() => order.push('a'), 5);
const id = setTimeout(() => order.push('never'), 10);
clearTimeout(id);
await new Promise(r => setTimeout(r, 40));
setTimeout(() => text('forgotten'), 10000);
return order.join(',');`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	// The 10 s timer was still pending: it neither kept the cell alive
	// nor printed.
	assert.Equal(t, []string{"a,b"}, texts(res))
}

func TestTimerCallbackErrorFailsCell(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "setTimeout(() => { throw new Error('in timer') }, 1);\nawait new Promise(r => setTimeout(r, 20));")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Equal(t, "in timer", res.Error.Message)
	assert.Equal(t, 1, res.Error.Line)
}

func TestExitEndsSuccessfullyAndCannotBeCaught(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "text('a');\ntry { exit(); } catch (e) { text('caught'); } finally { text('finally'); }\ntext('after');")
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"a"}, texts(res))
	res = run(t, rt, "await tools.echo({}); exit(); text('no')")
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Empty(t, texts(res))
}

func TestRemovedGlobals(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "return [typeof Atomics, typeof SharedArrayBuffer, typeof WebAssembly, typeof __cm_call, typeof require, typeof process].join(',')")
	assert.Equal(t, []string{"undefined,undefined,undefined,undefined,undefined,undefined"}, texts(res))
}

func TestNulByteRejected(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "text('a');\ntext('\x00');")
	require.Equal(t, protocol.StatusFailed, res.Status)
	assert.Contains(t, res.Error.Message, "NUL byte at line 2")
}

func TestUnawaitedCallsAreCancelledWhenCellEnds(t *testing.T) {
	rt := newRuntime(t)
	caller := &cancelSpy{done: make(chan error, 1)}
	res, err := rt.Run(context.Background(), CellRequest{Source: "tools.never({}); return 'done'", Tools: testTools, Caller: caller})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	select {
	case err := <-caller.done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the unawaited call's context was not cancelled")
	}
}

type cancelSpy struct{ done chan error }

func (c *cancelSpy) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	<-ctx.Done()
	c.done <- ctx.Err()
	return nil, ctx.Err()
}

func TestManyConcurrentCallsAndCells(t *testing.T) {
	rt := newRuntime(t)
	src := `const r = await Promise.all(Array.from({length: 2000}, (_, i) => tools.echo({i}))); return r.reduce((a, b) => a + b.i, 0);`
	cells := make([]*Cell, 4)
	for i := range cells {
		c, err := rt.Start(CellRequest{Source: src, Tools: testTools, Caller: &echoCaller{}})
		require.NoError(t, err)
		cells[i] = c
	}
	for _, c := range cells {
		res := c.Result()
		require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		assert.Equal(t, []string{fmt.Sprint(1999 * 2000 / 2)}, texts(res))
	}
}

func TestPanickingCallerBecomesToolError(t *testing.T) {
	rt := newRuntime(t)
	res, err := rt.Run(context.Background(), CellRequest{Source: "try { await tools.echo({}) } catch (e) { return e.code + ': ' + e.message }",
		Tools: testTools, Caller: panicCaller{}})
	require.NoError(t, err)
	assert.Equal(t, []string{"internal: the tool caller panicked: boom"}, texts(res))
}

type panicCaller struct{}

func (panicCaller) CallTool(context.Context, protocol.ToolCall) (json.RawMessage, error) {
	panic("boom")
}

func TestOutputCapKeepsTheBeginningAndTheEnd(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "for (let i = 0; i < 100; i++) text(i + ':' + 'x'.repeat(100)); return 'end'", protocol.Limits{OutputBytes: 2000})
	require.Equal(t, protocol.StatusCompleted, res.Status)
	assert.True(t, res.Truncated)
	assert.True(t, strings.HasPrefix(res.Items[0].Text, "0:"), res.Items[0].Text)
	assert.Equal(t, "end", res.Items[len(res.Items)-1].Text)
	assert.True(t, strings.HasPrefix(res.Items[len(res.Items)-2].Text, "99:"))
	var notes int
	for _, it := range res.Items {
		if strings.Contains(it.Text, "tokens truncated") {
			notes++
		}
	}
	assert.Equal(t, 1, notes)
}
