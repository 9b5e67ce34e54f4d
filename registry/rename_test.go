package registry_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

const readSchema = `{"type":"object","properties":{"path":{"type":"string","description":"File to read"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`

// readFile is a tool whose code reads "path" and "limit" but advertises
// "file_path"; it returns what its code received.
func readFile(seen *[]string) *registry.FuncTool {
	return registry.NewFunc(registry.Spec{
		Name:        registry.Plain("read_file"),
		Description: "Read a file",
		InputSchema: json.RawMessage(readSchema),
		ParamNames:  map[string]string{"path": "file_path"},
	}, func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
		var in struct {
			Path  string `json:"path"`
			Limit int    `json:"limit"`
		}
		if err := inv.Bind(&in); err != nil {
			return registry.Output{}, err
		}
		if in.Path == "" {
			return registry.Output{}, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: inv.ParamName("path") + " is empty"}
		}
		if seen != nil {
			*seen = append(*seen, string(inv.Input))
		}
		return registry.JSONOutput(in)
	})
}

func TestRenamedParametersAreAdvertisedEverywhere(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(readFile(nil)))
	set := finalize(t, r, registry.ModeCodeMode)
	want := `{"type":"object","properties":{"file_path":{"type":"string","description":"File to read"},"limit":{"type":"integer"}},"required":["file_path"],"additionalProperties":false}`
	listed := false
	for _, mt := range set.ModelTools() {
		if mt.Name.Name == "read_file" {
			listed = true
			assert.Equal(t, want, string(mt.InputSchema), "property order is kept")
		}
	}
	assert.True(t, listed)
	defs := set.CodeModeDefs()
	require.Len(t, defs, 1)
	assert.JSONEq(t, want, string(defs[0].InputSchema))
	only := finalize(t, r, registry.ModeCodeModeOnly).ExecDescription()
	assert.Contains(t, only, "file_path: string", "exec declares the tool in code_mode_only")
	assert.NotContains(t, only, " path:")
	info, ok := set.Lookup(registry.Plain("read_file"))
	require.True(t, ok)
	assert.JSONEq(t, want, string(info.Spec.InputSchema))
}

func TestRenamedParametersReachTheCodeUnderItsOwnNames(t *testing.T) {
	var seen []string
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(readFile(&seen)))
	set := finalize(t, r, registry.ModeCodeMode)

	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("read_file"), Input: json.RawMessage(`{"file_path":"a.go","limit":3}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"a.go","limit":3}`, string(res.Value))

	v, err := set.CallTool(ctxBG(), scriptCall("", "read_file", `{"limit":1,"file_path":"b.go"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"b.go","limit":1}`, string(v))
	assert.Equal(t, []string{`{"path":"a.go","limit":3}`, `{"limit":1,"path":"b.go"}`}, seen, "renamed in place, order kept")

	_, err = set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("read_file"), Input: json.RawMessage(`{"file_path":""}`)})
	assert.Equal(t, "file_path is empty", toolErr(t, err).Message, "Invocation.ParamName gives the advertised name")
}

func TestValidationErrorsUseTheAdvertisedNames(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(readFile(nil)))
	set := finalize(t, r, registry.ModeCodeMode)
	for input, says := range map[string]string{
		`{}`:                           "file_path",
		`{"file_path":7}`:              "/file_path",
		`{"path":"a.go"}`:              `has no parameter "path"; it is called "file_path"`,
		`{"file_path":"a","path":"b"}`: `has no parameter "path"`,
	} {
		_, err := set.CallTool(ctxBG(), scriptCall("", "read_file", input))
		te := toolErr(t, err)
		assert.Equal(t, protocol.CodeInvalidArguments, te.Code, input)
		assert.Contains(t, te.Message, says, input)
	}
}

