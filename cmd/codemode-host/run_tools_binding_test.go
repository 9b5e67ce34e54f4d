package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// writeTempFile writes content to name in a new temporary directory and
// returns its path.
func writeTempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// runWithTools runs script with --json and the fixture file tools and decodes
// the result.
func runWithTools(t *testing.T, script, tools string) (runOutput, map[string]any) {
	t.Helper()
	out := runHost(t, script, "run", "-", "--json", "--tools", tools)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &res), "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	return out, res
}

// lastText is the text of the result's last item (the return value).
func lastText(t *testing.T, res map[string]any) string {
	t.Helper()
	items, _ := res["items"].([]any)
	require.NotEmpty(t, items, "result: %v", res)
	item, _ := items[len(items)-1].(map[string]any)
	text, _ := item["text"].(string)
	return text
}

const exposureFixture = `{"tools": [
  {"name": "lookup", "result": 1},
  {"name": "later", "exposure": "deferred", "result": 2},
  {"name": "only_here", "exposure": "code_mode_only", "result": 3},
  {"name": "ask_user", "exposure": "direct_model_only", "result": 4},
  {"name": "find_more", "exposure": "deferred_model_only", "result": 5},
  {"namespace": "admin", "name": "reset", "exposure": "hidden", "result": 6}
]}`

// Hidden and *_model_only fixture tools are registered but not bound:
// run completes, ALL_TOOLS and tools leave them out, and stderr says
// which were not bound and why.
func TestRunBindsOnlyCodeModeCallableFixtureTools(t *testing.T) {
	tools := writeTempFile(t, "tools.json", exposureFixture)
	script := `return {
  all: ALL_TOOLS.map(t => t.name),
  idents: Object.keys(tools),
  sum: (await tools.lookup()) + (await tools.later()) + (await tools.only_here()),
  hidden: typeof tools.admin__reset, askUser: typeof tools.ask_user,
}`
	out, res := runWithTools(t, script, tools)
	require.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	assert.Equal(t, "completed", res["status"])
	var got struct {
		All, Idents     []string
		Sum             int
		Hidden, AskUser string
	}
	require.NoError(t, json.Unmarshal([]byte(lastText(t, res)), &got))
	assert.Equal(t, []string{"lookup", "later", "only_here"}, got.All)
	assert.ElementsMatch(t, []string{"lookup", "later", "only_here"}, got.Idents)
	assert.Equal(t, 6, got.Sum)
	assert.Equal(t, "undefined", got.Hidden)
	assert.Equal(t, "undefined", got.AskUser)
	assert.Contains(t, out.stderr, `codemode-host: not bound: ask_user: exposure "direct_model_only" is not callable from scripts`)
	assert.Contains(t, out.stderr, `codemode-host: not bound: find_more: exposure "deferred_model_only" is not callable from scripts`)
	assert.Contains(t, out.stderr, `codemode-host: not bound: admin.reset: exposure "hidden" is not callable from scripts`)
	assert.NotContains(t, out.stderr, "lookup")
	assert.NotContains(t, out.stdout, "bad_field")
}

const schemaFixture = `{"tools": [
  {"name": "search_files",
   "input_schema": {"type": "object",
     "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
     "required": ["query"], "additionalProperties": false},
   "result": ["a.go"]},
  {"name": "list_files", "result": []},
  {"name": "patch", "kind": "freeform", "echo": true}
]}`

