package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// onReader reports whether the calling goroutine is the connection's
// reader.
func onReader() bool {
	buf := make([]byte, 64<<10)
	return strings.Contains(string(buf[:runtime.Stack(buf, false)]), "bridge.(*Conn).readLoop")
}

func TestSequentialCallsRunInlineOnTheReader(t *testing.T) {
	var inline, calls atomic.Int64
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		calls.Add(1)
		if onReader() {
			inline.Add(1)
		}
		return call.Input, nil
	})
	s, err := startClient(t, x).OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(context.Background(), ExecRequest{Tools: []protocol.ToolDef{tool("echo")},
		Source: `let s = 0; for (let i = 0; i < 20; i++) s += (await tools.echo({i})).i; return s`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "190", res.Items[0].Text)
	assert.Equal(t, int64(20), calls.Load())
	assert.Equal(t, int64(20), inline.Load(), "a call that comes alone needs no goroutine of its own")
}

// TestInlineCallThatBlocksHandsTheReaderOn: the first call arrives alone
// and runs inline, then waits for the second, which the host sends 20 ms
// later; only a new reader can read it.
func TestInlineCallThatBlocksHandsTheReaderOn(t *testing.T) {
	second := make(chan struct{})
	var firstInline atomic.Bool
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		switch call.Name {
		case "first":
			firstInline.Store(onReader())
			select {
			case <-second:
				return json.RawMessage(`"first"`), nil
			case <-time.After(10 * time.Second):
				return nil, errors.New("the second call never came: nobody read it")
			}
		default:
			close(second)
			return json.RawMessage(`"second"`), nil
		}
	})
	s, err := startClient(t, x).OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	res, err := s.Exec(context.Background(), ExecRequest{Tools: []protocol.ToolDef{tool("first"), tool("second")}, Yield: time.Minute,
		Source: `const p = tools.first({}); await new Promise(r => setTimeout(r, 20)); return [await tools.second({}), await p]`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, `["second","first"]`, res.Items[0].Text)
	assert.True(t, firstInline.Load(), "the blocking call ran inline, so the hand-off was needed")
}

// TestExecutorUsingTheConnFromAnInlineCall: a tool that runs a cell of its
// own on the same connection waits for replies only a reader can deliver.
// The watchdog is slowed to a minute, so only the hand-off a request makes
// can let the inner cell finish within the Exec's deadline.
func TestExecutorUsingTheConnFromAnInlineCall(t *testing.T) {
	defer func(d time.Duration) { inlineWatchPeriod = d }(inlineWatchPeriod)
	inlineWatchPeriod = time.Minute
	var c *Client
	var inner *Session
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		if call.Name == "echo" {
			return call.Input, nil
		}
		if !onReader() {
			return nil, errors.New("expected to run inline")
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err := inner.Exec(ctx, ExecRequest{Tools: []protocol.ToolDef{tool("echo")}, Source: `return (await tools.echo({v: 41})).v + 1`})
		if err != nil {
			return nil, err
		}
		return json.RawMessage(res.Items[0].Text), nil
	})
	c = startClient(t, x)
	ctx := context.Background()
	outer, err := c.OpenSession(ctx, "outer", nil)
	require.NoError(t, err)
	inner, err = c.OpenSession(ctx, "inner", nil)
	require.NoError(t, err)
	res, err := outer.Exec(ctx, ExecRequest{Tools: []protocol.ToolDef{tool("nested")}, Yield: time.Minute,
		Source: `return await tools.nested({})`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, "42", res.Items[0].Text)
}

// TestExecutorEndingItsGoroutineInlineLeavesTheConnWorking: an executor
// that calls runtime.Goexit (t.FailNow in a test's executor does) ends the
// reader goroutine it ran on; the watchdog starts another.
func TestExecutorEndingItsGoroutineInlineLeavesTheConnWorking(t *testing.T) {
	x := ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
		if call.Name == "quit" {
			runtime.Goexit()
		}
		return call.Input, nil
	})
	s, err := startClient(t, x).OpenSession(context.Background(), "s1", &protocol.Limits{WallTimeMS: 200})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tools := []protocol.ToolDef{tool("quit"), tool("echo")}
	res, err := s.Exec(ctx, ExecRequest{Tools: tools, Yield: time.Minute, Source: `await tools.quit({})`})
	require.NoError(t, err)
	assert.Equal(t, protocol.StatusTimedOut, res.Status, "the call is never answered")
	res, err = s.Exec(ctx, ExecRequest{Tools: tools, Source: `return (await tools.echo({v: 7})).v`})
	require.NoError(t, err, "the connection still reads")
	assert.Equal(t, "7", res.Items[0].Text)
}
