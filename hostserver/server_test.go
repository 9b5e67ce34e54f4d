package hostserver

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// parent is a test parent connected to a Serve over a pipe (an os.Pipe,
// as in the host, so the input can be lent to loops; see baton) and an
// io.Pipe back: real framing, a real runtime, real V8.
type parent struct {
	t      *testing.T
	in     *os.File // parent → host
	out    *protocol.Sender
	frames chan protocol.Message
	done   chan error // Serve's result
	srv    *server
	nextID uint64
}

func startHost(t *testing.T, cfg Config) *parent {
	t.Helper()
	return startHostWriting(t, cfg, nil)
}

// startHostWriting is startHost with the host's output wrapped by wrap
// (nil: not wrapped).
func startHostWriting(t *testing.T, cfg Config, wrap func(io.Writer) io.Writer) *parent {
	t.Helper()
	hostIn, parentOut, err := os.Pipe()
	require.NoError(t, err)
	parentIn, pipeOut := io.Pipe()
	var hostOut io.Writer = pipeOut
	if wrap != nil {
		hostOut = wrap(pipeOut)
	}
	p := &parent{t: t, in: parentOut, out: protocol.NewSender(parentOut, 0),
		frames: make(chan protocol.Message, 1024), done: make(chan error, 1)}
	// What Serve does, keeping the server for tests that look inside.
	p.srv = newServer(hostOut, cfg)
	go func() {
		err := p.srv.serve(hostIn)
		p.srv.stop()
		p.done <- err
	}()
	go func() {
		defer close(p.frames)
		fr := protocol.NewFrameReader(parentIn, protocol.HardMaxFrame)
		for {
			m, err := fr.ReadMessage()
			if err != nil {
				return
			}
			p.frames <- m
		}
	}()
	t.Cleanup(func() {
		parentOut.Close()
		p.out.Close()
		for range p.frames {
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its input closed")
		}
		hostIn.Close()
	})
	return p
}

func (p *parent) id() uint64 { p.nextID++; return p.nextID }

func (p *parent) send(m protocol.Message) {
	p.t.Helper()
	require.NoError(p.t, p.out.Send(m))
}

// next returns the next frame from the host.
func (p *parent) next() protocol.Message {
	p.t.Helper()
	select {
	case m, ok := <-p.frames:
		require.True(p.t, ok, "the host closed its output")
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no frame from the host within 10s")
		return nil
	}
}

// expect returns the next frame, which must be a T.
func expect[T protocol.Message](p *parent) T {
	p.t.Helper()
	m := p.next()
	v, ok := m.(T)
	require.True(p.t, ok, "got %T %+v", m, m)
	return v
}

func (p *parent) handshake() *protocol.HelloOK {
	p.t.Helper()
	p.send(&protocol.Hello{ID: p.id(), Versions: []uint32{1}, Capabilities: []string{protocol.CapStreamOutput}})
	return expect[*protocol.HelloOK](p)
}

func (p *parent) openSession(name string) {
	p.t.Helper()
	p.send(&protocol.OpenSession{ID: p.id(), Session: name})
	ok := expect[*protocol.SessionOpened](p)
	require.Equal(p.t, name, ok.Session)
}

// exec sends an exec and returns its id and the cell id.
func (p *parent) exec(m *protocol.Exec) (uint64, string) {
	p.t.Helper()
	m.ID = p.id()
	p.send(m)
	st := expect[*protocol.ExecStarted](p)
	require.Equal(p.t, m.ID, st.ID)
	return m.ID, st.Cell
}

var echoTool = protocol.ToolDef{Name: "echo", Description: "Echo the input.", InputSchema: json.RawMessage(`{"type":"object"}`)}

func TestHandshakeReportsV8VersionLimitsAndCapabilities(t *testing.T) {
	p := startHost(t, Config{HostVersion: "1.2.3"})
	ok := p.handshake()
	assert.Equal(t, protocol.Version1, ok.Version)
	assert.Equal(t, []string{protocol.CapStreamOutput}, ok.Capabilities)
	assert.Regexp(t, `^\d+\.\d+\.`, ok.V8Version)
	assert.Equal(t, "1.2.3", ok.HostVersion)
	assert.Equal(t, protocol.DefaultLimits, ok.Limits)
}

