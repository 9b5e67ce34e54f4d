package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// Dispatch runs one call through the pipeline with this set's tools and
// returns the structured value and the model-facing text, or a
// *protocol.ToolError. Use the set that advertised the call. Safe from any
// goroutine; ctx cancels the call.
//
// The pipeline, for calls from the model and from scripts alike:
// lookup by canonical name → (scripts) Code Mode check → payload kind
// check → begin event → schema validation → PreToolUse hooks (deny or
// rewrite, rewritten input validated again) → approval → readiness wait →
// concurrency gate (parallel tools share it, others hold it alone) →
// execution (with the arguments renamed to the names the tool's code reads,
// Spec.ParamNames, and the session's state in ctx, SessionStateOf) →
// PostToolUse hooks (model text only) → reminders (model text
// only) → result-accepted callbacks → end event.
func (s *ToolSet) Dispatch(ctx context.Context, call Call) (Result, error) {
	return s.dispatch(ctx, call)
}

// CallTool implements bridge.ToolExecutor: it runs a call a script made,
// through the same pipeline as Dispatch, and returns the structured value
// as JSON text or a *protocol.ToolError. The parent re-checks here that the
// tool is bound into Code Mode in this set: a tool whose exposure does not
// permit Code Mode fails with protocol.CodeNotInCodeMode.
func (s *ToolSet) CallTool(ctx context.Context, tc protocol.ToolCall) (json.RawMessage, error) {
	res, err := s.dispatch(ctx, Call{
		Name:      Namespaced(tc.Namespace, tc.Name),
		Kind:      tc.Kind,
		Input:     tc.Input,
		Source:    SourceScript,
		SessionID: tc.SessionID,
		CellID:    tc.CellID,
		CallID:    tc.CallID,
	})
	if err != nil {
		return nil, err
	}
	return res.Value, nil
}

func (s *ToolSet) dispatch(ctx context.Context, call Call) (res Result, err error) {
	call.Name = call.Name.Key()
	if call.Kind == "" {
		call.Kind = protocol.KindFunction
	}
	e, terr := s.resolve(call)
	if terr != nil {
		return Result{}, terr
	}
	// A call of the wrong kind never reaches the tool's life cycle: no
	// events, as for an unknown tool.
	if terr := checkKind(e, call); terr != nil {
		return Result{}, terr
	}
	begin := time.Now()
	s.emit(Event{Kind: EventBegin, Call: call})
	defer func() {
		ev := Event{Kind: EventEnd, Call: call, Err: err, Duration: time.Since(begin)}
		if err == nil {
			ev.Result = &res
		}
		s.emit(ev)
	}()
	if call, terr = s.admit(ctx, e, call); terr != nil {
		return Result{}, terr
	}
	out, terr := s.execute(ctx, e, call)
	if terr != nil {
		return Result{}, terr
	}
	return s.finish(ctx, e, call, out), nil
}

// resolve looks the tool up and, for script calls, checks that it is
// bound into Code Mode.
func (s *ToolSet) resolve(call Call) (*entry, *protocol.ToolError) {
	e := s.lookup(call.Name)
	if call.Source != SourceScript {
		if e == nil {
			hint := "check the name against your tool list"
			if s.search != nil {
				hint += ", or call tool_search to find deferred tools"
			}
			return nil, toolError(protocol.CodeUnknownTool, call.Name, "registry: no tool named %q; %s", call.Name.String(), hint)
		}
		return e, nil
	}
	if e == nil {
		return nil, toolError(protocol.CodeUnknownTool, call.Name, "registry: no tool named %q is available to scripts; use a tool listed in ALL_TOOLS", call.Name.String())
	}
	if !e.exposure.InCodeMode() || s.byName[call.Name] == nil {
		return nil, toolError(protocol.CodeNotInCodeMode, call.Name, "registry: %s can't be called from Code Mode (exposure %s); the model must call it directly", call.Name.String(), e.exposure)
	}
	if s.bound[call.Name] == "" {
		return nil, toolError(protocol.CodeNotInCodeMode, call.Name, "registry: %s is not bound into Code Mode in this tool set (excluded namespace, or its identifier %q belongs to another tool)", call.Name.String(), call.Name.JSIdent())
	}
	return e, nil
}

// admit runs the checks between the begin event and execution: schema,
// PreToolUse hooks, approval. It returns the call as it will run.
func (s *ToolSet) admit(ctx context.Context, e *entry, call Call) (Call, *protocol.ToolError) {
	if terr := checkInput(e, &call); terr != nil {
		return call, terr
	}
	for _, hook := range s.cfg.PreToolUse {
		d := hook(ctx, call)
		if d.Deny {
			reason := d.Reason
			if reason == "" {
				reason = "a PreToolUse hook refused the call"
			}
			return call, toolError(protocol.CodeDenied, call.Name, "registry: %s denied: %s", call.Name.String(), reason)
		}
		if d.Input != nil {
			call.Input = d.Input
			if terr := checkInput(e, &call); terr != nil {
				terr.Message = "registry: a PreToolUse hook rewrote the input into an invalid one: " + strings.TrimPrefix(terr.Message, "registry: ")
				return call, terr
			}
		}
	}
	if s.cfg.Approve != nil {
		if err := s.cfg.Approve(ctx, call); err != nil {
			if ctx.Err() != nil {
				return call, cancelled(call.Name, ctx)
			}
			return call, toolError(protocol.CodeDenied, call.Name, "registry: %s was not approved: %v", call.Name.String(), err)
		}
	}
	return call, nil
}

