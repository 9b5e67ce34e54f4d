package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTypesPrintsDeclarations(t *testing.T) {
	out := runHost(t, "", "types", "--tools", "../../examples/js/tool_call/tools.json")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, "declare const tools: {\n  /** Current weather for a city. */\n  get_weather(args: { city: string }): Promise<unknown>;\n};\n", out.stdout)

	ts := runHost(t, "", "types", "--tools", "../../examples/js/tool_call/tools.json", "--ts")
	assert.Equal(t, out.stdout, ts.stdout)
}

func TestTypesPrintsExecDescription(t *testing.T) {
	out := runHost(t, "", "types", "--tools", "../../examples/js/namespaced_tool/tools.json", "--description")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "Top-level `await` works")
	assert.Contains(t, out.stdout, "declare const tools: {")
	assert.Contains(t, out.stdout, "mcp__files__read_file(")
	assert.Contains(t, out.stdout, "github__get_issue(")
}

func TestTypesUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"types"},
		{"types", "--tools", "../../examples/js/tool_call/tools.json", "--ts", "--description"},
		{"types", "--tools", "missing.json"},
	} {
		out := runHost(t, "", args...)
		assert.Equal(t, 2, out.code, "%v", args)
		assert.NotEmpty(t, out.stderr, "%v", args)
	}
}

// types shows the tools run binds, by run's rule: a tool the registry
// keeps out of Code Mode (a reserved name, a model-only exposure) is not
// declared, and stderr says why.
func TestTypesDeclaresWhatRunBinds(t *testing.T) {
	tools := writeTempFile(t, "tools.json", `{"tools": [
  {"name": "exec", "result": 1},
  {"name": "ask_user", "exposure": "direct_model_only", "result": 2},
  {"name": "lookup", "result": 3}
]}`)
	out := runHost(t, "", "types", "--tools", tools)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "lookup(")
	assert.NotContains(t, out.stdout, "exec(")
	assert.NotContains(t, out.stdout, "ask_user(")
	assert.Contains(t, out.stderr, "not bound: exec: the name is reserved")
	assert.Contains(t, out.stderr, `not bound: ask_user: exposure "direct_model_only"`)
}