func TestHandshakeRejectsNoCommonVersion(t *testing.T) {
	p := startHost(t, Config{})
	p.send(&protocol.Hello{ID: 1, Versions: []uint32{7}})
	rej := expect[*protocol.HelloRejected](p)
	assert.Equal(t, protocol.RejectNoCommonVersion, rej.Reason)
	assert.Equal(t, uint64(1), rej.ID)
	assert.ErrorIs(t, <-p.done, ErrRejected)
	p.done <- nil
}

func TestHandshakeRejectsMissingCapability(t *testing.T) {
	p := startHost(t, Config{})
	p.send(&protocol.Hello{ID: 1, Versions: []uint32{1}, Require: []string{"teleport"}})
	rej := expect[*protocol.HelloRejected](p)
	assert.Equal(t, protocol.RejectMissingCapability, rej.Reason)
	assert.Equal(t, "teleport", rej.Capability)
}

func TestMessageBeforeHelloGetsHandshakeRequired(t *testing.T) {
	p := startHost(t, Config{})
	p.send(&protocol.Ping{ID: 9})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeHandshakeRequired, e.Code)
	assert.Equal(t, uint64(9), e.ID)
	p.handshake()
}

func TestPingPong(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.send(&protocol.Ping{ID: 42})
	assert.Equal(t, uint64(42), expect[*protocol.Pong](p).ID)
}

func TestExecCallsToolAndCompletes(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `const r = await tools.echo({word: "hi"}); console.log("got", r.word); return r.word.length`})

	call := expect[*protocol.ToolCallRequest](p)
	assert.Equal(t, "echo", call.Name)
	assert.Equal(t, "s1", call.SessionID)
	assert.Equal(t, cellID, call.CellID)
	assert.JSONEq(t, `{"word":"hi"}`, string(call.Input))
	p.send(&protocol.ToolResult{ID: call.ID, Value: call.Input})

	res := expect[*protocol.CellResult](p)
	assert.Equal(t, execID, res.ID)
	assert.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []protocol.Item{{Type: "text", Text: "got hi", Level: "log"}, {Type: "text", Text: "2"}}, res.Items)
	assert.Equal(t, 1, res.Stats.ToolCalls)
	closed := expect[*protocol.CellClosed](p)
	assert.Equal(t, cellID, closed.Cell)
}

func TestToolErrorKeepsItsCode(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `try { await tools.echo({}) } catch (e) { return e.name + " " + e.code + " " + e.message }`})
	call := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.ToolResult{ID: call.ID, Error: &protocol.ToolError{Code: protocol.CodeDenied, Message: "no"}})
	res := expect[*protocol.CellResult](p)
	require.Len(t, res.Items, 1)
	assert.Equal(t, "ToolError denied no", res.Items[0].Text)
}

func TestManyConcurrentToolCallsAnsweredOutOfOrder(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `const rs = await Promise.all(Array.from({length: 100}, (_, i) => tools.echo({i}))); return rs.reduce((a, r) => a + r.i, 0)`})
	var calls []*protocol.ToolCallRequest
	for range 100 {
		calls = append(calls, expect[*protocol.ToolCallRequest](p))
	}
	for i := len(calls) - 1; i >= 0; i-- {
		p.send(&protocol.ToolResult{ID: calls[i].ID, Value: calls[i].Input})
	}
	res := expect[*protocol.CellResult](p)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "4950", res.Items[0].Text)
}

// tryCounter is a host output that also offers TryWrite, as the host's
// non-blocking pipe does, and counts the calls to it. Its TryWrite blocks
// like the io.Pipe under it, which the test parent drains all the time.
type tryCounter struct {
	io.WriteCloser
	tries atomic.Int64
}

func (c *tryCounter) TryWrite(p []byte) (int, error) {
	c.tries.Add(1)
	return c.Write(p)
}

// startCountingHost starts a host writing to a tryCounter, with session
// "s1" open.
func startCountingHost(t *testing.T) (*parent, *tryCounter) {
	var out *tryCounter
	p := startHostWriting(t, Config{}, func(w io.Writer) io.Writer { out = &tryCounter{WriteCloser: w.(io.WriteCloser)}; return out })
	p.handshake()
	p.openSession("s1")
	return p, out
}

