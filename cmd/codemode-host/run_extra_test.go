package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
)

// everythingServer is the reference MCP server installed by `make setup`.
func everythingServer(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("../../node_modules/.bin/mcp-server-everything")
	require.NoError(t, err)
	_, err = os.Stat(bin)
	testhost.Need(t, "mcp-server-everything", err)
	return bin
}

func TestRunBindsMCPServerTools(t *testing.T) {
	server := everythingServer(t)
	script := `
const names = ALL_TOOLS.map(t => t.name);
const [echo, sum] = await Promise.all([
  tools.mcp__everything__echo({ message: "hi" }),
  tools.mcp__everything__get_sum({ a: 2, b: 3 }),
]);
let caught = "";
try { await tools.mcp__everything__get_sum({ a: "two" }); } catch (e) { caught = e.name + ":" + e.code; }
notify("done");
return { hasEcho: names.includes("mcp__everything__echo"), echo: echo.content[0].text, sum: sum.content[0].text, caught };`
	out := runHost(t, script, "run", "-", "--json", "--trace", "--mcp", "everything="+server)
	require.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	var res struct {
		Items []struct{ Text string }
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &res))
	require.Len(t, res.Items, 1)
	assert.JSONEq(t, `{"hasEcho": true, "echo": "Echo: hi", "sum": "The sum of 2 and 3 is 5.", "caught": "ToolError:invalid_arguments"}`, res.Items[0].Text)
	assert.Contains(t, out.stderr, "→ mcp__everything__.echo #")
	assert.Contains(t, out.stderr, "[notify] done")
}

func TestRunMCPFlagErrors(t *testing.T) {
	out := runHost(t, "return 1", "run", "-", "--mcp", "no-equals-sign")
	assert.Equal(t, 2, out.code, out.stderr)
	assert.Contains(t, out.stderr, "--mcp")

	out = runHost(t, "return 1", "run", "-", "--mcp", "ghost=/nonexistent/mcp-server")
	assert.NotEqual(t, 0, out.code)
	assert.Contains(t, out.stderr, "ghost")
}

func TestRunLanguage(t *testing.T) {
	out := runHost(t, "const n: number = 41;\nreturn n + 1;", "run", "-", "--lang", "ts", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, `"text": "42"`)

	out = runHost(t, "const n: number = 41;", "run", "-", "--json")
	assert.Equal(t, 1, out.code, "types are a syntax error in JavaScript")
	assert.Contains(t, out.stdout, `"name": "SyntaxError"`)

	out = runHost(t, "return 1", "run", "-", "--lang", "python")
	assert.Equal(t, 2, out.code)
	assert.Contains(t, out.stderr, "--lang must be js or ts")
}

// An empty script is an empty program: it completes with no output.
func TestRunEmptyScriptCompletes(t *testing.T) {
	out := runHost(t, "", "run", "-", "--json")
	require.Equal(t, 0, out.code, "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	assert.Contains(t, out.stdout, `"status": "completed"`)
	assert.Contains(t, out.stdout, `"items": []`)
}