func TestHooksAndEventsSeeTheAdvertisedNames(t *testing.T) {
	var mu sync.Mutex
	var saw []string
	note := func(s string) { mu.Lock(); saw = append(saw, s); mu.Unlock() }
	r := newReg(t, registry.Config{
		PreToolUse: []registry.PreToolUseHook{func(_ context.Context, c registry.Call) registry.PreToolUseDecision {
			note("pre " + string(c.Input))
			return registry.PreToolUseDecision{Input: json.RawMessage(`{"file_path":"rewritten.go"}`)}
		}},
		Approve: func(_ context.Context, c registry.Call) error { note("approve " + string(c.Input)); return nil },
		PostToolUse: []registry.PostToolUseHook{func(_ context.Context, c registry.Call, _ registry.Result) registry.PostToolUseDecision {
			note("post " + string(c.Input))
			return registry.PostToolUseDecision{}
		}},
		OnEvent: func(ev registry.Event) { note(ev.Kind.String() + " " + string(ev.Call.Input)) },
	})
	require.NoError(t, r.AddTrusted(readFile(nil)))
	set := finalize(t, r, registry.ModeCodeMode)
	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("read_file"), Input: json.RawMessage(`{"file_path":"a.go"}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"rewritten.go","limit":0}`, string(res.Value))
	assert.Equal(t, []string{
		`begin {"file_path":"a.go"}`,
		`pre {"file_path":"a.go"}`,
		`approve {"file_path":"rewritten.go"}`,
		`post {"file_path":"rewritten.go"}`,
		`end {"file_path":"rewritten.go"}`,
	}, saw)

	// A hook that rewrites with the code's name is refused like the model would be.
	r2 := newReg(t, registry.Config{PreToolUse: []registry.PreToolUseHook{func(context.Context, registry.Call) registry.PreToolUseDecision {
		return registry.PreToolUseDecision{Input: json.RawMessage(`{"path":"x"}`)}
	}}})
	require.NoError(t, r2.AddTrusted(readFile(nil)))
	_, err = finalize(t, r2, registry.ModeDirect).Dispatch(ctxBG(), registry.Call{Name: registry.Plain("read_file"), Input: json.RawMessage(`{"file_path":"a"}`)})
	assert.Contains(t, toolErr(t, err).Message, `a PreToolUse hook rewrote the input into an invalid one: read_file has no parameter "path"`)
}

func TestParameterNamesCanBeSwapped(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{
		Name:        registry.Plain("swap"),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`),
		ParamNames:  map[string]string{"a": "b", "b": "a"},
	}, func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
		return registry.Output{Value: inv.Input}, nil
	})))
	set := finalize(t, r, registry.ModeDirect)
	assert.JSONEq(t, `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`, string(set.ModelTools()[0].InputSchema))
	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("swap"), Input: json.RawMessage(`{"a":1,"b":"s"}`)})
	require.NoError(t, err)
	assert.Equal(t, `{"b":1,"a":"s"}`, string(res.Value))
}

func TestBadParameterNamesAreRefusedWhenAdded(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string"}}}`)
	for name, tc := range map[string]struct {
		spec registry.Spec
		says string
	}{
		"unknown parameter": {registry.Spec{InputSchema: schema, ParamNames: map[string]string{"paht": "file_path"}}, `renames "paht", which the input schema does not declare`},
		"taken name":        {registry.Spec{InputSchema: schema, ParamNames: map[string]string{"path": "mode"}}, `renames "path" to "mode", which is already a parameter`},
		"same name twice":   {registry.Spec{InputSchema: schema, ParamNames: map[string]string{"path": "x", "mode": "x"}}, `the same name "x"`},
		"empty name":        {registry.Spec{InputSchema: schema, ParamNames: map[string]string{"path": ""}}, "empty name"},
		"no schema":         {registry.Spec{ParamNames: map[string]string{"path": "p"}}, `needs an input schema with "properties"`},
		"freeform":          {registry.Spec{Kind: protocol.KindFreeform, ParamNames: map[string]string{"path": "p"}}, "freeform"},
	} {
		t.Run(name, func(t *testing.T) {
			tc.spec.Name = registry.Plain("t")
			r := newReg(t, registry.Config{})
			err := r.AddTrusted(registry.NewFunc(tc.spec, nil))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.says)
			assert.Contains(t, err.Error(), "registry: tool t: Spec.ParamNames")
			assert.False(t, r.AddExternal(registry.NewFunc(tc.spec, nil)), "external tools with bad names are skipped")
		})
	}
}