func TestBurstOfToolCallsLeavesInFewWrites(t *testing.T) {
	p, out := startCountingHost(t)
	p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `const rs = await Promise.all(Array.from({length: 200}, (_, i) => tools.echo({i}))); return rs.length`})
	before := out.tries.Load()
	var calls []*protocol.ToolCallRequest
	for range 200 {
		calls = append(calls, expect[*protocol.ToolCallRequest](p))
	}
	assert.LessOrEqual(t, out.tries.Load()-before, int64(1),
		"the loop writes the turn's first call itself and leaves the other 199 to the writer goroutine")
	for _, c := range calls {
		p.send(&protocol.ToolResult{ID: c.ID, Value: c.Input})
	}
	res := expect[*protocol.CellResult](p)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "200", res.Items[0].Text)
}

func TestSequentialToolCallsLeaveFromTheLoop(t *testing.T) {
	p, out := startCountingHost(t)
	p.exec(&protocol.Exec{Session: "s1", Tools: []protocol.ToolDef{echoTool},
		Source: `let n = 0; for (let i = 0; i < 20; i++) n += (await tools.echo({i})).i; return n`})
	for range 20 {
		c := expect[*protocol.ToolCallRequest](p)
		p.send(&protocol.ToolResult{ID: c.ID, Value: c.Input})
	}
	res := expect[*protocol.CellResult](p)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "190", res.Items[0].Text)
	// Each awaited call is the first of its turn and is written at once,
	// unless the writer goroutine is still busy with an earlier frame.
	assert.GreaterOrEqual(t, out.tries.Load(), int64(15), "awaited calls are written by the loop itself")
}

func TestStreamSendsOutputBeforeResult(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", Stream: true, Source: `text("a"); text("b")`})
	assert.Equal(t, "a", expect[*protocol.Output](p).Items[0].Text)
	assert.Equal(t, "b", expect[*protocol.Output](p).Items[0].Text)
	res := expect[*protocol.CellResult](p)
	assert.Len(t, res.Items, 2)
}

func TestStreamedOutputOfATurnLeavesInFewWritesAndBeforeTheResult(t *testing.T) {
	p, out := startCountingHost(t)
	before := out.tries.Load()
	p.exec(&protocol.Exec{Session: "s1", Stream: true, Source: `for (let i = 0; i < 300; i++) console.log("line", i); return "done"`})
	for i := range 300 {
		assert.Equal(t, fmt.Sprintf("line %d", i), expect[*protocol.Output](p).Items[0].Text)
	}
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, "done", res.Items[len(res.Items)-1].Text)
	// exec.started, the first line, cell.result, cell.closed: a handful
	// of writes from the loop, not one per line.
	assert.LessOrEqual(t, out.tries.Load()-before, int64(8), "the loop wrote the turn's lines one by one")
}

