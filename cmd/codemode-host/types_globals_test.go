package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/tsdecl"
)

func TestTypesGlobalsPrintsGlobalsAndTheToolsInterface(t *testing.T) {
	out := runHost(t, "", "types", "--globals")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Equal(t, tsdecl.Globals, out.stdout)

	withTools := runHost(t, "", "types", "--globals", "--tools", "../../examples/js/tool_call/tools.json")
	require.Equal(t, 0, withTools.code, withTools.stderr)
	assert.Equal(t, tsdecl.Globals+"\n"+"interface Tools {\n  /** Current weather for a city. */\n  get_weather(args: { city: string }): Promise<unknown>;\n}\n", withTools.stdout)

	bad := runHost(t, "", "types", "--globals", "--description")
	assert.Equal(t, 2, bad.code)

	// The README's recipe: the printed file, the wrapped cell, tsc.
	tsc, err := filepath.Abs("../../node_modules/.bin/tsc")
	require.NoError(t, err)
	_, err = os.Stat(tsc)
	testhost.Need(t, "tsc", err)
	dir := t.TempDir()
	files := map[string]string{
		"env.d.ts":      withTools.stdout,
		"tsconfig.json": tsdecl.TSConfig,
		"good.ts":       tsdecl.WrapCell("const w = await tools.get_weather({ city: 'Lisbon' });\nreturn w;"),
		"bad.ts":        tsdecl.WrapCell("await tools.get_weather({ town: 'Lisbon' });"),
	}
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	res, _ := exec.Command(tsc, "-p", dir, "--pretty", "false").CombinedOutput()
	assert.Contains(t, string(res), "bad.ts(1,")
	assert.Contains(t, string(res), "TS2353")
	assert.NotContains(t, string(res), "good.ts")
}
