package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

var _ bridge.ToolExecutor = (*registry.Registry)(nil)
var _ bridge.ToolExecutor = (*registry.ToolSet)(nil)

func ctxBG() context.Context { return context.Background() }

func scriptCall(ns, name, input string) protocol.ToolCall {
	return protocol.ToolCall{SessionID: "s1", CellID: "c1", CallID: 7, Namespace: ns, Name: name,
		Kind: protocol.KindFunction, Input: json.RawMessage(input)}
}

func TestScriptsMayOnlyCallCodeModeTools(t *testing.T) {
	r := sixTools(t, registry.Config{})
	set := finalize(t, r, registry.ModeCodeMode)
	for name, code := range map[string]string{
		"direct":              "",
		"deferred":            "",
		"code_mode_only":      "",
		"direct_model_only":   protocol.CodeNotInCodeMode,
		"deferred_model_only": protocol.CodeNotInCodeMode,
		"hidden":              protocol.CodeNotInCodeMode,
		"exec":                protocol.CodeNotInCodeMode,
		"wait":                protocol.CodeNotInCodeMode,
		"tool_search":         protocol.CodeNotInCodeMode,
		"nope":                protocol.CodeUnknownTool,
	} {
		v, err := set.CallTool(ctxBG(), scriptCall("functions", name, `{"text":"hi"}`))
		if code == "" {
			require.NoError(t, err, name)
			assert.JSONEq(t, `{"text":"hi"}`, string(v))
			continue
		}
		te := toolErr(t, err)
		assert.Equal(t, code, te.Code, name)
		assert.Equal(t, name, te.Tool)
	}
	// The model (or the agent) may dispatch every tool, Hidden ones included.
	for _, name := range []string{"direct_model_only", "hidden", "code_mode_only"} {
		_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain(name), Input: text("x")})
		assert.NoError(t, err, name)
	}
}

func TestRegistryCallToolUsesTheLatestSet(t *testing.T) {
	r := newReg(t, registry.Config{})
	_, err := r.CallTool(ctxBG(), scriptCall("", "a", `{}`))
	assert.Equal(t, protocol.CodeInternal, toolErr(t, err).Code)
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Direct)))
	finalize(t, r, registry.ModeCodeMode)
	v, err := r.CallTool(ctxBG(), scriptCall("", "a", `{"text":"1"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"text":"1"}`, string(v))
	res, err := r.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("a"), Input: text("2")})
	require.NoError(t, err)
	assert.Equal(t, `{"text":"2"}`, res.ModelText)
}

func TestArgumentsAreCheckedAgainstKindAndSchema(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("echo"), registry.Direct)))
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("patch"), Kind: protocol.KindFreeform},
		func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
			s, err := inv.Text()
			return registry.TextOutput("patched " + s), err
		})))
	set := finalize(t, r, registry.ModeDirect)

	_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: json.RawMessage(`{"text": 5, "extra": true}`)})
	te := toolErr(t, err)
	assert.Equal(t, protocol.CodeInvalidArguments, te.Code)
	assert.Contains(t, te.Message, "registry: invalid arguments for echo:")
	assert.Contains(t, te.Message, "at /text: got number, want string")
	assert.Contains(t, te.Message, "extra")
	assert.Contains(t, te.Message, "Fix these arguments")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo")})
	te = toolErr(t, err)
	assert.Contains(t, te.Message, "missing property 'text'", "no input is {}")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: json.RawMessage(`[1]`)})
	assert.Contains(t, toolErr(t, err).Message, "takes a JSON object of arguments; got an array")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("x")})
	assert.Contains(t, toolErr(t, err).Message, "echo is a function tool and takes a JSON object of arguments; got a freeform call")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("patch"), Input: json.RawMessage(`{}`)})
	assert.Equal(t, protocol.CodeInvalidArguments, toolErr(t, err).Code)

	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("patch"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("*** Begin Patch")})
	require.NoError(t, err)
	assert.Equal(t, "patched *** Begin Patch", res.ModelText)
	assert.JSONEq(t, `"patched *** Begin Patch"`, string(res.Value))
}