func TestYieldThenWaitReturnsOnlyNewOutput(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	// yield_control() answers the exec with "before" whatever the
	// machine's load (a yield timer would race the script's first turn).
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `text("before"); yield_control(); await tools.echo({}); text("after"); return 1`})
	y, calls := p.result(execID)
	calls = p.withACall(calls)
	call := calls[0]

	assert.Equal(t, execID, y.ID)
	assert.Equal(t, protocol.StatusYielded, y.Status)
	assert.Equal(t, []protocol.Item{{Type: "text", Text: "before"}}, y.Items)

	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000})
	p.send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{}`)})
	// The wait returns as soon as there is new output; the rest comes
	// with the next wait.
	var items []protocol.Item
	for {
		res := expect[*protocol.CellResult](p)
		assert.Equal(t, waitID, res.ID)
		items = append(items, res.Items...)
		if res.Status != protocol.StatusYielded {
			assert.Equal(t, protocol.StatusCompleted, res.Status)
			break
		}
		waitID = p.id()
		p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID, YieldMS: 60_000})
	}
	assert.Equal(t, []protocol.Item{{Type: "text", Text: "after"}, {Type: "text", Text: "1"}}, items)
	expect[*protocol.CellClosed](p)

	p.send(&protocol.Wait{ID: p.id(), Session: "s1", Cell: cellID})
	assert.Equal(t, protocol.ErrCodeUnknownCell, expect[*protocol.ErrorReply](p).Code)
}

func TestWaitAfterCellFinishedUnwatchedGetsFinalResult(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	_, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 1, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); return "done"`})
	var call *protocol.ToolCallRequest
	for range 2 { // the yield may come before or after the tool call
		switch m := p.next().(type) {
		case *protocol.ToolCallRequest:
			call = m
		case *protocol.CellResult:
			assert.Equal(t, protocol.StatusYielded, m.Status)
		default:
			t.Fatalf("unexpected %T", m)
		}
	}
	require.NotNil(t, call)
	p.send(&protocol.ToolResult{ID: call.ID})
	// Whether the wait arrives before or after the cell ends, it gets the
	// final result.
	p.send(&protocol.Ping{ID: p.id()})
	expect[*protocol.Pong](p)
	// A wait that comes while the cell still runs may return the return
	// value as new output first (yielded); the next gets the end.
	var items []protocol.Item
	for {
		waitID := p.id()
		p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID})
		res := expect[*protocol.CellResult](p)
		assert.Equal(t, waitID, res.ID)
		items = append(items, res.Items...)
		if res.Status != protocol.StatusYielded {
			assert.Equal(t, protocol.StatusCompleted, res.Status)
			break
		}
	}
	require.NotEmpty(t, items)
	assert.Equal(t, "done", items[0].Text)
	expect[*protocol.CellClosed](p)
}

func TestCancelAnswersExecNowWithoutStoppingTheCell(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); return 7`})
	call := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.Cancel{Target: execID})
	y := expect[*protocol.CellResult](p)
	assert.Equal(t, protocol.StatusYielded, y.Status)
	waitID := p.id()
	p.send(&protocol.Wait{ID: waitID, Session: "s1", Cell: cellID})
	p.send(&protocol.ToolResult{ID: call.ID})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, protocol.StatusCompleted, res.Status)
	assert.Equal(t, "7", res.Items[0].Text)
}

func TestTerminateStopsCellAndCancelsPendingToolCalls(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({})`})
	call := expect[*protocol.ToolCallRequest](p)
	termID := p.id()
	p.send(&protocol.Terminate{ID: termID, Session: "s1", Cell: cellID})

	got := map[uint64]*protocol.CellResult{}
	var cancelled, closed bool
	for !closed {
		switch m := p.next().(type) {
		case *protocol.CellResult:
			got[m.ID] = m
		case *protocol.ToolCancelled:
			assert.Equal(t, call.ID, m.ID)
			cancelled = true
		case *protocol.CellClosed:
			closed = true
		default:
			t.Fatalf("unexpected %T", m)
		}
	}
	assert.True(t, cancelled, "tool.cancelled for the pending call")
	require.Contains(t, got, execID)
	require.Contains(t, got, termID)
	assert.Equal(t, protocol.StatusTerminated, got[termID].Status)
	assert.Equal(t, protocol.StatusTerminated, got[execID].Status)
	// A late result is ignored.
	p.send(&protocol.ToolResult{ID: call.ID})
	p.send(&protocol.Ping{ID: p.id()})
	expect[*protocol.Pong](p)
}

func TestWallTimeLimitTimesOut(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.send(&protocol.OpenSession{ID: p.id(), Session: "s1", Limits: &protocol.Limits{WallTimeMS: 100}})
	assert.Equal(t, uint64(100), expect[*protocol.SessionOpened](p).Limits.WallTimeMS)
	p.exec(&protocol.Exec{Session: "s1", Source: `while (true) {}`})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
}

