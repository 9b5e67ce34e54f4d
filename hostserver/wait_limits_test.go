package hostserver

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// handshakeStore shakes hands with the store and stream_output
// capabilities.
func (p *parent) handshakeStore() {
	p.t.Helper()
	p.send(&protocol.Hello{ID: p.id(), Versions: []uint32{1}, Capabilities: []string{protocol.CapStreamOutput, protocol.CapStore}})
	expect[*protocol.HelloOK](p)
}

// openWith opens a session with limits and returns the effective ones.
func (p *parent) openWith(name string, lim protocol.Limits) protocol.Limits {
	p.t.Helper()
	p.send(&protocol.OpenSession{ID: p.id(), Session: name, Limits: &lim})
	return expect[*protocol.SessionOpened](p).Limits
}

// result skips tool calls, notifies and output until the cell.result of
// request id; it returns the result and the tool calls it skipped.
func (p *parent) result(id uint64) (*protocol.CellResult, []*protocol.ToolCallRequest) {
	p.t.Helper()
	var calls []*protocol.ToolCallRequest
	for {
		switch m := p.next().(type) {
		case *protocol.CellResult:
			if m.ID == id {
				return m, calls
			}
		case *protocol.ToolCallRequest:
			calls = append(calls, m)
		case *protocol.ErrorReply:
			p.t.Fatalf("error reply: %+v", m)
		}
	}
}

// start is exec that skips frames left over from earlier cells
// (cell.closed) before exec.started.
func (p *parent) start(m *protocol.Exec) (uint64, string) {
	p.t.Helper()
	m.ID = p.id()
	p.send(m)
	for {
		switch f := p.next().(type) {
		case *protocol.ExecStarted:
			require.Equal(p.t, m.ID, f.ID)
			return m.ID, f.Cell
		case *protocol.ErrorReply:
			p.t.Fatalf("exec refused: %+v", f)
		}
	}
}

// withACall returns calls, the tool calls a result skipped, or the next
// tool.call when the result came before any.
func (p *parent) withACall(calls []*protocol.ToolCallRequest) []*protocol.ToolCallRequest {
	p.t.Helper()
	if len(calls) == 0 {
		calls = append(calls, p.toolCall())
	}
	return calls
}

// toolCall skips frames until the next tool.call.
func (p *parent) toolCall() *protocol.ToolCallRequest {
	p.t.Helper()
	for {
		if m, ok := p.next().(*protocol.ToolCallRequest); ok {
			return m
		}
	}
}

func TestWaitReturnsAsSoonAsNewOutputArrives(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 20, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); text("news"); await tools.echo({})`})
	res, calls := p.result(execID)
	require.Equal(t, protocol.StatusYielded, res.Status)
	calls = p.withACall(calls)
	// The wait's yield time (a minute) is longer than parent.next waits
	// for a frame (10 s): a result at all means the output answered it.
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	res, _ = p.result(waitID)
	assert.Equal(t, protocol.StatusYielded, res.Status)
	assert.Equal(t, []protocol.Item{{Type: "text", Text: "news"}}, res.Items)
}

func TestWaitReturnsOnNotify(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 20, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); notify("half way"); await tools.echo({})`})
	res, calls := p.result(execID)
	require.Equal(t, protocol.StatusYielded, res.Status)
	calls = p.withACall(calls)
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	var sawNotify bool
	for {
		m := p.next()
		if n, ok := m.(*protocol.Notify); ok {
			assert.Equal(t, "half way", n.Text)
			sawNotify = true
		}
		if r, ok := m.(*protocol.CellResult); ok {
			assert.Equal(t, waitID, r.ID)
			assert.Equal(t, protocol.StatusYielded, r.Status)
			break
		}
	}
	assert.True(t, sawNotify, "notify comes before the wait's result")
}