func TestHooksApprovalRemindersAndAcceptance(t *testing.T) {
	var accepted []registry.Result
	var mu sync.Mutex
	observed := make(chan registry.Result, 1)
	cfg := registry.Config{
		PreToolUse: []registry.PreToolUseHook{
			func(_ context.Context, c registry.Call) registry.PreToolUseDecision {
				if string(c.Input) == `{"text":"rm -rf"}` {
					return registry.PreToolUseDecision{Deny: true, Reason: "destructive"}
				}
				if string(c.Input) == `{"text":"rewrite"}` {
					return registry.PreToolUseDecision{Input: json.RawMessage(`{"text":"rewritten"}`)}
				}
				if string(c.Input) == `{"text":"break"}` {
					return registry.PreToolUseDecision{Input: json.RawMessage(`{"nope":1}`)}
				}
				return registry.PreToolUseDecision{}
			},
		},
		Approve: func(_ context.Context, c registry.Call) error {
			if string(c.Input) == `{"text":"ask"}` {
				return errors.New("the user said no")
			}
			return nil
		},
		PostToolUse: []registry.PostToolUseHook{
			func(_ context.Context, _ registry.Call, res registry.Result) registry.PostToolUseDecision {
				return registry.PostToolUseDecision{ReplaceText: true, ModelText: "[redacted] " + res.ModelText}
			},
		},
		OnResultAccepted: func(_ registry.Call, res registry.Result) {
			mu.Lock()
			accepted = append(accepted, res)
			mu.Unlock()
		},
	}
	r := newReg(t, cfg)
	tool := &observingTool{FuncTool: echo(registry.Plain("echo"), registry.Direct), seen: observed}
	require.NoError(t, r.AddTrusted(tool))
	r.AddReminder(func(context.Context, registry.Call, registry.Result) string { return "2 lint errors" })
	r.AddReminder(func(context.Context, registry.Call, registry.Result) string { return "" })
	set := finalize(t, r, registry.ModeCodeMode)

	_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: text("rm -rf")})
	te := toolErr(t, err)
	assert.Equal(t, protocol.CodeDenied, te.Code)
	assert.Contains(t, te.Message, "destructive")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: text("ask")})
	te = toolErr(t, err)
	assert.Equal(t, protocol.CodeDenied, te.Code)
	assert.Contains(t, te.Message, "the user said no")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: text("break")})
	te = toolErr(t, err)
	assert.Equal(t, protocol.CodeInvalidArguments, te.Code)
	assert.Contains(t, te.Message, "a PreToolUse hook rewrote the input into an invalid one")

	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: text("rewrite")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"text":"rewritten"}`, string(res.Value), "the tool ran with the rewritten input")
	assert.Equal(t, "[redacted] {\"text\":\"rewritten\"}\n\n<system-reminder>\n2 lint errors\n</system-reminder>", res.ModelText)

	v, err := set.CallTool(ctxBG(), scriptCall("", "echo", `{"text":"typed"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"text":"typed"}`, string(v), "scripts keep the typed value whatever the hooks did")

	mu.Lock()
	require.Len(t, accepted, 2, "only successful calls are accepted")
	assert.Equal(t, res, accepted[0], "the callback sees the final result")
	mu.Unlock()
	assert.Equal(t, res.ModelText, (<-observed).ModelText)
}

type observingTool struct {
	*registry.FuncTool
	seen chan registry.Result
}

func (o *observingTool) OnResultAccepted(_ registry.Call, res registry.Result) {
	select {
	case o.seen <- res:
	default:
	}
}

func TestLifecycleEventsCarryCellAndCallIDs(t *testing.T) {
	var mu sync.Mutex
	var events []registry.Event
	r := newReg(t, registry.Config{OnEvent: func(e registry.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("echo"), registry.Direct)))
	set := finalize(t, r, registry.ModeCodeMode)
	_, err := set.CallTool(ctxBG(), scriptCall("functions", "echo", `{"text":"a"}`))
	require.NoError(t, err)
	_, err = set.CallTool(ctxBG(), scriptCall("functions", "echo", `{"bad":1}`))
	require.Error(t, err)
	_, err = set.CallTool(ctxBG(), scriptCall("functions", "missing", `{}`))
	require.Error(t, err)

	require.Len(t, events, 4, "begin/end for each resolved call; an unknown tool has none")
	assert.Equal(t, registry.EventBegin, events[0].Kind)
	assert.Equal(t, registry.EventEnd, events[1].Kind)
	for _, e := range events {
		assert.Equal(t, "c1", e.Call.CellID)
		assert.Equal(t, uint64(7), e.Call.CallID)
		assert.Equal(t, "s1", e.Call.SessionID)
		assert.Equal(t, registry.SourceScript, e.Call.Source)
		assert.Equal(t, registry.Namespaced("functions", "echo"), e.Call.Name, "events use the canonical name")
	}
	require.NotNil(t, events[1].Result)
	assert.NoError(t, events[1].Err)
	assert.Nil(t, events[3].Result)
	assert.Equal(t, protocol.CodeInvalidArguments, toolErr(t, events[3].Err).Code)
}

func TestToolErrorsKeepTheirCodesAndPanicsAreContained(t *testing.T) {
	r := newReg(t, registry.Config{})
	add := func(name string, fn registry.HandlerFunc) {
		require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain(name)}, fn)))
	}
	add("fails", func(context.Context, registry.Invocation) (registry.Output, error) {
		return registry.Output{}, errors.New("disk full")
	})
	add("limited", func(context.Context, registry.Invocation) (registry.Output, error) {
		return registry.Output{}, &protocol.ToolError{Code: protocol.CodeLimitExceeded, Message: "quota"}
	})
	add("panics", func(context.Context, registry.Invocation) (registry.Output, error) { panic("boom") })
	add("empty", func(context.Context, registry.Invocation) (registry.Output, error) { return registry.Output{}, nil })
	set := finalize(t, r, registry.ModeDirect)

	_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("fails")})
	te := toolErr(t, err)
	assert.Equal(t, protocol.CodeToolFailed, te.Code)
	assert.Equal(t, "disk full", te.Message)
	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("limited")})
	te = toolErr(t, err)
	assert.Equal(t, protocol.CodeLimitExceeded, te.Code)
	assert.Equal(t, "limited", te.Tool)
	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("panics")})
	te = toolErr(t, err)
	assert.Equal(t, protocol.CodeInternal, te.Code)
	assert.Contains(t, te.Message, "panicked: boom")
	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("empty")})
	require.NoError(t, err)
	assert.Equal(t, "null", string(res.Value))
	assert.Equal(t, "null", res.ModelText)
	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("nope")})
	te = toolErr(t, err)
	assert.Equal(t, protocol.CodeUnknownTool, te.Code)
	assert.Contains(t, te.Message, `registry: no tool named "nope"`)
}

func TestReadinessIsAwaitedAndCancellable(t *testing.T) {
	r := newReg(t, registry.Config{})
	ready := make(chan struct{})
	tool := echo(registry.Namespaced("mcp__slow", "t"), registry.Direct)
	tool.Ready = func(ctx context.Context) error {
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	broken := echo(registry.Namespaced("mcp__down", "t"), registry.Direct)
	broken.Ready = func(context.Context) error { return errors.New("server failed to start") }
	require.True(t, r.AddExternal(tool))
	require.True(t, r.AddExternal(broken))
	set := finalize(t, r, registry.ModeDirect)

	ctx, cancel := context.WithCancel(ctxBG())
	cancel()
	_, err := set.Dispatch(ctx, registry.Call{Name: tool.ToolSpec.Name, Input: text("x")})
	assert.Equal(t, protocol.CodeCancelled, toolErr(t, err).Code)

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: broken.ToolSpec.Name, Input: text("x")})
	te := toolErr(t, err)
	assert.Equal(t, protocol.CodeToolFailed, te.Code)
	assert.Contains(t, te.Message, "is not ready: server failed to start")

	done := make(chan error)
	go func() {
		_, err := set.Dispatch(ctxBG(), registry.Call{Name: tool.ToolSpec.Name, Input: text("x")})
		done <- err
	}()
	close(ready)
	assert.NoError(t, <-done)
}

func TestCancellationReachesTheTool(t *testing.T) {
	r := newReg(t, registry.Config{})
	started := make(chan struct{})
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("block")},
		func(ctx context.Context, _ registry.Invocation) (registry.Output, error) {
			close(started)
			<-ctx.Done()
			return registry.Output{}, ctx.Err()
		})))
	set := finalize(t, r, registry.ModeCodeMode)
	ctx, cancel := context.WithCancel(ctxBG())
	go func() { <-started; cancel() }()
	_, err := set.CallTool(ctx, scriptCall("", "block", `{}`))
	assert.Equal(t, protocol.CodeCancelled, toolErr(t, err).Code)
}

// gateRecorder's tools record whether an exclusive call overlapped another.
type gateRecorder struct {
	mu                   sync.Mutex
	running, excl        int
	overlapWithExclusive bool
}

func (g *gateRecorder) tool(name string, parallel bool, exp registry.Exposure) registry.Tool {
	return registry.NewFunc(registry.Spec{Name: registry.Plain(name), SupportsParallel: parallel, Exposure: exp},
		func(context.Context, registry.Invocation) (registry.Output, error) {
			exclusive := !parallel || exp == registry.Hidden
			g.mu.Lock()
			if g.excl > 0 || (exclusive && g.running > 0) {
				g.overlapWithExclusive = true
			}
			g.running++
			if exclusive {
				g.excl++
			}
			g.mu.Unlock()
			time.Sleep(time.Millisecond) // widen the window in which overlap would show
			g.mu.Lock()
			g.running--
			if exclusive {
				g.excl--
			}
			g.mu.Unlock()
			return registry.Output{}, nil
		})
}

func TestExclusiveToolsNeverOverlapWhileParallelOnesShare(t *testing.T) {
	g := &gateRecorder{}
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(g.tool("read", true, registry.Direct)))
	require.NoError(t, r.AddTrusted(g.tool("write", false, registry.Direct)))
	require.NoError(t, r.AddTrusted(g.tool("internal", true, registry.Hidden)))
	set := finalize(t, r, registry.ModeDirect)

	var wg sync.WaitGroup
	for i := 0; i < 60; i++ {
		wg.Add(1)
		name := []string{"read", "write", "read", "internal"}[i%4]
		go func() {
			defer wg.Done()
			_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain(name)})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.False(t, g.overlapWithExclusive, "an exclusive (or Hidden) call overlapped another call")
}

func TestParallelToolsRunTogether(t *testing.T) {
	const n = 4
	var inside atomic.Int32
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("read"), SupportsParallel: true},
		func(ctx context.Context, _ registry.Invocation) (registry.Output, error) {
			inside.Add(1)
			// Wait until all n calls are inside at once: only possible if they share the gate.
			deadline := time.Now().Add(5 * time.Second)
			for inside.Load() < n {
				if time.Now().After(deadline) {
					return registry.Output{}, errors.New("parallel calls did not run together")
				}
				time.Sleep(100 * time.Microsecond)
			}
			return registry.Output{}, nil
		})))
	set := finalize(t, r, registry.ModeDirect)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("read")})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
}

func TestWaitingForTheGateIsCancellable(t *testing.T) {
	r := newReg(t, registry.Config{})
	release := make(chan struct{})
	started := make(chan struct{})
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("hog")},
		func(context.Context, registry.Invocation) (registry.Output, error) {
			close(started)
			<-release
			return registry.Output{}, nil
		})))
	require.NoError(t, r.AddTrusted(echo(registry.Plain("next"), registry.Direct)))
	set := finalize(t, r, registry.ModeDirect)
	done := make(chan struct{})
	go func() {
		_, _ = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("hog")})
		close(done)
	}()
	<-started
	ctx, cancel := context.WithTimeout(ctxBG(), 20*time.Millisecond)
	defer cancel()
	_, err := set.Dispatch(ctx, registry.Call{Name: registry.Plain("next"), Input: text("x")})
	assert.Equal(t, protocol.CodeCancelled, toolErr(t, err).Code)
	close(release)
	<-done
	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("next"), Input: text("x")})
	assert.NoError(t, err, "the gate is free again")
}

func TestExecAndWaitRunTheConfiguredHandlersWithTheirSet(t *testing.T) {
	var gotSet *registry.ToolSet
	r := newReg(t, registry.Config{
		Exec: func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
			gotSet = inv.ToolSet
			src, err := inv.Text()
			return registry.TextOutput(fmt.Sprintf("ran %d bytes with %d tools", len(src), len(inv.ToolSet.CodeModeDefs()))), err
		},
	})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Direct)))
	set := finalize(t, r, registry.ModeCodeMode)
	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("exec"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("return 1")})
	require.NoError(t, err)
	assert.Equal(t, "ran 8 bytes with 1 tools", res.ModelText)
	assert.Same(t, set, gotSet)

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("wait"), Input: json.RawMessage(`{"cell_id":"1"}`)})
	te := toolErr(t, err)
	assert.Contains(t, te.Message, "set Config.Exec and Config.Wait")
}

// TestExecDoesNotHoldTheGateItsCellNeeds: exec runs a cell whose own
// tool calls pass the concurrency gate, so exec and wait must not hold
// it; a cell calling a tool that is not parallel-safe would otherwise
// wait on itself.
func TestExecDoesNotHoldTheGateItsCellNeeds(t *testing.T) {
	r := newReg(t, registry.Config{
		Exec: func(ctx context.Context, inv registry.Invocation) (registry.Output, error) {
			// What a cell's call does: dispatch a script call to an exclusive tool.
			res, err := inv.ToolSet.Dispatch(ctx, registry.Call{Name: registry.Plain("exclusive"), Input: json.RawMessage(`{"text":"x"}`)})
			if err != nil {
				return registry.Output{}, err
			}
			return registry.Output{Value: res.Value}, nil
		},
	})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("exclusive"), registry.Direct)))
	set := finalize(t, r, registry.ModeCodeMode)
	ctx, cancel := context.WithTimeout(ctxBG(), 10*time.Second)
	defer cancel()
	res, err := set.Dispatch(ctx, registry.Call{Name: registry.Plain("exec"), Kind: protocol.KindFreeform, Input: registry.FreeformInput(`await tools.exclusive({text: "x"})`)})
	require.NoError(t, err, "the exclusive call inside exec must not wait for exec")
	assert.JSONEq(t, `{"text":"x"}`, string(res.Value))
}

func TestTypedFuncDecodesAndEncodes(t *testing.T) {
	type in struct{ A, B int }
	type out struct{ Sum int }
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(registry.NewTypedFunc(registry.Spec{Name: registry.Plain("add"),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"A":{"type":"integer"},"B":{"type":"integer"}}}`)},
		func(_ context.Context, v in) (out, error) { return out{v.A + v.B}, nil })))
	res, err := finalize(t, r, registry.ModeDirect).Dispatch(ctxBG(), registry.Call{Name: registry.Plain("add"), Input: json.RawMessage(`{"A":2,"B":3}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Sum":5}`, string(res.Value))
}

// eventLog records lifecycle events.
type eventLog struct {
	mu     sync.Mutex
	events []registry.Event
}

func (l *eventLog) add(e registry.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *eventLog) take() []registry.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.events
	l.events = nil
	return out
}

