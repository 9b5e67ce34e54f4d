package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/codemode-host/codemode-host/protocol"
)

// Fault-injection tests: hostile scripts and failures against the real
// codemode-host binary through Start (or `codemode-host stdio`). Each
// checks the documented status and message, that another session on the
// same host keeps working, and that no goroutine is left behind.

// faultTools answers "echo" with its input, blocks "block" until its
// context ends (counting starts and cancellations), and kills the host
// on "crash".
type faultTools struct {
	client    atomic.Pointer[Client]
	started   atomic.Int64
	cancelled atomic.Int64
	crashed   chan time.Time
}

func newFaultTools() *faultTools { return &faultTools{crashed: make(chan time.Time, 1)} }

func (f *faultTools) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	switch call.Name {
	case "block":
		f.started.Add(1)
		<-ctx.Done()
		f.cancelled.Add(1)
		return nil, ctx.Err()
	case "crash":
		pid := f.client.Load().Pid()
		f.crashed <- time.Now()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return call.Input, nil
}

var faultToolDefs = []protocol.ToolDef{tool("echo"), tool("block"), tool("crash")}

// startFaultClient starts a client on the real binary and checks, after
// it is closed, that the test left no goroutine behind.
func startFaultClient(t *testing.T, f *faultTools, host ...protocol.Limits) *Client {
	t.Helper()
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // runs after Close below
	cfg := Config{HostPath: hostBin, Executor: f}
	if len(host) > 0 {
		cfg.HostLimits = &host[0]
	}
	c, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	f.client.Store(c)
	t.Cleanup(func() { c.Close(0) })
	return c
}

// canary runs small cells with a tool call in its own session until
// stop is called; stop fails the test unless every one of them completed
// (at least one).
func canary(t *testing.T, c *Client) (stop func()) {
	t.Helper()
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "canary", nil)
	require.NoError(t, err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var ok, bad atomic.Int64
	var firstErr atomic.Value
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			res, err := s.Exec(ctx, ExecRequest{Tools: faultToolDefs, Yield: time.Minute,
				Source: fmt.Sprintf(`return (await tools.echo({i: %d})).i`, i)})
			if err == nil && res.Status == protocol.StatusCompleted && res.Items[0].Text == strconv.Itoa(i) {
				ok.Add(1)
			} else {
				bad.Add(1)
				firstErr.CompareAndSwap(nil, fmt.Sprintf("err=%v res=%+v", err, res))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			assert.Positive(t, ok.Load(), "the other session ran cells meanwhile")
			assert.Zero(t, bad.Load(), "the other session's cells all completed: %v", firstErr.Load())
		})
	}
	t.Cleanup(stop) // when the test fails first
	return stop
}