// registryError is the error the registry's dispatch gives a script's
// call of the fixture's search_files with input: the text run must give.
func registryError(t *testing.T, input string) *protocol.ToolError {
	t.Helper()
	var f struct {
		Tools []struct {
			Name        string
			InputSchema json.RawMessage `json:"input_schema"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(schemaFixture), &f))
	reg := registry.New(registry.Config{})
	spec := registry.Spec{Name: registry.Plain(f.Tools[0].Name), InputSchema: f.Tools[0].InputSchema}
	require.NoError(t, reg.AddTrusted(registry.NewFunc(spec, func(context.Context, registry.Invocation) (registry.Output, error) {
		return registry.Output{}, nil
	})))
	set, err := reg.Finalize(registry.ModeCodeMode)
	require.NoError(t, err)
	_, err = set.CallTool(context.Background(), protocol.ToolCall{Name: "search_files", Kind: protocol.KindFunction, Input: json.RawMessage(input)})
	var te *protocol.ToolError
	require.True(t, errors.As(err, &te), "the registry refuses %s: %v", input, err)
	return te
}

// A fixture tool's arguments are validated against its input_schema as
// a real parent's registry validates them, with the registry's error
// text, before the fixture answers; valid calls still get the answer.
func TestRunValidatesFixtureArgumentsWithTheRegistrysText(t *testing.T) {
	tools := writeTempFile(t, "tools.json", schemaFixture)
	script := `
const errs = [];
for (const args of [{query: 5, limit: 0}, {}, {query: "x", extra: true}]) {
  try { await tools.search_files(args); errs.push(null); }
  catch (e) { errs.push({name: e.name, code: e.code, tool: e.tool, message: e.message}); }
}
return {errs, ok: await tools.search_files({query: "main", limit: 2}), patch: await tools.patch("diff")};`
	out, res := runWithTools(t, script, tools)
	require.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	var got struct {
		Errs  []*struct{ Name, Code, Tool, Message string }
		OK    []string
		Patch string
	}
	require.NoError(t, json.Unmarshal([]byte(lastText(t, res)), &got))
	assert.Equal(t, []string{"a.go"}, got.OK)
	assert.Equal(t, "diff", got.Patch)
	require.Len(t, got.Errs, 3)
	for i, input := range []string{`{"query":5,"limit":0}`, `{}`, `{"query":"x","extra":true}`} {
		want := registryError(t, input)
		require.NotNil(t, got.Errs[i], "call %d with %s was not refused", i, input)
		assert.Equal(t, "ToolError", got.Errs[i].Name)
		assert.Equal(t, protocol.CodeInvalidArguments, got.Errs[i].Code)
		assert.Equal(t, "search_files", got.Errs[i].Tool)
		assert.Equal(t, want.Message, got.Errs[i].Message, "input %s", input)
	}
	assert.Contains(t, got.Errs[0].Message, "invalid arguments for search_files")
}

// A fixture whose input_schema does not compile is refused when run
// loads it (exit 2, one line), as the registry refuses such a tool.
func TestRunRefusesFixtureSchemaTheRegistryCannotCompile(t *testing.T) {
	tools := writeTempFile(t, "tools.json", `{"tools": [{"name": "x", "input_schema": {"type": "objekt"}, "result": 1}]}`)
	out := runHost(t, "return 1", "run", "-", "--tools", tools)
	assert.Equal(t, 2, out.code, out.stderr)
	assert.Contains(t, out.stderr, `tool #1 ("x")`)
	assert.Contains(t, out.stderr, "the input schema of x")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(out.stderr), "\n")+1, "one-line reason: %q", out.stderr)
	assert.Empty(t, out.stdout)
}

// A call of a tool name that is not bound fails with V8's TypeError,
// which names the closest bound tools.
func TestRunUnboundToolCallNamesTheClosestBoundTools(t *testing.T) {
	tools := writeTempFile(t, "tools.json", schemaFixture)
	out, res := runWithTools(t, `return await tools.serach_files({query: "x"})`, tools)
	assert.Equal(t, 1, out.code)
	assert.Equal(t, "failed", res["status"])
	e, _ := res["error"].(map[string]any)
	assert.Equal(t, "TypeError", e["name"])
	assert.Equal(t, "tools.serach_files is not a function; the closest bound tools are tools.search_files, tools.list_files, tools.patch", e["message"])

	out, res = runWithTools(t, `tools["list-files"]().then(() => 1); await new Promise(r => setTimeout(r, 1))`, tools)
	assert.Equal(t, 1, out.code)
	e, _ = res["error"].(map[string]any)
	assert.Contains(t, e["message"], "tools.list-files is not a function; the closest bound tools are tools.list_files, ")

	// Not a tool call: no hint.
	out, res = runWithTools(t, `const r = tools.list_files(); return r.map(x => x)`, tools)
	assert.Equal(t, 1, out.code)
	e, _ = res["error"].(map[string]any)
	assert.Equal(t, "r.map is not a function", e["message"])
}

// With no tools bound, the hint says so.
func TestRunUnboundToolCallWithoutToolsSaysNoneAreBound(t *testing.T) {
	out := runHost(t, `return await tools.search_files({})`, "run", "-", "--json")
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stdout, `"message": "tools.search_files is not a function; no tools are bound in this cell"`)
}

// Which exposures reach the host is one rule, protocol.CodeModeCallable:
// the registry's Code Mode filter, the runtime's binding and the host's
// exec check agree with it for every exposure.
func TestRunToolsExposureRuleIsCodeModeCallableOnEverySide(t *testing.T) {
	for e := registry.Direct; e <= registry.Hidden; e++ {
		name := e.String()
		want := protocol.CodeModeCallable(name)
		assert.Equal(t, want, e.InCodeMode(), "registry, %s", name)
		b := protocol.Bind([]protocol.ToolDef{{Name: "x", Exposure: name}})
		assert.Equal(t, want, len(b.Bound) == 1, "protocol.Bind, %s", name)
		_, err := protocol.Encode(&protocol.Exec{ID: 1, Session: "s", Source: "1", Tools: []protocol.ToolDef{{Name: "x", Exposure: name}}})
		assert.Equal(t, want, err == nil, "the host's exec check, %s: %v", name, err)
	}
	assert.True(t, protocol.CodeModeCallable(""), "no exposure means direct")
	assert.False(t, protocol.CodeModeCallable("public"))
}
