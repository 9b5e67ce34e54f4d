package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/protocol"
)

// hostBin is the real codemode-host binary, built once for these tests
// (internal/testhost; its Env names a prebuilt one instead).
var hostBin string

func TestMain(m *testing.M) {
	if path := os.Getenv(faultParentEnv); path != "" {
		os.Exit(runFaultParent(path))
	}
	if os.Getenv(fakeHostEnv) != "" {
		os.Exit(runFakeHost())
	}
	os.Exit(testhost.Run(func() int {
		hostBin, _ = testhost.Path()
		code := m.Run()
		if code == 0 {
			// Every host was shut down and every goroutine of the bridge ended.
			if err := goleak.Find(); err != nil {
				fmt.Fprintln(os.Stderr, "goroutine leak:", err)
				code = 1
			}
		}
		return code
	}))
}

// echo answers every call with its input; "fail" fails with code denied.
var echo = ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	if call.Name == "fail" {
		return nil, &protocol.ToolError{Code: protocol.CodeDenied, Message: "not allowed"}
	}
	return call.Input, nil
})

func tool(name string) protocol.ToolDef {
	return protocol.ToolDef{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func startClient(t *testing.T, x ToolExecutor) *Client {
	t.Helper()
	c, err := Start(context.Background(), Config{HostPath: hostBin, Executor: x})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(0) })
	return c
}

func TestStartRunsCellWithToolCalls(t *testing.T) {
	c := startClient(t, echo)
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(ctx, ExecRequest{Tools: []protocol.ToolDef{tool("echo"), tool("fail")},
		Source: `const r = await tools.echo({a: 1});
let code; try { await tools.fail({}) } catch (e) { code = e.code }
return [r.a, code]`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, `[1,"denied"]`, res.Items[0].Text)
	assert.Equal(t, 2, res.Stats.ToolCalls)
	require.NoError(t, c.Close(time.Second))
	_, err = s.Exec(ctx, ExecRequest{Source: "1"})
	assert.ErrorIs(t, err, ErrClosed)
}

func TestPromiseAllOfManyCallsRunsConcurrently(t *testing.T) {
	var mu sync.Mutex
	inFlight, peak := 0, 0
	gate := make(chan struct{})
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		if inFlight == 50 {
			close(gate)
		}
		mu.Unlock()
		<-gate // all 50 must be in flight together before any returns
		mu.Lock()
		inFlight--
		mu.Unlock()
		return call.Input, nil
	})
	c := startClient(t, x)
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(context.Background(), ExecRequest{Tools: []protocol.ToolDef{tool("t")},
		Source: `return (await Promise.all(Array.from({length: 50}, (_, i) => tools.t({i})))).length`})
	require.NoError(t, err)
	assert.Equal(t, "50", res.Items[0].Text)
	assert.Equal(t, 50, peak)
}

func TestStreamedOutputAndNotifyReachOnEvent(t *testing.T) {
	c := startClient(t, echo)
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	var events []Event
	res, err := s.Exec(context.Background(), ExecRequest{Stream: true,
		Source:  `notify("starting"); text("one"); text("two")`,
		OnEvent: func(e Event) { events = append(events, e) }})
	require.NoError(t, err)
	assert.Len(t, res.Items, 2)
	require.Len(t, events, 3)
	assert.Equal(t, EventNotify, events[0].Kind)
	assert.Equal(t, "starting", events[0].Text)
	assert.Equal(t, "two", events[2].Items[0].Text)
}

func TestToolContextIsCancelledWhenTheCellEnds(t *testing.T) {
	cancelled := make(chan error, 1)
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	})
	c := startClient(t, x)
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(context.Background(), ExecRequest{Tools: []protocol.ToolDef{tool("slow")},
		Limits: &protocol.Limits{WallTimeMS: 200}, Source: `await tools.slow({})`})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	select {
	case err := <-cancelled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the tool's context was not cancelled after the cell ended")
	}
}

func TestExecContextEndTerminatesTheCell(t *testing.T) {
	c := startClient(t, echo)
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := s.Exec(ctx, ExecRequest{Source: `while (true) {}`, Yield: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTerminated, res.Status)
}

func TestYieldThenWait(t *testing.T) {
	release := make(chan struct{})
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		<-release
		return json.RawMessage(`"late"`), nil
	})
	c := startClient(t, x)
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(context.Background(), ExecRequest{Tools: []protocol.ToolDef{tool("wait")}, Yield: 50 * time.Millisecond,
		Source: `text("early"); return await tools.wait({})`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, res.Status)
	assert.Equal(t, "early", res.Items[0].Text)
	close(release)
	final, err := s.Wait(context.Background(), res.Cell, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusCompleted, final.Status)
	assert.Equal(t, "late", final.Items[0].Text)
}