func TestFaultKill9MidToolCall(t *testing.T) {
	f := newFaultTools()
	c := startFaultClient(t, f)
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	other, err := c.OpenSession(ctx, "s2", nil)
	require.NoError(t, err)
	res, err := s.Exec(ctx, ExecRequest{Source: `store("k", {v: 7}); return 1`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	res, err = other.Exec(ctx, ExecRequest{Source: `store("o", "other"); return 1`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	// A yielded cell on the host that is about to die.
	lost, err := other.Exec(ctx, ExecRequest{Tools: faultToolDefs, Yield: 20 * time.Millisecond, Source: `await tools.block({})`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, lost.Status)
	// The yield can come before the call reaches the tool on a loaded
	// machine; the host dies only once the tool holds it.
	require.Eventually(t, func() bool { return f.started.Load() == 1 }, 10*time.Second, time.Millisecond,
		"the blocked tool call started")
	oldPid := c.Pid()

	_, err = s.Exec(ctx, ExecRequest{Tools: faultToolDefs, Source: `await tools.crash({})`})
	<-f.crashed
	require.ErrorIs(t, err, ErrHostDied)
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "signal: killed", died.Exit)
	assert.Contains(t, err.Error(), "bridge: the host died (signal: killed)")
	assert.Contains(t, err.Error(), "the next call starts a new host")

	// The old cell id is refused, naming the restart; the stores are back.
	_, err = other.Wait(ctx, lost.Cell, time.Second)
	require.ErrorIs(t, err, ErrCellLost)
	assert.EqualError(t, err, fmt.Sprintf("bridge: cell %s of session \"s2\" belonged to a host that died (signal: killed) and was restarted; its result is lost", lost.Cell))
	_, err = other.Terminate(ctx, lost.Cell)
	require.ErrorIs(t, err, ErrCellLost)
	assert.NotEqual(t, oldPid, c.Pid())
	require.Eventually(t, func() bool { return f.cancelled.Load() == 1 }, 10*time.Second, 5*time.Millisecond,
		"the blocked tool call's context was cancelled")

	res, err = s.Exec(ctx, ExecRequest{Source: `return load("k").v`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "7", res.Items[0].Text)
	res, err = other.Exec(ctx, ExecRequest{Source: `return load("o")`})
	require.NoError(t, err)
	assert.Equal(t, `other`, res.Items[0].Text)
	assert.NotEqual(t, lost.Cell, res.Cell, "a new host's cell ids never reuse a dead host's")
}

func TestFaultInfiniteLoopTimesOutOthersKeepWorking(t *testing.T) {
	c := startFaultClient(t, newFaultTools())
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", &protocol.Limits{WallTimeMS: 500})
	require.NoError(t, err)
	stop := canary(t, c)
	res, err := s.Exec(ctx, ExecRequest{Source: `while (true) {}`, Yield: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	require.NotNil(t, res.Error)
	assert.Equal(t, "TimeoutError", res.Error.Name)
	stop()

	// Terminated by the parent instead.
	res, err = s.Exec(ctx, ExecRequest{Source: `text("spinning"); while (true) {}`, Yield: 20 * time.Millisecond, Limits: &protocol.Limits{WallTimeMS: 60_000}})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, res.Status)
	res, err = s.Terminate(ctx, res.Cell)
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTerminated, res.Status)
	_, err = s.Wait(ctx, res.Cell, time.Second)
	assert.ErrorIs(t, err, &protocol.ProtocolError{Code: protocol.ErrCodeUnknownCell})
}

func TestFault10000PendingToolCallsThenTerminate(t *testing.T) {
	f := newFaultTools()
	c := startFaultClient(t, f, protocol.Limits{ConcurrentToolCalls: 10_000})
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	stop := canary(t, c)
	res, err := s.Exec(ctx, ExecRequest{Tools: faultToolDefs, Yield: 50 * time.Millisecond,
		Source: `await Promise.all(Array.from({length: 10000}, (_, i) => tools.block({i})))`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, res.Status)
	require.Eventually(t, func() bool { return f.started.Load() == 10_000 }, 30*time.Second, 10*time.Millisecond,
		"all 10,000 calls reach the parent (%d did)", f.started.Load())
	start := time.Now()
	final, err := s.Terminate(ctx, res.Cell)
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTerminated, final.Status)
	require.Eventually(t, func() bool { return f.cancelled.Load() == 10_000 }, 30*time.Second, 10*time.Millisecond,
		"every call's context is cancelled (%d were)", f.cancelled.Load())
	t.Logf("terminate with 10,000 pending tool calls: all cancelled in %v", time.Since(start))
	stop()
}

func TestFaultToolThatNeverAnswers(t *testing.T) {
	f := newFaultTools()
	c := startFaultClient(t, f)
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", &protocol.Limits{WallTimeMS: 300})
	require.NoError(t, err)
	stop := canary(t, c)
	res, err := s.Exec(ctx, ExecRequest{Tools: faultToolDefs, Yield: time.Minute, Source: `text("asking"); await tools.block({})`})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	assert.Equal(t, "asking", res.Items[0].Text)
	require.Eventually(t, func() bool { return f.cancelled.Load() == 1 }, 5*time.Second, 5*time.Millisecond)
	stop()
}

func TestFaultNotifyFlood(t *testing.T) {
	c := startFaultClient(t, newFaultTools())
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	stop := canary(t, c)
	var notes atomic.Int64
	res, err := s.Exec(ctx, ExecRequest{Yield: time.Minute, OnEvent: func(e Event) {
		if e.Kind == EventNotify {
			notes.Add(1)
		}
	}, Source: `for (;;) notify("flood")`})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusFailed, res.Status)
	require.NotNil(t, res.Error)
	assert.Equal(t, "RangeError", res.Error.Name)
	assert.Contains(t, res.Error.Message, "limit of 1000 notifications")
	assert.Equal(t, int64(1000), notes.Load())
	stop()
}

func TestFaultDeepRecursion(t *testing.T) {
	c := startFaultClient(t, newFaultTools())
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	stop := canary(t, c)
	for _, src := range []string{
		`function f(n) { return f(n + 1) + 1 } f(0)`,
		`const o = {}; o.toString = () => "" + o; String(o)`,
		`async function f() { await f() } await f()`,
	} {
		res, err := s.Exec(ctx, ExecRequest{Source: src, Yield: time.Minute})
		require.NoError(t, err)
		assert.Equal(t, protocol.StatusFailed, res.Status, src)
		if assert.NotNil(t, res.Error, src) {
			assert.Equal(t, "RangeError", res.Error.Name, src)
			assert.Contains(t, res.Error.Message, "Maximum call stack size exceeded", src)
		}
	}
	res, err := s.Exec(ctx, ExecRequest{Source: `return 3`})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusCompleted, res.Status)
	stop()
}

// TestFaultLateAnswerToCancelledCall plays a parent, over `codemode-host
// stdio`, that answers a tool call after the host cancelled it: the host
// ignores the answer and keeps serving.
func TestFaultLateAnswerToCancelledCall(t *testing.T) {
	cmd := exec.Command(hostBin, "stdio")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	out := protocol.NewSender(stdin, 0)
	fr := protocol.NewFrameReader(stdout, 0)
	next := func() protocol.Message {
		m, err := fr.ReadMessage()
		require.NoError(t, err)
		return m
	}
	defer func() {
		out.Close()
		stdin.Close()
		assert.NoError(t, cmd.Wait(), "the host exits 0 at the end of its input")
	}()
	require.NoError(t, out.Send(&protocol.Hello{ID: 1, Versions: protocol.SupportedVersions}))
	require.IsType(t, &protocol.HelloOK{}, next())
	require.NoError(t, out.Send(&protocol.OpenSession{ID: 2, Session: "s1"}))
	require.IsType(t, &protocol.SessionOpened{}, next())
	require.NoError(t, out.Send(&protocol.Exec{ID: 3, Session: "s1", Tools: []protocol.ToolDef{tool("slow")},
		Limits: &protocol.Limits{WallTimeMS: 200}, Source: `await tools.slow({})`}))
	var call *protocol.ToolCallRequest
	var cancelled, closed bool
	var res *protocol.CellResult
	for !closed {
		switch m := next().(type) {
		case *protocol.ToolCallRequest:
			call = m
		case *protocol.ToolCancelled:
			cancelled = true
		case *protocol.CellResult:
			res = m
		case *protocol.CellClosed:
			closed = true
		}
	}
	require.NotNil(t, call)
	assert.True(t, cancelled, "tool.cancelled when the cell timed out")
	require.NotNil(t, res)
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	// Answer late, twice, then check the host still serves.
	require.NoError(t, out.Send(&protocol.ToolResult{ID: call.ID, Value: json.RawMessage(`{"late":true}`)}))
	require.NoError(t, out.Send(&protocol.ToolResult{ID: call.ID, Error: &protocol.ToolError{Code: protocol.CodeToolFailed, Message: "late"}}))
	require.NoError(t, out.Send(&protocol.Exec{ID: 4, Session: "s1", Source: `return 4`}))
	for {
		if r, ok := next().(*protocol.CellResult); ok {
			assert.Equal(t, uint64(4), r.ID)
			assert.Equal(t, protocol.StatusCompleted, r.Status)
			break
		}
	}
}

// TestFaultGiantAllocationKillsTheHostWhichRestarts: one giant allocation
// aborts V8 (DESIGN §8: the near-heap-limit callback cannot save it). The
// bridge reports the death with its cause and the next call gets a new
// host with the session's store.
func TestFaultGiantAllocationKillsTheHostWhichRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("V8 spends ~20s in last-resort GCs before it aborts")
	}
	c := startFaultClient(t, newFaultTools())
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", &protocol.Limits{HeapMiB: 64})
	require.NoError(t, err)
	res, err := s.Exec(ctx, ExecRequest{Source: `store("k", 1); return 1`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	oldPid := c.Pid()
	// The last-resort GCs take about 20 s here, over a minute on a loaded
	// machine: a long yield time lets the death, not a yield, end the exec.
	_, err = s.Exec(ctx, ExecRequest{Source: `const a = new Array(2e8).fill(0); return a.length`, Yield: 10 * time.Minute})
	require.ErrorIs(t, err, ErrHostDied)
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "exit status 2", died.Exit)
	assert.Contains(t, died.Cause, "Fatal javascript OOM")
	assert.Contains(t, err.Error(), "bridge: the host died (exit status 2: Fatal javascript OOM")
	res, err = s.Exec(ctx, ExecRequest{Source: `return load("k")`})
	require.NoError(t, err)
	assert.Equal(t, "1", res.Items[0].Text)
	assert.NotEqual(t, oldPid, c.Pid())
}

// faultParentEnv makes the test binary play a parent: it starts a host
// (the binary named by the variable), prints the host's pid and waits to
// be killed.
const faultParentEnv = "BRIDGE_FAULT_PARENT_HOST"

func runFaultParent(hostPath string) int {
	c, err := Start(context.Background(), Config{HostPath: hostPath, Executor: echo})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(c.Pid())
	time.Sleep(time.Hour) // until the test kills us
	return 0
}

func TestFaultParentDeathTakesTheHostWithIt(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), faultParentEnv+"="+hostBin)
	out, err := parent.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, parent.Start())
	var pid int
	_, err = fmt.Fscan(out, &pid)
	require.NoError(t, err)
	require.Positive(t, pid)
	require.NoError(t, syscall.Kill(pid, 0), "the host runs")

	start := time.Now()
	require.NoError(t, parent.Process.Kill())
	_ = parent.Wait()
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true // gone and reaped
		}
		// "pid (comm) state ...": a zombie has exited.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		return len(f) > 0 && f[0] == "Z"
	}, 10*time.Second, 5*time.Millisecond, "the host outlived its parent")
	t.Logf("host %d gone %v after its parent was killed", pid, time.Since(start))
}