func TestYieldControlWithNothingPendingMakesNextWaitReturnAtOnce(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 20, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); yield_control(); await tools.echo({})`})
	res, calls := p.result(execID)
	require.Equal(t, protocol.StatusYielded, res.Status)
	calls = p.withACall(calls)
	p.send(&protocol.ToolResult{ID: calls[0].ID, Value: json.RawMessage(`{}`)})
	p.toolCall() // the second call comes after yield_control()
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000}) // longer than parent.next waits
	res, _ = p.result(waitID)
	assert.Equal(t, protocol.StatusYielded, res.Status)

	// Nothing new since: the next wait sits out its yield time.
	waitID = p.id()
	start := time.Now()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 200})
	res, _ = p.result(waitID)
	assert.Equal(t, protocol.StatusYielded, res.Status)
	assert.Empty(t, res.Items)
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond)
}

func TestTerminateDropsStoreWritesAndScriptErrorCommitsThem(t *testing.T) {
	p := startHost(t, Config{})
	p.handshakeStore()
	p.openSession("s1")

	_, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `store("dropped", 1); await tools.echo({})`})
	p.toolCall()
	termID := p.id()
	p.send(&protocol.Terminate{ID: termID, Session: "s1", Cell: cellID})
	res, _ := p.result(termID)
	assert.Equal(t, protocol.StatusTerminated, res.Status)
	assert.Empty(t, res.Store)

	id, _ := p.start(&protocol.Exec{Session: "s1", Source: `store("kept", 2); throw new Error("boom")`})
	res, _ = p.result(id)
	assert.Equal(t, protocol.StatusFailed, res.Status)
	require.Len(t, res.Store, 1)
	assert.Equal(t, "kept", res.Store[0].Key)

	id, _ = p.start(&protocol.Exec{Session: "s1", Limits: &protocol.Limits{WallTimeMS: 50}, Source: `store("late", 3); while (true) {}`})
	res, _ = p.result(id)
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	assert.Empty(t, res.Store)

	id, _ = p.start(&protocol.Exec{Session: "s1", Source: `return [load("dropped"), load("kept"), load("late")]`})
	res, _ = p.result(id)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.JSONEq(t, `[null, 2, null]`, strings.ReplaceAll(res.Items[0].Text, "undefined", "null"))
}

// Every protocol limit reaches the runtime or hostserver: host defaults,
// session overrides and exec overrides, each through the wire.
func TestEveryLimitIsEnforcedThroughTheProtocol(t *testing.T) {
	t.Run("host defaults apply and sessions cannot loosen them", func(t *testing.T) {
		p := startHost(t, Config{Limits: protocol.Limits{WallTimeMS: 100, HeapMiB: 64}})
		ok := p.handshake()
		assert.Equal(t, uint64(100), ok.Limits.WallTimeMS)
		lim := p.openWith("s1", protocol.Limits{WallTimeMS: 60_000, HeapMiB: 1024})
		assert.Equal(t, uint64(100), lim.WallTimeMS)
		assert.Equal(t, uint32(64), lim.HeapMiB)
		id, _ := p.start(&protocol.Exec{Session: "s1", Source: `await new Promise(r => setTimeout(r, 10_000))`})
		res, _ := p.result(id)
		assert.Equal(t, protocol.StatusTimedOut, res.Status)
		require.NotNil(t, res.Error)
	})
	t.Run("wall time per exec", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openSession("s1")
		id, _ := p.start(&protocol.Exec{Session: "s1", Limits: &protocol.Limits{WallTimeMS: 100},
			Source: `await new Promise(r => setTimeout(r, 10_000))`})
		res, _ := p.result(id)
		assert.Equal(t, protocol.StatusTimedOut, res.Status)
	})
	t.Run("cpu time excludes tool waits", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{CPUTimeMS: 200})
		id, _ := p.start(&protocol.Exec{Session: "s1", Source: `while (true) {}`})
		res, _ := p.result(id)
		assert.Equal(t, protocol.StatusTimedOut, res.Status)
		require.NotNil(t, res.Error)

		id, _ = p.start(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool}, Source: `await tools.echo({}); return "ok"`})
		call := p.toolCall()
		time.Sleep(500 * time.Millisecond) // longer than the CPU limit, spent waiting
		p.send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{}`)})
		res, _ = p.result(id)
		assert.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	})
	t.Run("heap", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{HeapMiB: 32})
		id, _ := p.start(&protocol.Exec{Session: "s1", Source: `const a = []; while (true) a.push(new Array(1e5).fill(1.5))`})
		res, _ := p.result(id)
		assert.Equal(t, protocol.StatusOutOfMemory, res.Status)
		id, _ = p.start(&protocol.Exec{Session: "s1", Source: `return 1 + 1`})
		res, _ = p.result(id)
		assert.Equal(t, protocol.StatusCompleted, res.Status, "the session keeps working")
	})
	t.Run("output tokens", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{OutputTokens: 10})
		id, _ := p.start(&protocol.Exec{Session: "s1", Source: `text("x".repeat(10_000))`})
		res, _ := p.result(id)
		assert.True(t, res.Truncated)
		total := 0
		for _, it := range res.Items {
			total += len(it.Text)
		}
		assert.Less(t, total, 1000)
	})
	t.Run("tool calls per cell", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{ToolCallsPerCell: 1})
		id, _ := p.start(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
			Source: `await tools.echo({}); try { await tools.echo({}) } catch (e) { return e.code }`})
		call := p.toolCall()
		p.send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{}`)})
		res, _ := p.result(id)
		require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		assert.Contains(t, res.Items[0].Text, "limit_exceeded")
	})
	t.Run("concurrent tool calls", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{ConcurrentToolCalls: 2})
		id, _ := p.start(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
			Source: `return (await Promise.all([1,2,3,4,5].map(i => tools.echo({i})))).length`})
		var held []*protocol.ToolCallRequest
		answered := 0
		for {
			m := p.next()
			if c, ok := m.(*protocol.ToolCallRequest); ok {
				held = append(held, c)
				require.LessOrEqual(t, len(held), 2, "more calls in flight than the limit")
			}
			if r, ok := m.(*protocol.CellResult); ok {
				require.Equal(t, id, r.ID)
				assert.Equal(t, protocol.StatusCompleted, r.Status)
				assert.Equal(t, "5", r.Items[0].Text)
				break
			}
			if len(held) == 2 || answered+len(held) == 5 {
				// Give the host time to (wrongly) send another call
				// before answering the ones in flight.
				time.Sleep(50 * time.Millisecond)
				select {
				case m := <-p.frames:
					_, isCall := m.(*protocol.ToolCallRequest)
					require.False(t, isCall, "a call beyond the limit was sent")
				default:
				}
				for _, c := range held {
					p.send(&protocol.ToolResult{ID: c.ID, Value: c.Input})
				}
				answered += len(held)
				held = nil
			}
		}
		assert.Equal(t, 5, answered)
	})
	t.Run("source bytes", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{SourceBytes: 10})
		p.send(&protocol.Exec{ID: p.id(), Session: "s1", Source: `return "this is longer than ten bytes"`})
		e := expect[*protocol.ErrorReply](p)
		assert.Equal(t, protocol.ErrCodeLimitExceeded, e.Code)
		assert.Contains(t, e.Message, "the limit is 10")
	})
	t.Run("cells per session", func(t *testing.T) {
		p := startHost(t, Config{})
		p.handshake()
		p.openWith("s1", protocol.Limits{CellsPerSession: 1})
		// A yield time longer than the test: no yielded result comes in
		// between the replies the test reads.
		p.start(&protocol.Exec{Session: "s1", YieldMS: 600_000, Source: `await new Promise(r => setTimeout(r, 600_000))`})
		p.send(&protocol.Exec{ID: p.id(), Session: "s1", Source: `return 1`})
		for {
			if e, ok := p.next().(*protocol.ErrorReply); ok {
				assert.Equal(t, protocol.ErrCodeLimitExceeded, e.Code)
				assert.Contains(t, e.Message, "live cells")
				break
			}
		}
		p.openSession("s2") // another session is not affected
		id, _ := p.start(&protocol.Exec{Session: "s2", Source: `return 2`})
		res, _ := p.result(id)
		assert.Equal(t, protocol.StatusCompleted, res.Status)
	})
	t.Run("sessions per host", func(t *testing.T) {
		p := startHost(t, Config{Limits: protocol.Limits{SessionsPerHost: 1}})
		p.handshake()
		p.openSession("s1")
		p.send(&protocol.OpenSession{ID: p.id(), Session: "s2"})
		e := expect[*protocol.ErrorReply](p)
		assert.Equal(t, protocol.ErrCodeLimitExceeded, e.Code)
		assert.Contains(t, e.Message, "open sessions")
	})
}

func TestStuckCellIsReportedThenOnStuckRuns(t *testing.T) {
	stuck := make(chan string, 1)
	p := startHost(t, Config{
		Runtime: runtime.Config{StuckAfter: time.Nanosecond},
		OnStuck: func(session, cell string, reason protocol.ErrorInfo) {
			stuck <- session + "/" + cell + ": " + reason.Name
		},
	})
	p.handshake()
	p.openSession("s1")
	// A long builtin: V8 checks for termination between statements and in
	// some builtins (JSON.stringify of a large array), but not inside
	// Array.prototype.sort, which takes about 0.85 s here for a million
	// numbers compared as strings. The script says when it sorts, so the
	// terminate lands there and not in Array.from, which calls JS.
	_, cellID := p.start(&protocol.Exec{Session: "s1", YieldMS: 60_000,
		Source: stuckSortSource + `notify("sorting"); while (true) b.sort()`})
	for {
		if n, ok := p.next().(*protocol.Notify); ok && n.Cell == cellID {
			break
		}
	}
	termID := p.id()
	p.send(&protocol.Terminate{ID: termID, Session: "s1", Cell: cellID})
	res, _ := p.result(termID)
	assert.Equal(t, protocol.StatusTerminated, res.Status)
	require.NotNil(t, res.Error)
	require.Equal(t, protocol.ErrorNameStuck, res.Error.Name, "%+v", res.Error)
	assert.Contains(t, res.Error.Message, "stuck inside V8")
	select {
	case got := <-stuck:
		assert.Equal(t, "s1/"+cellID+": TerminatedError", got)
	case <-time.After(10 * time.Second):
		t.Fatal("OnStuck was not called")
	}
}

// stuckSortSource makes b, a million numbers whose default sort (as
// strings) runs about 0.85 s inside V8 without a termination check.
const stuckSortSource = `const b = Array.from({length: 1e6}, (_, i) => (i * 7919) % 1e6); `

func TestCellPrefixNamesCells(t *testing.T) {
	p := startHost(t, Config{CellPrefix: "r2."})
	p.handshake()
	p.openSession("s1")
	id, cellID := p.start(&protocol.Exec{Session: "s1", Source: `return 1`})
	assert.Equal(t, "r2.c1", cellID)
	res, _ := p.result(id)
	assert.Equal(t, "r2.c1", res.Cell)
}