func TestThePayloadKindIsCheckedBeforeTheLifecycleStarts(t *testing.T) {
	var log eventLog
	var hooked, approved atomic.Int32
	r := newReg(t, registry.Config{
		OnEvent: log.add,
		PreToolUse: []registry.PreToolUseHook{func(context.Context, registry.Call) registry.PreToolUseDecision {
			hooked.Add(1)
			return registry.PreToolUseDecision{}
		}},
		Approve: func(context.Context, registry.Call) error { approved.Add(1); return nil },
	})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("echo"), registry.Direct)))
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("patch"), Kind: protocol.KindFreeform},
		func(context.Context, registry.Invocation) (registry.Output, error) {
			return registry.TextOutput("ok"), nil
		})))
	set := finalize(t, r, registry.ModeCodeMode)

	_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("x")})
	te := toolErr(t, err)
	assert.Equal(t, protocol.CodeInvalidArguments, te.Code)
	assert.Equal(t, "registry: echo is a function tool and takes a JSON object of arguments; got a freeform call", te.Message)
	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("patch"), Input: json.RawMessage(`{}`)})
	te = toolErr(t, err)
	assert.Equal(t, "registry: patch is a freeform tool and takes one string; got a function call", te.Message)
	call := scriptCall("", "echo", `"x"`)
	call.Kind = protocol.KindFreeform
	_, err = set.CallTool(ctxBG(), call)
	assert.Equal(t, protocol.CodeInvalidArguments, toolErr(t, err).Code)
	assert.Empty(t, log.take(), "a call of the wrong kind has no begin or end event")
	assert.Zero(t, hooked.Load(), "nor reaches the PreToolUse hooks")
	assert.Zero(t, approved.Load(), "nor approval")

	// Invalid arguments of the right kind are checked after the begin event.
	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("echo"), Input: json.RawMessage(`{"bad":1}`)})
	assert.Equal(t, protocol.CodeInvalidArguments, toolErr(t, err).Code)
	events := log.take()
	require.Len(t, events, 2)
	assert.Equal(t, registry.EventBegin, events[0].Kind)
	assert.Equal(t, registry.EventEnd, events[1].Kind)

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("patch"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("x")})
	require.NoError(t, err)
	assert.Len(t, log.take(), 2)
	assert.Equal(t, int32(1), hooked.Load(), "the right kind reaches the hooks")
}

