package runtime

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func TestHeapBombsEndAsOutOfMemoryAndTheRuntimeKeepsServing(t *testing.T) {
	rt := newRuntime(t)
	for name, src := range map[string]string{
		"array-push":  "const a = []; while (true) a.push(new Array(1e5).fill(1.5));",
		"strings":     "const a = []; for (let i = 0; ; i++) a.push('x'.repeat(1e5) + i);",
		"objects":     "const m = new Map(); for (let i = 0; ; i++) m.set(i, {i, s: 'v' + i});",
		"arraybuffer": "const a = []; while (true) a.push(new Uint8Array(16 << 20));",
	} {
		res := run(t, rt, src, protocol.Limits{HeapMiB: 64, WallTimeMS: 30_000})
		assert.Equal(t, protocol.StatusOutOfMemory, res.Status, name)
		if assert.NotNil(t, res.Error, name) {
			assert.Equal(t, "OutOfMemoryError", res.Error.Name, name)
		}
		ok := run(t, rt, "return 'still serving'")
		assert.Equal(t, []string{"still serving"}, texts(ok), name)
	}
}

func TestCPULimitIgnoresTimeWaitingForTools(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "while (true) {}", protocol.Limits{CPUTimeMS: 100, WallTimeMS: 20_000})
	require.Equal(t, protocol.StatusTimedOut, res.Status)
	assert.Contains(t, res.Error.Message, "CPU-time limit of 100ms")

	res = run(t, rt, "await tools.echo({delay_ms: 300}); return 'waited'", protocol.Limits{CPUTimeMS: 100})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"waited"}, texts(res))
}

func TestToolCallLimit(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, `
const r = await Promise.allSettled(Array.from({length: 5}, (_, i) => tools.echo({i})));
return r.map(x => x.status === 'fulfilled' ? 'ok' : x.reason.code).join(',');`, protocol.Limits{ToolCallsPerCell: 3})
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"ok,ok,ok,limit_exceeded,limit_exceeded"}, texts(res))
}

type concurrencySpy struct{ now, peak atomic.Int64 }

func (c *concurrencySpy) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	n := c.now.Add(1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(2 * time.Millisecond)
	c.now.Add(-1)
	return call.Input, nil
}

func TestConcurrentToolCallLimitQueuesInOrder(t *testing.T) {
	rt := newRuntime(t)
	spy := &concurrencySpy{}
	res, err := rt.Run(context.Background(), CellRequest{Tools: testTools, Caller: spy, Limits: protocol.Limits{ConcurrentToolCalls: 4},
		Source: `const r = await Promise.all(Array.from({length: 40}, (_, i) => tools.echo({i}))); return r.every((x, i) => x.i === i)`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"true"}, texts(res))
	assert.LessOrEqual(t, spy.peak.Load(), int64(4))
	assert.Equal(t, 40, res.Stats.ToolCalls)
}

func TestDeepRecursionIsACatchableRangeError(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, "function f(n) { return f(n + 1) + 1 }\ntry { f(0) } catch (e) { return e.name }")
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []string{"RangeError"}, texts(res))
}

func TestStuckCellIsReported(t *testing.T) {
	stuck := make(chan string, 1)
	rt := New(Config{StuckAfter: time.Millisecond, OnStuck: func(c *Cell, status protocol.Status, reason protocol.ErrorInfo) {
		stuck <- c.ID() + ": " + string(status) + " " + reason.Name
	}})
	t.Cleanup(rt.Close)
	// V8 finishes a builtin before it honours a termination, and does not
	// check inside Array.prototype.sort: the default sort of a million
	// numbers (as strings) takes about 0.85 s, far longer than StuckAfter.
	// Array.from, which calls JS and so can be stopped, takes about 0.1 s
	// before it: the wall-time limit lands in the sort even on a loaded
	// machine.
	res := run(t, rt, "const a = Array.from({length: 1e6}, (_, i) => (i * 7919) % 1e6);\nwhile (true) a.sort();",
		protocol.Limits{WallTimeMS: 400})
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	select {
	case s := <-stuck:
		assert.Regexp(t, `^cell-\d+: timed_out TimeoutError$`, s)
	case <-time.After(10 * time.Second):
		t.Fatal("OnStuck was not called")
	}
}

func TestStartRefusesASourceOverItsLimit(t *testing.T) {
	rt := newRuntime(t)
	_, err := rt.Start(CellRequest{Source: "return 12345678901", Limits: protocol.Limits{SourceBytes: 10}})
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, protocol.ErrCodeLimitExceeded, refused.Code)
	assert.Equal(t, "the source is 18 bytes; the limit is 10: send a shorter script", refused.Message)
}

func TestLimitsTakeTheProtocolDefaults(t *testing.T) {
	d := protocol.DefaultLimits
	l := limitsOf(protocol.Limits{}, false)
	assert.Equal(t, time.Duration(d.WallTimeMS)*time.Millisecond, l.wall)
	assert.Equal(t, time.Duration(d.CPUTimeMS)*time.Millisecond, l.cpu)
	assert.Equal(t, int(d.HeapMiB), l.heapMB)
	assert.Equal(t, int(d.SourceBytes), l.sourceBytes)
	assert.Equal(t, TokenBudget(int(d.OutputTokens), int(d.OutputBytes)), l.budget())
	assert.Equal(t, TokenBudget(0, int(d.OutputBytes)), limitsOf(protocol.Limits{}, true).budget())
}