func TestRequestErrors(t *testing.T) {
	p := startHost(t, Config{Limits: protocol.Limits{SourceBytes: 16}})
	p.handshake()
	p.openSession("s1")
	for _, tc := range []struct {
		m    protocol.Message
		code protocol.ErrorCode
	}{
		{&protocol.OpenSession{ID: 100, Session: "s1"}, protocol.ErrCodeSessionExists},
		{&protocol.Exec{ID: 101, Session: "nope", Source: "1"}, protocol.ErrCodeUnknownSession},
		{&protocol.Exec{ID: 102, Session: "s1", Source: "return 'this is far too long'"}, protocol.ErrCodeLimitExceeded},
		{&protocol.Exec{ID: 103, Session: "s1", Source: "1", Language: protocol.LangTS}, protocol.ErrCodeBadField},
		{&protocol.Wait{ID: 104, Session: "s1", Cell: "c99"}, protocol.ErrCodeUnknownCell},
		{&protocol.Hello{ID: 105, Versions: []uint32{1}}, protocol.ErrCodeUnexpected},
		{&protocol.Pong{ID: 106}, ""},
		{&protocol.CloseSession{ID: 107, Session: "zz"}, protocol.ErrCodeUnknownSession},
	} {
		p.send(tc.m)
		if tc.code == "" {
			continue
		}
		e := expect[*protocol.ErrorReply](p)
		assert.Equal(t, tc.code, e.Code, "%s: %s", tc.m.Type(), e.Message)
		assert.Equal(t, tc.m.(protocol.Request).RequestID(), e.ID)
	}
}

// rawFrame writes a frame body without checking it.
func rawFrame(t *testing.T, w io.Writer, body []byte) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(body)))
	_, err := w.Write(append(hdr[:], body...))
	require.NoError(t, err)
}

func TestBadMessageGetsErrorAndConnectionSurvives(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	// {t:"exec", id:5} — missing session and source.
	rawFrame(t, p.in, []byte{0x82, 0xa1, 't', 0xa4, 'e', 'x', 'e', 'c', 0xa2, 'i', 'd', 0x05})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeBadField, e.Code)
	assert.Equal(t, uint64(5), e.ID)
	// {t:"nope", id:6}
	rawFrame(t, p.in, []byte{0x82, 0xa1, 't', 0xa4, 'n', 'o', 'p', 'e', 0xa2, 'i', 'd', 0x06})
	assert.Equal(t, protocol.ErrCodeUnknownType, expect[*protocol.ErrorReply](p).Code)
	p.send(&protocol.Ping{ID: 7})
	expect[*protocol.Pong](p)
}

func TestBrokenFramingClosesTheConnection(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	_, err := p.in.Write([]byte{0, 0, 0, 0})
	require.NoError(t, err)
	assert.Equal(t, protocol.ErrCodeBadFrame, expect[*protocol.ErrorReply](p).Code)
	_, ok := <-p.frames
	assert.False(t, ok, "the host closes its output")
	err = <-p.done
	assert.True(t, protocol.IsFatal(err), "%v", err)
	p.done <- err
}

func TestShutdownTerminatesCellsAndClosesOutput(t *testing.T) {
	var told atomic.Bool
	p := startHost(t, Config{OnShutdown: func() { told.Store(true) }})
	p.handshake()
	p.openSession("s1")
	execID, _ := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Source: `while (true) {}`})
	p.send(&protocol.Shutdown{})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, execID, res.ID)
	assert.Equal(t, protocol.StatusTerminated, res.Status)
	expect[*protocol.CellClosed](p)
	_, ok := <-p.frames
	assert.False(t, ok, "the end of output acknowledges shutdown")
	require.NoError(t, <-p.done)
	p.done <- nil
	assert.True(t, told.Load(), "OnShutdown was called")
}

func TestCloseSessionTerminatesItsCells(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Source: `while (true) {}`})
	p.send(&protocol.CloseSession{ID: 50, Session: "s1"})
	assert.Equal(t, protocol.StatusTerminated, expect[*protocol.CellResult](p).Status)
	expect[*protocol.CellClosed](p)
	assert.Equal(t, uint64(50), expect[*protocol.SessionClosed](p).ID)
	p.send(&protocol.Exec{ID: 51, Session: "s1", Source: "1"})
	assert.Equal(t, protocol.ErrCodeUnknownSession, expect[*protocol.ErrorReply](p).Code)
}

func TestInputEOFEndsServeWithRunningCells(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Source: `while (true) {}`})
	p.in.Close()
	require.NoError(t, <-p.done)
	p.done <- nil
}

func TestNotifyIsSentAtOnce(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", Source: `notify("working"); return 1`})
	assert.Equal(t, "working", expect[*protocol.Notify](p).Text)
	assert.Equal(t, protocol.StatusCompleted, expect[*protocol.CellResult](p).Status)
}