// TestFaultStuckCellIsReportedAndTheHostRestarts: a cell stopped inside a
// long builtin that does not end within the host's StuckAfter (1ns here,
// 5s by default) is reported with its status and StuckError, the host
// exits 3, and the next call gets a new host.
func TestFaultStuckCellIsReportedAndTheHostRestarts(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) })
	c, err := Start(context.Background(), Config{HostPath: hostBin, Executor: echo, Env: []string{"CODEMODE_HOST_STUCK_AFTER=1ns"}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(0) })
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(ctx, ExecRequest{Source: `store("k", 5); return 1`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	oldPid := c.Pid()
	// V8 does not check for termination inside Array.prototype.sort: a
	// million numbers sorted as strings take about 0.85 s, after about 0.1
	// s of Array.from, so the wall-time limit lands in the sort.
	res, err = s.Exec(ctx, ExecRequest{Limits: &protocol.Limits{WallTimeMS: 500}, Yield: time.Minute,
		Source: `const b = Array.from({length: 1e6}, (_, i) => (i * 7919) % 1e6); while (true) b.sort()`})
	if err != nil {
		// The host exited before the bridge read the result.
		require.ErrorIs(t, err, ErrHostDied)
		assert.Contains(t, err.Error(), "exit status 3")
	} else {
		assert.Equal(t, protocol.StatusTimedOut, res.Status)
		require.NotNil(t, res.Error)
		require.Equal(t, protocol.ErrorNameStuck, res.Error.Name, "%+v", res.Error)
		assert.Contains(t, res.Error.Message, "stuck inside V8")
	}
	res, err = s.Exec(ctx, ExecRequest{Source: `return load("k")`})
	require.NoError(t, err)
	assert.Equal(t, "5", res.Items[0].Text)
	assert.NotEqual(t, oldPid, c.Pid())
}