// checkKind checks that the call's payload kind is the tool's.
func checkKind(e *entry, call Call) *protocol.ToolError {
	if call.Kind == e.spec.Kind {
		return nil
	}
	want := "a JSON object of arguments"
	if e.spec.Kind == protocol.KindFreeform {
		want = "one string"
	}
	return toolError(protocol.CodeInvalidArguments, call.Name, "registry: %s is a %s tool and takes %s; got a %s call", call.Name.String(), e.spec.Kind, want, call.Kind)
}

// checkInput checks the input of a call whose kind is the tool's: one
// string for a freeform tool, else arguments valid against the input
// schema (nil input becomes {}).
func checkInput(e *entry, call *Call) *protocol.ToolError {
	if e.spec.Kind == protocol.KindFreeform {
		var str string
		if json.Unmarshal(call.Input, &str) != nil {
			return toolError(protocol.CodeInvalidArguments, call.Name, "registry: %s takes one string as input", call.Name.String())
		}
		return nil
	}
	if len(bytes.TrimSpace(call.Input)) == 0 {
		call.Input = json.RawMessage("{}")
	}
	if e.params != nil {
		if msg := e.params.checkNames(call.Name, call.Input); msg != "" {
			return toolError(protocol.CodeInvalidArguments, call.Name, "%s", msg)
		}
	}
	if msg := validateArgs(call.Name, e.schema, call.Input); msg != "" {
		return toolError(protocol.CodeInvalidArguments, call.Name, "%s", msg)
	}
	return nil
}

// execute waits for readiness and the gate, then runs the tool.
func (s *ToolSet) execute(ctx context.Context, e *entry, call Call) (Output, *protocol.ToolError) {
	if rw, ok := e.tool.(ReadyWaiter); ok {
		if err := rw.WaitUntilReady(ctx); err != nil {
			if ctx.Err() != nil {
				return Output{}, cancelled(call.Name, ctx)
			}
			return Output{}, toolError(protocol.CodeToolFailed, call.Name, "registry: %s is not ready: %v; try again later", call.Name.String(), err)
		}
	}
	exclusive := !e.parallel()
	if !e.ungated {
		if err := s.gate.acquire(ctx, exclusive); err != nil {
			return Output{}, cancelled(call.Name, ctx)
		}
	}
	inv := Invocation{Call: call, ToolSet: s}
	inv.Input = e.params.codeInput(call.Input)
	ctx = context.WithValue(ctx, sessionStateKey{}, inv.SessionState())
	out, err := runTool(ctx, e, inv)
	if !e.ungated {
		s.gate.release(exclusive)
	}
	if err == nil {
		return out, nil
	}
	var terr *protocol.ToolError
	switch {
	case errors.As(err, &terr): // a panic in the tool is one too
		return Output{}, protocol.AsToolError(err, call.Name.String())
	case ctx.Err() != nil:
		return Output{}, cancelled(call.Name, ctx)
	}
	return Output{}, toolError(protocol.CodeToolFailed, call.Name, "%v", err)
}

// runTool calls the tool, turning a panic into an internal error.
func runTool(ctx context.Context, e *entry, inv Invocation) (Output, error) {
	return protocol.Guard("registry: tool "+e.name.String(), func() (Output, error) { return e.tool.Call(ctx, inv) })
}

func cancelled(name ToolName, ctx context.Context) *protocol.ToolError {
	return toolError(protocol.CodeCancelled, name, "registry: the call to %s was cancelled: %v", name.String(), context.Cause(ctx))
}

// finish splits the output, runs PostToolUse hooks and reminders on the
// model text, then the result-accepted callbacks.
func (s *ToolSet) finish(ctx context.Context, e *entry, call Call, out Output) Result {
	res := Result{Tool: e.name, Value: out.Value, ModelText: out.Text}
	if len(bytes.TrimSpace(res.Value)) == 0 {
		res.Value = json.RawMessage("null")
	}
	if res.ModelText == "" {
		res.ModelText = modelText(res.Value)
	}
	for _, hook := range s.cfg.PostToolUse {
		if d := hook(ctx, call, res); d.ReplaceText {
			res.ModelText = d.ModelText
		}
	}
	for _, rem := range s.reminders {
		if text := rem(ctx, call, res); text != "" {
			res.ModelText += fmt.Sprintf("\n\n<system-reminder>\n%s\n</system-reminder>", text)
		}
	}
	if s.cfg.OnResultAccepted != nil {
		s.cfg.OnResultAccepted(call, res)
	}
	if obs, ok := e.tool.(ResultObserver); ok {
		obs.OnResultAccepted(call, res)
	}
	return res
}

// modelText is the default model-facing text of a value: a JSON string's
// contents, else the JSON text.
func modelText(v json.RawMessage) string {
	var str string
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &str) == nil {
		return str
	}
	return string(v)
}

func (s *ToolSet) emit(ev Event) {
	if s.cfg.OnEvent != nil {
		s.cfg.OnEvent(ev)
	}
}