func TestYieldControlAnswersExecEarly(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, _ := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `text("part 1"); yield_control(); await tools.echo({})`})
	var sawYield bool
	for !sawYield {
		switch m := p.next().(type) {
		case *protocol.CellResult:
			assert.Equal(t, execID, m.ID)
			assert.Equal(t, protocol.StatusYielded, m.Status)
			assert.Equal(t, "part 1", m.Items[0].Text)
			sawYield = true
		case *protocol.ToolCallRequest:
		default:
			t.Fatalf("unexpected %T", m)
		}
	}
}

func TestTypeScriptAndStoreWhenNegotiated(t *testing.T) {
	p := startHost(t, Config{})
	p.send(&protocol.Hello{ID: p.id(), Versions: []uint32{1}, Capabilities: []string{protocol.CapTypeScript, protocol.CapStore}})
	ok := expect[*protocol.HelloOK](p)
	assert.ElementsMatch(t, []string{protocol.CapTypeScript, protocol.CapStore}, ok.Capabilities)
	p.send(&protocol.OpenSession{ID: p.id(), Session: "s1", Store: []protocol.StoreEntry{{Key: "seen", Value: json.RawMessage(`[1,2]`)}}})
	expect[*protocol.SessionOpened](p)

	p.exec(&protocol.Exec{Session: "s1", Language: protocol.LangTS,
		Source: `const seen: number[] = load("seen"); store("count", seen.length + 1); return seen.length`})
	res := expect[*protocol.CellResult](p)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "2", res.Items[0].Text)
	require.Len(t, res.Store, 1)
	assert.Equal(t, "count", res.Store[0].Key)
	assert.JSONEq(t, `3`, string(res.Store[0].Value))
	expect[*protocol.CellClosed](p)

	p.exec(&protocol.Exec{Session: "s1", Source: `return load("count")`})
	assert.Equal(t, "3", expect[*protocol.CellResult](p).Items[0].Text)
}

func TestOutputBudgetTruncatesEachResult(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	p.exec(&protocol.Exec{Session: "s1", MaxOutputTokens: 10, Source: `for (let i = 0; i < 20; i++) text("line " + i)`})
	res := expect[*protocol.CellResult](p)
	assert.True(t, res.Truncated)
	assert.Equal(t, "line 0", res.Items[0].Text)
	assert.Equal(t, "line 19", res.Items[len(res.Items)-1].Text)
}

func TestShutdownGraceLetsCellsFinishAndRefusesNewWork(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, _ := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Tools: []protocol.ToolDef{echoTool},
		Source: `await tools.echo({}); return "finished"`})
	call := expect[*protocol.ToolCallRequest](p)
	p.send(&protocol.Shutdown{GraceMS: 60_000})
	p.send(&protocol.OpenSession{ID: 99, Session: "s2"})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeShuttingDown, e.Code)
	assert.Equal(t, uint64(99), e.ID)
	p.send(&protocol.ToolResult{ID: call.ID})
	res := expect[*protocol.CellResult](p)
	assert.Equal(t, execID, res.ID)
	assert.Equal(t, protocol.StatusCompleted, res.Status)
	assert.Equal(t, "finished", res.Items[0].Text)
	expect[*protocol.CellClosed](p)
	_, ok := <-p.frames
	assert.False(t, ok)
	require.NoError(t, <-p.done)
	p.done <- nil
}

func TestRequestIDStillInFlightIsRefused(t *testing.T) {
	p := startHost(t, Config{})
	p.handshake()
	p.openSession("s1")
	execID, cellID := p.exec(&protocol.Exec{Session: "s1", YieldMS: 60_000, Source: `while (true) {}`})
	p.send(&protocol.Wait{ID: execID, Session: "s1", Cell: cellID})
	e := expect[*protocol.ErrorReply](p)
	assert.Equal(t, protocol.ErrCodeDuplicateID, e.Code)
	assert.Equal(t, execID, e.ID)
	p.send(&protocol.Terminate{ID: p.id(), Session: "s1", Cell: cellID})
	assert.Equal(t, protocol.StatusTerminated, expect[*protocol.CellResult](p).Status)
}
