package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
)

// hostBin is the codemode-host binary built once for the tests in this
// package: they run the real binary, as a user would.
var hostBin string

func TestMain(m *testing.M) {
	os.Exit(testhost.Run(func() int {
		hostBin, _ = testhost.Path()
		return m.Run()
	}))
}

type runOutput struct {
	stdout, stderr string
	code           int
}

func runHost(t *testing.T, stdin string, args ...string) runOutput {
	t.Helper()
	cmd := exec.Command(hostBin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return runOutput{out.String(), errb.String(), code}
}

// TestExamples runs every examples/js/<name>/<name>.js (or .ts) through the built
// binary with --json and compares the output, minus timing fields, with
// <name>.out. UPDATE_GOLDEN=1 rewrites the .out files. A first line
// "// args: ..." adds flags.
func TestExamples(t *testing.T) {
	entries, err := filepath.Glob("../../examples/js/*")
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if st, err := os.Stat(e); err == nil && st.IsDir() {
			dirs = append(dirs, e)
		}
	}
	require.GreaterOrEqual(t, len(dirs), 12, "examples/js should hold at least 12 fixtures")
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			script := filepath.Join(dir, name+".js")
			if ts := filepath.Join(dir, name+".ts"); fileExists(ts) {
				script = ts
			}
			src, err := os.ReadFile(script)
			require.NoError(t, err)
			args := []string{"run", script, "--json"}
			if tools := filepath.Join(dir, "tools.json"); fileExists(tools) {
				args = append(args, "--tools", tools)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			if extra, ok := strings.CutPrefix(first, "// args: "); ok {
				args = append(args, strings.Fields(extra)...)
			}
			out := runHost(t, "", args...)
			got := normalise(t, out.stdout)

			var res struct{ Status string }
			require.NoError(t, json.Unmarshal([]byte(out.stdout), &res), out.stderr)
			if res.Status == "completed" {
				assert.Equal(t, 0, out.code, "exit code for a completed cell")
			} else {
				assert.Equal(t, 1, out.code, "exit code for status %s", res.Status)
			}

			golden := filepath.Join(dir, name+".out")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run with UPDATE_GOLDEN=1")
			assert.Equal(t, string(want), got)
		})
	}
}

// normalise drops the timing fields from --json output.
func normalise(t *testing.T, stdout string) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &v), "stdout is not JSON: %q", stdout)
	if stats, ok := v["stats"].(map[string]any); ok {
		delete(stats, "wall_ms")
		delete(stats, "cpu_ms")
		delete(stats, "heap_peak")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	return b.String()
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestRunHumanOutput(t *testing.T) {
	out := runHost(t, "", "run", "../../examples/js/uncaught_error/uncaught_error.js")
	assert.Equal(t, 1, out.code)
	assert.Contains(t, out.stdout, "before the error\n")
	assert.Contains(t, out.stdout, "── failed in ")
	assert.Contains(t, out.stdout, "TypeError: Cannot read properties of undefined (reading 'name')")
	assert.Contains(t, out.stdout, "> 6 |   return user.profile.name[0];")
	assert.Contains(t, out.stdout, "at initials (uncaught_error.js:6:23)")
}

func TestRunHumanOutputShowsLevelsAndImages(t *testing.T) {
	out := runHost(t, `console.log("plain"); console.warn("careful"); console.error("bad"); image("data:image/PNG;base64,AAAA")`, "run", "-")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "plain\n[warn] careful\n[error] bad\n[image image/png, detail ")
}

func TestRunTraceShowsToolCallsOnStderr(t *testing.T) {
	out := runHost(t, "", "run", "../../examples/js/tool_call/tool_call.js", "--tools", "../../examples/js/tool_call/tools.json", "--trace")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stderr, `→ get_weather #1 {"city":"Lisbon"}`)
	assert.Regexp(t, `← get_weather #1 ok after [0-9.]+[µm]?s: \{"city":"Lisbon"`, out.stderr)
	assert.NotContains(t, out.stdout, "get_weather #1")
}

func TestRunReadsStandardInput(t *testing.T) {
	out := runHost(t, "text('from stdin'); return 6 * 7", "run", "-", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, `"text": "from stdin"`)
	assert.Contains(t, out.stdout, `"text": "42"`)
}

func TestRunUsageErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"tools":[{"name":"x"}]}`), 0o644))
	typo := filepath.Join(dir, "typo.json")
	require.NoError(t, os.WriteFile(typo, []byte(`{"tools":[{"name":"x","reslt":1}]}`), 0o644))
	script := filepath.Join(dir, "s.js")
	require.NoError(t, os.WriteFile(script, []byte("return 1"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "exactly one SCRIPT"},
		{[]string{"run", "a.js", "b.js"}, "exactly one SCRIPT"},
		{[]string{"run", filepath.Join(dir, "missing.js")}, "cannot read script"},
		{[]string{"run", script, "--tools", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"run", script, "--tools", bad}, "give exactly one answer"},
		{[]string{"run", script, "--tools", typo}, `unknown field "reslt"`},
		{[]string{"run", script, "--timeout", "soon"}, "invalid argument"},
		{[]string{"run", script, "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"run", script, "--nope"}, "unknown flag: --nope"},
	} {
		out := runHost(t, "", tc.args...)
		assert.Equal(t, 2, out.code, "%v: %s", tc.args, out.stderr)
		assert.Contains(t, out.stderr, tc.want, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(out.stderr), "\n")+1, "one-line reason for %v: %q", tc.args, out.stderr)
		assert.Empty(t, out.stdout, "%v", tc.args)
	}
}

func TestRunHostileScriptsEndCleanly(t *testing.T) {
	for _, src := range []string{
		"throw null",
		"throw Symbol('s')",
		"const o = {}; o.o = o; text(o); return o",
		"text({ toJSON() { throw new Error('no') } })",
		"text(new Proxy({}, { get() { throw new Error('trap') } }))",
		"console.log(10n, Symbol.iterator, () => 1)",
		"Object.defineProperty(globalThis, 'JSON', {value: null}); JSON.stringify({})",
		"function f() { return f() } f()",
		"let s = 'x'; while (true) s += s;",
	} {
		out := runHost(t, src, "run", "-", "--json", "--timeout", "2s")
		var res struct {
			Status string
			Error  *struct{ Name, Message string }
		}
		require.NoError(t, json.Unmarshal([]byte(out.stdout), &res), "%s\nstderr: %s", src, out.stderr)
		assert.Contains(t, []string{"completed", "failed", "timed_out"}, res.Status, src)
		if res.Status == "completed" {
			assert.Equal(t, 0, out.code, src)
		} else {
			assert.Equal(t, 1, out.code, src)
			assert.NotEmpty(t, res.Error.Message, src)
		}
	}
}

func TestVersion(t *testing.T) {
	out := runHost(t, "", "version")
	require.Equal(t, 0, out.code)
	assert.Regexp(t, `^codemode-host \S+ \(V8 10\.9\.`, out.stdout)
}