func TestHostDeathFailsPendingCallsAndNextUseRestarts(t *testing.T) {
	var c *Client
	toolCtxDone := make(chan struct{})
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		if call.Name == "crash" {
			assert.NoError(t, syscall.Kill(c.Pid(), syscall.SIGKILL)) // not require: this is not the test goroutine
			<-ctx.Done()
			close(toolCtxDone)
			return nil, ctx.Err()
		}
		return call.Input, nil
	})
	c = startClient(t, x)
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(ctx, ExecRequest{Source: `store("k", {v: 7}); return 1`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	firstPid := c.Pid()

	_, err = s.Exec(ctx, ExecRequest{Tools: []protocol.ToolDef{tool("crash")}, Source: `await tools.crash({})`})
	require.ErrorIs(t, err, ErrHostDied)
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "signal: killed", died.Exit)
	assert.Contains(t, err.Error(), "the next call starts a new host")
	<-toolCtxDone // the in-flight tool call was cancelled

	res, err = s.Exec(ctx, ExecRequest{Source: `return load("k").v`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "7", res.Items[0].Text, "the store was restored on the new host")
	assert.NotEqual(t, firstPid, c.Pid())
}

// stdioPair runs `codemode-host stdio` and returns a Conn over its pipes.
func stdioPair(t testing.TB, x ToolExecutor) (*Conn, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(hostBin, "stdio")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	conn, err := NewConn(stdout, stdin, ConnConfig{Executor: x})
	require.NoError(t, err)
	t.Cleanup(func() {
		conn.Close(0)
		_ = cmd.Wait()
	})
	return conn, cmd
}

func TestNewConnOverStdioPipes(t *testing.T) {
	conn, cmd := stdioPair(t, echo)
	assert.Regexp(t, `^10\.9\.`, conn.Hello().V8Version)
	ctx := context.Background()
	_, err := conn.OpenSession(ctx, "s1", nil, nil)
	require.NoError(t, err)
	_, err = conn.OpenSession(ctx, "s1", nil, nil)
	assert.ErrorIs(t, err, &protocol.ProtocolError{Code: protocol.ErrCodeSessionExists})
	require.NoError(t, conn.Ping(ctx))
	res, err := conn.Exec(ctx, "s1", ExecRequest{Tools: []protocol.ToolDef{tool("echo")}, Source: `return (await tools.echo({x: "y"})).x`})
	require.NoError(t, err)
	assert.Equal(t, "y", res.Items[0].Text)

	require.NoError(t, conn.Close(time.Second))
	require.NoError(t, cmd.Wait(), "the host exits 0 after shutdown")
	assert.ErrorIs(t, conn.Err(), ErrClosed)
}

func TestHostExitFailsPendingRequestOnConn(t *testing.T) {
	called := make(chan struct{})
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		close(called)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	conn, cmd := stdioPair(t, x)
	ctx := context.Background()
	_, err := conn.OpenSession(ctx, "s1", nil, nil)
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "s1", ExecRequest{Tools: []protocol.ToolDef{tool("b")}, Source: `await tools.b({})`, Yield: time.Minute})
		errc <- err
	}()
	<-called // the exec and its tool call are in flight
	require.NoError(t, cmd.Process.Kill())
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, ErrHostDied)
	case <-time.After(5 * time.Second):
		t.Fatal("the pending exec did not fail when the host died")
	}
}

func TestSessionCloseTerminatesItsCells(t *testing.T) {
	c := startClient(t, echo)
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(ctx, ExecRequest{Source: `text("x"); while (true) {}`, Yield: 20 * time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, res.Status)
	require.NoError(t, s.Close(ctx))
	_, err = s.Wait(ctx, res.Cell, time.Second)
	assert.ErrorIs(t, err, &protocol.ProtocolError{Code: protocol.ErrCodeUnknownSession})
	s2, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err, "the id is free again")
	_, err = s2.Exec(ctx, ExecRequest{Source: `return 1`})
	require.NoError(t, err)
}

func TestManyCellsInManySessionsAtOnce(t *testing.T) {
	c := startClient(t, echo)
	ctx := context.Background()
	var wg sync.WaitGroup
	for si := range 4 {
		s, err := c.OpenSession(ctx, fmt.Sprintf("s%d", si), nil)
		require.NoError(t, err)
		for ci := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				want := si*100 + ci
				res, err := s.Exec(ctx, ExecRequest{Tools: []protocol.ToolDef{tool("echo")}, Stream: true,
					OnEvent: func(e Event) { assert.Equal(t, s.ID(), e.Session) },
					Source:  fmt.Sprintf(`let s = 0; for (let i = 0; i < 20; i++) s += (await tools.echo({v: %d})).v; text("ok"); return s / 20`, want)})
				if assert.NoError(t, err) && assert.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error) {
					assert.Equal(t, fmt.Sprint(want), res.Items[1].Text)
				}
			}()
		}
	}
	wg.Wait()
}
