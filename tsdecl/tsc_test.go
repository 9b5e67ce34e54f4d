package tsdecl

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	if _, err := os.Stat(tsc); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tsc not found at %s: run npm install at the module root", tsc)
		}
		t.Skipf("tsc not found at %s: run npm install at the module root to type-check declarations", tsc)
	}
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

const tsconfig = `{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "es2022",
    "lib": ["es2022"],
    "types": [],
    "module": "esnext",
    "moduleDetection": "force",
    "noUnusedLocals": false
  },
  "include": ["*.ts"]
}
`

// TestDeclarationsTypeCheck compiles every golden's declarations, with a
// generated call of each tool and the corpus's hand-written usage file
// (testdata/<name>.usage.ts) when there is one, using the real TypeScript
// compiler in strict mode.
func TestDeclarationsTypeCheck(t *testing.T) {
	tsc := tscPath(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(tsconfig), 0o644))
	corpus := loadCorpus(t)
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".ts"), []byte("export {};\n"+src), 0o644))
	}
	for _, c := range corpus {
		src := Declarations(c.defs) + "\n" + usage(c.defs)
		if hand, err := os.ReadFile(filepath.Join("testdata", c.name+".usage.ts")); err == nil {
			src += "\n" + string(hand)
		}
		write(c.name, src)
	}
	// The exec description's block, as the model sees it.
	desc := ExecDescription(execCorpus(t))
	start := strings.Index(desc, "```ts\n")
	require.GreaterOrEqual(t, start, 0)
	block := desc[start+len("```ts\n"):]
	block = block[:strings.Index(block, "```")]
	write("exec_description", block)
	// Options that change the shape: MCP results without a schema shape.
	o := Options{IsMCP: func(protocol.ToolDef) bool { return true }}
	all := execCorpus(t)
	write("is_mcp", o.Declarations(all)+"\n"+usage(all))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsc, "-p", dir, "--noEmit", "--strict")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "tsc rejected the declarations (files in %s):\n%s", dir, out)
}
