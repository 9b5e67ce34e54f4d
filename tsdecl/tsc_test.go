package tsdecl

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/protocol"
)

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "go.mod not found above the test directory")
		dir = parent
	}
}

// tscPath returns the repository's TypeScript compiler, skipping the test
// when it is not installed (failing in CI).
func tscPath(t *testing.T) string {
	t.Helper()
	tsc := filepath.Join(moduleRoot(t), "node_modules", ".bin", "tsc")
	_, err := os.Stat(tsc)
	testhost.Need(t, "tsc (to type-check declarations)", err)
	return tsc
}

// usage calls every declared tool so tsc checks the signatures are usable:
// arguments of the declared parameter type, results of the declared type.
func usage(defs []protocol.ToolDef) string {
	var b strings.Builder
	seen := map[string]bool{}
	for i, d := range defs {
		id := protocol.JSIdent(d.Namespace, d.Name)
		if seen[id] {
			continue
		}
		seen[id] = true
		fn := "tools." + id
		b.WriteString("async function use" + strconv.Itoa(i) + "(): Promise<void> {\n")
		b.WriteString("  const input = undefined as unknown as Parameters<typeof " + fn + ">[0];\n")
		b.WriteString("  const result: Awaited<ReturnType<typeof " + fn + ">> = await " + fn + "(input);\n")
		b.WriteString("  void result;\n}\n")
	}
	return b.String()
}

// TestDeclarationsTypeCheck runs the real TypeScript compiler once, in
// strict mode with the settings a parent uses to check a cell (TSConfig),
// over:
//
//   - every golden's declarations as the model sees them (a module each),
//     with a generated call of each tool and the corpus's hand-written
//     usage file (testdata/<name>.usage.ts) when there is one;
//   - the exec descriptions' ts blocks;
//   - Globals and the 37 real MCP tools' ToolsInterface (testdata/mcp37.json),
//     with the model-style cells of testdata/cells, which must pass, and
//     those of testdata/cells/bad, which must fail with the error their
//     first line names ("// want: TS2345").
func TestDeclarationsTypeCheck(t *testing.T) {
	tsc := tscPath(t)
	dir := t.TempDir()
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	module := func(name, src string) { write(name+".ts", "export {};\n"+src) }
	corpus := loadCorpus(t)
	for _, c := range corpus {
		src := Declarations(c.defs) + "\n" + usage(c.defs)
		if hand, err := os.ReadFile(filepath.Join("testdata", c.name+".usage.ts")); err == nil {
			src += "\n" + string(hand)
		}
		module("decl_"+c.name, src)
	}
	// The exec descriptions' blocks, as the model sees them.
	module("exec_description", tsBlock(t, ExecDescription(execCorpus(t))))
	module("exec_mcp37", tsBlock(t, mcp37Exec(t)))
	// Options that change the shape: MCP results without a schema shape.
	o := Options{IsMCP: func(protocol.ToolDef) bool { return true }}
	all := execCorpus(t)
	module("is_mcp", o.Declarations(all)+"\n"+usage(all))

	// A parent's check of cells: Globals, the tools, the wrapped cells.
	cells := map[string]string{}
	want := map[string]string{} // file → the error code it must fail with
	for _, sub := range []string{"", "bad"} {
		paths, err := filepath.Glob(filepath.Join("testdata", "cells", sub, "*.ts"))
		require.NoError(t, err)
		require.NotEmpty(t, paths)
		for _, p := range paths {
			src, err := os.ReadFile(p)
			require.NoError(t, err)
			name := "cell_" + filepath.Base(p)
			if sub == "bad" {
				name = "bad_" + filepath.Base(p)
				first, _, _ := strings.Cut(string(src), "\n")
				code, ok := strings.CutPrefix(first, "// want: ")
				require.True(t, ok, "%s: the first line says which error it wants", p)
				want[name] = code
			}
			cells[name] = string(src)
		}
	}
	for name, src := range CheckFiles(mcp37(t), cells) {
		write(name, src)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsc, "-p", dir, "--pretty", "false")
	out, _ := cmd.CombinedOutput()
	got := map[string][]string{}
	var other []string
	for line := range strings.SplitSeq(string(out), "\n") {
		m := diagnostic.FindStringSubmatch(line)
		switch {
		case m != nil:
			file := filepath.Base(m[1])
			got[file] = append(got[file], m[4])
			if want[file] == "" {
				other = append(other, line)
			}
		case strings.TrimSpace(line) != "" && !strings.HasPrefix(line, " "):
			other = append(other, line)
		}
	}
	require.Empty(t, other, "tsc rejected declarations or cells that must pass (files in %s):\n%s", dir, out)
	for name, code := range want {
		assert.Contains(t, got[name], code, "%s must fail with %s; tsc said %v", name, code, got[name])
	}
}

// diagnostic matches a tsc diagnostic line without --pretty.
var diagnostic = regexp.MustCompile(`^([^(]+)\((\d+),(\d+)\): error (TS\d+):`)

// tsBlock is the ts code block of an exec description.
func tsBlock(t *testing.T, desc string) string {
	t.Helper()
	start := strings.Index(desc, "```ts\n")
	require.GreaterOrEqual(t, start, 0)
	block := desc[start+len("```ts\n"):]
	return block[:strings.Index(block, "```")]
}

func TestWrapCellKeepsLineNumbers(t *testing.T) {
	src := "const a = 1;\nreturn a;"
	got := WrapCell(src)
	assert.Equal(t, strings.Count(src, "\n")+2, strings.Count(got, "\n"))
	assert.True(t, strings.HasPrefix(got, "async function __cell() { const a = 1;\nreturn a;\n"))
	assert.Equal(t, len("async function __cell() { "), CellColumnOffset)
	files := CheckFiles(nil, map[string]string{"a.ts": "return 1", "b": "return 2"})
	assert.Contains(t, files, "a.ts")
	assert.Contains(t, files, "b.ts")
	assert.Equal(t, "interface Tools {}\n", files["tools.d.ts"])
	assert.Equal(t, Globals, files["globals.d.ts"])
}