func TestLifecycleEventsUseCanonicalNamesAndRecordOutputsAndHandlerErrors(t *testing.T) {
	var log eventLog
	r := newReg(t, registry.Config{OnEvent: log.add})
	require.NoError(t, r.AddTrusted(named(registry.Plain("lookup"), registry.Direct, "found")))
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Namespaced("functions", "broken")},
		func(context.Context, registry.Invocation) (registry.Output, error) {
			return registry.Output{}, errors.New("disk full")
		})))
	set := finalize(t, r, registry.ModeDirect)
	for _, name := range []registry.ToolName{registry.Plain("lookup"), registry.Namespaced("functions", "lookup"), registry.Namespaced("", "broken"), registry.Plain("broken")} {
		_, _ = set.Dispatch(ctxBG(), registry.Call{Name: name})
	}
	events := log.take()
	require.Len(t, events, 8)
	for i, e := range events {
		want := registry.Namespaced("functions", "lookup")
		if i >= 4 {
			want = registry.Namespaced("functions", "broken")
		}
		assert.Equal(t, want, e.Call.Name, "event %d uses the canonical name", i)
		if e.Kind == registry.EventBegin {
			continue
		}
		if i < 4 {
			require.NotNil(t, e.Result)
			assert.Equal(t, "found", e.Result.ModelText)
			assert.NoError(t, e.Err)
		} else {
			assert.Nil(t, e.Result)
			te := toolErr(t, e.Err)
			assert.Equal(t, protocol.CodeToolFailed, te.Code)
			assert.Equal(t, "disk full", te.Message)
		}
	}
}
