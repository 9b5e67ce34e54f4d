package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// execRecorder is a Config.Exec that decodes its call with ExecArgs.
func execRecorder(got *registry.ExecInput) registry.HandlerFunc {
	return func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
		in, err := registry.ExecArgs(inv.Call)
		if err != nil {
			return registry.Output{}, err
		}
		*got = in
		return registry.TextOutput(fmt.Sprintf("ran %d bytes", len(in.Code))), nil
	}
}

func TestExecIsFreeformByDefault(t *testing.T) {
	var got registry.ExecInput
	r := newReg(t, registry.Config{Exec: execRecorder(&got)})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Direct)))
	set := finalize(t, r, registry.DefaultAgentMode)
	exec := set.ModelTools()[0]
	assert.Equal(t, registry.ExecToolName, exec.Name.Name)
	assert.Equal(t, protocol.KindFreeform, exec.Kind)
	assert.Nil(t, exec.InputSchema)

	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("exec"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("return 1")})
	require.NoError(t, err)
	assert.Equal(t, "ran 8 bytes", res.ModelText)
	assert.Equal(t, registry.ExecInput{Code: "return 1"}, got)
}

func TestExecAsAFunctionTool(t *testing.T) {
	var got registry.ExecInput
	r := newReg(t, registry.Config{Exec: execRecorder(&got), ExecShape: registry.ExecFunction})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Direct)))
	for _, m := range []registry.Mode{registry.ModeCodeMode, registry.ModeCodeModeOnly} {
		set := finalize(t, r, m)
		exec, wait := set.ModelTools()[0], set.ModelTools()[1]
		assert.Equal(t, protocol.KindFunction, exec.Kind, m.String())
		assert.Equal(t, set.ExecDescription(), exec.Description)
		var schema struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		require.NoError(t, json.Unmarshal(exec.InputSchema, &schema))
		assert.Contains(t, schema.Properties, "code")
		assert.Contains(t, schema.Properties, "yield_ms")
		assert.Equal(t, []string{"code"}, schema.Required)
		assert.Equal(t, protocol.KindFunction, wait.Kind, "wait is a function tool in either shape")

		res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("exec"), Input: json.RawMessage(`{"code":"return 1","yield_ms":250}`)})
		require.NoError(t, err)
		assert.Equal(t, "ran 8 bytes", res.ModelText)
		assert.Equal(t, registry.ExecInput{Code: "return 1", YieldMS: 250}, got)
	}
	set := finalize(t, r, registry.ModeCodeModeOnly)
	for _, bad := range []string{`{}`, `{"code":""}`, `{"code":"x","yield_ms":-1}`, `{"code":"x","extra":1}`} {
		_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("exec"), Input: json.RawMessage(bad)})
		assert.Equal(t, protocol.CodeInvalidArguments, toolErr(t, err).Code, bad)
	}
	_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("exec"), Kind: protocol.KindFreeform, Input: registry.FreeformInput("return 1")})
	te := toolErr(t, err)
	assert.Equal(t, protocol.CodeInvalidArguments, te.Code)
	assert.Contains(t, te.Message, "takes a JSON object of arguments", "a freeform call of a function-shaped exec says what exec takes")
}

func TestExecArgsNameTheProblem(t *testing.T) {
	_, err := registry.ExecArgs(registry.Call{Input: json.RawMessage(`{"yield_ms":5}`)})
	assert.ErrorContains(t, err, `exec needs "code"`)
	_, err = registry.ExecArgs(registry.Call{Input: json.RawMessage(`[1]`)})
	assert.ErrorContains(t, err, "are not {\"code\": string")
	_, err = registry.ExecArgs(registry.Call{Kind: protocol.KindFreeform, Input: json.RawMessage(`{}`)})
	assert.ErrorContains(t, err, "not a JSON string")
	_, err = registry.ExecArgs(registry.Call{Kind: protocol.KindFreeform, Input: registry.FreeformInput(" \n")})
	assert.ErrorContains(t, err, "exec needs a program to run; got an empty one")
}

func TestParseExecShape(t *testing.T) {
	for s, want := range map[string]registry.ExecShape{"": registry.ExecFreeform, "freeform": registry.ExecFreeform, "function": registry.ExecFunction} {
		got, err := registry.ParseExecShape(s)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := registry.ParseExecShape("json")
	assert.ErrorContains(t, err, `unknown exec shape "json"; use freeform or function`)
	assert.Equal(t, "function", registry.ExecFunction.String())
}

// TestExecDescriptionCarriesNamespaceDescriptions: an MCP server's
// instructions (its namespace description) head its tools in exec's
// declarations, in every Code Mode mode.
func TestExecDescriptionCarriesNamespaceDescriptions(t *testing.T) {
	for _, mode := range []registry.Mode{registry.ModeCodeModeOnly, registry.ModeCodeMode} {
		r := newReg(t, registry.Config{})
		require.True(t, r.AddExternal(registry.NewFunc(registry.Spec{
			Name: registry.Namespaced("mcp__weather__", "forecast"), Description: "Forecast for a city.", Exposure: registry.CodeModeOnly,
			Search: registry.SearchInfo{NamespaceDescription: "Use forecast before planning any trip."},
		}, nil)))
		desc := finalize(t, r, mode).ExecDescription()
		assert.Contains(t, desc, "// Use forecast before planning any trip.", mode.String())
	}
}
