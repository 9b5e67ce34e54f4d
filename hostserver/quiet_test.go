package hostserver

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// A model's wait is quiet: output and notify do not answer it (issue #21,
// "no polling tax"); its end, its yield time and yield_control() do.

// quietCell starts a cell that prints "a", waits for a first tool call,
// prints "b" and notifies, waits for a second call, then returns. Its exec
// is answered by yield_control(); it returns the cell id and the first call.
func quietCell(t *testing.T, p *parent) (string, *protocol.ToolCallRequest) {
	t.Helper()
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `text("a"); yield_control(); await tools.echo({}); text("b"); notify("n"); await tools.echo({}); text("c"); return 1`})
	first, calls := p.result(execID)
	require.Equal(t, protocol.StatusYielded, first.Status)
	require.Equal(t, []string{"a"}, texts(first.Items))
	calls = p.withACall(calls)
	return cellID, calls[0]
}

func TestQuietWaitIsNotAnsweredByOutputOrNotify(t *testing.T) {
	for _, quiet := range []bool{true, false} {
		p := startHost(t, Config{})
		cellID, call := quietCell(t, p)
		waitID := p.id()
		p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000, Quiet: quiet})
		p.send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{}`)})
		assert.Equal(t, "n", expect[*protocol.Notify](p).Text)
		var second *protocol.ToolCallRequest
		var res *protocol.CellResult
		for second == nil || (!quiet && res == nil) {
			switch m := p.next().(type) {
			case *protocol.ToolCallRequest:
				second = m
			case *protocol.CellResult:
				res = m
			}
		}
		if !quiet {
			// The control: a plain wait wakes on "b".
			assert.Equal(t, protocol.StatusYielded, res.Status)
			assert.Equal(t, []string{"b"}, texts(res.Items))
			continue
		}
		// Give a wait that would wake on output (after its 20 ms burst
		// window) the time to answer before the cell can end.
		time.Sleep(200 * time.Millisecond)
		p.send(&protocol.ToolResult{ID: second.ID, Value: json.RawMessage(`{}`)})
		final, _ := p.result(waitID)
		assert.Equal(t, protocol.StatusCompleted, final.Status, "the quiet wait is answered by the cell's end only")
		assert.Equal(t, []string{"b", "c", "1"}, texts(final.Items))
	}
}

func TestQuietWaitIsAnsweredByYieldControlAndItsYieldTime(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `yield_control(); await tools.echo({}); text("x"); yield_control(); await tools.echo({}); text("y"); await tools.echo({})`})
	_, calls := p.result(execID)
	calls = p.withACall(calls)
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000, Quiet: true})
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	res, calls := p.result(waitID)
	assert.Equal(t, protocol.StatusYielded, res.Status, "yield_control() answers a quiet wait")
	assert.Equal(t, []string{"x"}, texts(res.Items))
	calls = p.withACall(calls)
	waitID = p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 100, Quiet: true})
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	res, _ = p.result(waitID)
	assert.Equal(t, protocol.StatusYielded, res.Status, "its yield time answers it")
	assert.Equal(t, []string{"y"}, texts(res.Items))
}

func TestPragmaSetsTheExecsYieldAndOutputBudget(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	// The request asks for a minute; the cell's first line asks for 50 ms.
	id, _ := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: "// @exec: {\"yield_time_ms\": 50}\ntext(\"a\"); await tools.echo({})"})
	res, _ := p.result(id)
	assert.Equal(t, protocol.StatusYielded, res.Status)
	assert.Equal(t, []string{"a"}, texts(res.Items))

	id, _ = p.exec(&protocol.Exec{Session: "s1",
		Source: "  // @exec: {\"max_output_tokens\": 20}\ntext(\"x\".repeat(10000)); return 'end'"})
	res, _ = p.result(id)
	assert.Equal(t, protocol.StatusCompleted, res.Status)
	assert.True(t, res.Truncated, "the pragma's budget applies")
	size := 0
	for _, it := range res.Items {
		size += len(it.Text)
	}
	assert.Less(t, size, 1000)
	assert.Equal(t, "end", res.Items[len(res.Items)-1].Text)
}

func TestMalformedPragmaIsRefusedWithItsProblem(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	for src, want := range map[string]string{
		"// @exec: soon\nreturn 1":                  "source: the first line's \"// @exec:\" pragma is not a JSON object",
		"// @exec: {\"yield\": 5}\nreturn 1":        `unknown key "yield"`,
		"// @exec: {\"yield_time_ms\": -5}\nreturn": "yield_time_ms is -5",
	} {
		p.send(&protocol.Exec{ID: p.id(), Session: "s1", Source: src})
		e := expect[*protocol.ErrorReply](p)
		assert.Equal(t, protocol.ErrCodeBadField, e.Code, src)
		assert.Contains(t, e.Message, want, src)
	}
}

func TestAHugeYieldTimeDoesNotWrap(t *testing.T) {
	assert.Equal(t, 10*time.Second, yieldTime(0))
	assert.Equal(t, 50*time.Millisecond, yieldTime(50))
	longest := time.Duration(math.MaxInt64 / int64(time.Millisecond) * int64(time.Millisecond))
	for _, ms := range []uint64{1e13, 1e15, 1<<53 - 1, math.MaxUint64} {
		assert.Equal(t, longest, yieldTime(ms), "%d ms", ms)
	}
}

func TestWaitTakesItsOwnOutputBudget(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `yield_control(); await tools.echo({}); text("x".repeat(10000)); yield_control(); await tools.echo({})`})
	_, calls := p.result(execID)
	calls = p.withACall(calls)
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000, Quiet: true, MaxOutputTokens: 25})
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	res, _ := p.result(waitID)
	assert.True(t, res.Truncated, "the wait's budget of 25 tokens cut the 10,000 characters")
	size := 0
	for _, it := range res.Items {
		size += len(it.Text)
	}
	assert.Less(t, size, 400)
}

// TestQuietWaitAfterAnUnseenYieldControlReturnsAtOnce: a yield_control()
// nobody was waiting for answers the next wait, a quiet one too; a
// notify nobody saw does not answer a quiet wait.
func TestQuietWaitAfterAnUnseenYieldControlReturnsAtOnce(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `yield_control(); await tools.echo({}); notify("n"); await tools.echo({}); text("y"); yield_control(); await tools.echo({})`})
	_, calls := p.result(execID)
	calls = p.withACall(calls)
	// No request is pending: the notify is not seen by anyone.
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	assert.Equal(t, "n", expect[*protocol.Notify](p).Text)
	second := expect[*protocol.ToolCallRequest](p)
	// The yield_control() after "y" comes while nothing is pending.
	p.send(&protocol.ToolResult{ID: second.ID, Value: json.RawMessage(`{}`)})
	expect[*protocol.ToolCallRequest](p) // the script is past yield_control()
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000, Quiet: true})
	res, _ := p.result(waitID)
	assert.Equal(t, protocol.StatusYielded, res.Status)
	assert.Equal(t, []string{"y"}, texts(res.Items))
}
