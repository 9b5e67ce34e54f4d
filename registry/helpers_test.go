package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

const objSchema = `{"type":"object","properties":{"text":{"type":"string","description":"Text to echo"}},"required":["text"],"additionalProperties":false}`

// echo is a function tool that returns its arguments.
func echo(name registry.ToolName, exp registry.Exposure) *registry.FuncTool {
	return registry.NewFunc(registry.Spec{
		Name:        name,
		Description: "Echo " + name.String(),
		InputSchema: json.RawMessage(objSchema),
		Exposure:    exp,
	}, func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
		return registry.Output{Value: inv.Input}, nil
	})
}

// named returns a tool with an empty handler that identifies itself by tag.
func named(name registry.ToolName, exp registry.Exposure, tag string) *registry.FuncTool {
	return registry.NewFunc(registry.Spec{Name: name, Description: tag, Exposure: exp},
		func(context.Context, registry.Invocation) (registry.Output, error) {
			return registry.TextOutput(tag), nil
		})
}

func newReg(t testing.TB, cfg registry.Config) *registry.Registry {
	t.Helper()
	return registry.New(cfg)
}

func finalize(t testing.TB, r *registry.Registry, m registry.Mode) *registry.ToolSet {
	t.Helper()
	set, err := r.Finalize(m)
	require.NoError(t, err)
	return set
}

func toolErr(t testing.TB, err error) *protocol.ToolError {
	t.Helper()
	require.Error(t, err)
	var te *protocol.ToolError
	require.ErrorAs(t, err, &te)
	return te
}

func modelNames(set *registry.ToolSet) []string {
	var out []string
	for _, mt := range set.ModelTools() {
		out = append(out, mt.Name.String())
	}
	return out
}

func defNames(set *registry.ToolSet) []string {
	var out []string
	for _, d := range set.CodeModeDefs() {
		out = append(out, d.QualifiedName())
	}
	return out
}

func text(s string) json.RawMessage {
	return json.RawMessage(`{"text":` + string(registry.FreeformInput(s)) + `}`)
}
