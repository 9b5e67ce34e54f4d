package tsdecl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// These tests hold the declarations to the real runtime (V8 with the
// prelude and the standard library): what tsc accepts runs.

func runCell(t *testing.T, src string) runtime.Result {
	t.Helper()
	rt := runtime.New(runtime.Config{})
	t.Cleanup(rt.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := rt.Run(ctx, runtime.CellRequest{Source: src, Language: protocol.LangTS})
	require.NoError(t, err)
	return res
}

// The stdlib cell, which type-checks against Globals and CheckLibs, runs.
func TestStdlibCellRuns(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "cells", "stdlib.ts"))
	require.NoError(t, err)
	res := runCell(t, string(src))
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
}

// Every global a script has is declared to tsc: by Globals, or by the
// TypeScript libs of CheckLib and Globals' references.
func TestEveryRuntimeGlobalIsDeclared(t *testing.T) {
	res := runCell(t, `return JSON.stringify(Object.getOwnPropertyNames(globalThis))`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	var names []string
	require.NoError(t, json.Unmarshal([]byte(res.Items[len(res.Items)-1].Text), &names))

	libs := libText(t, tsdecl.CheckLib, tsdecl.Globals)
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
		if n == "undefined" || n == "globalThis" { // the language's own
			continue
		}
		q := regexp.QuoteMeta(n)
		declared := regexp.MustCompile(`(?m)^declare (?:const|function|class) `+q+`\b`).MatchString(tsdecl.Globals) ||
			regexp.MustCompile(`(?m)^declare (?:var|const|function|namespace|(?:abstract )?class) `+q+`\b`).MatchString(libs)
		assert.True(t, declared, "the global %s is declared neither in globals.d.ts nor in the libs it and %s name", n, tsdecl.CheckLib)
	}
	// And every global Globals declares exists.
	for _, m := range regexp.MustCompile(`(?m)^declare (?:const|function|class) ([A-Za-z_$][\w$]*)`).FindAllStringSubmatch(tsdecl.Globals, -1) {
		assert.True(t, have[m[1]], "globals.d.ts declares %s, which a script does not have", m[1])
	}
}

// libText is the text of TypeScript's lib file for lib, with the libs it
// and refsFrom reference (/// <reference lib="..." />).
func libText(t *testing.T, lib, refsFrom string) string {
	dir := filepath.Join("..", "node_modules", "typescript", "lib")
	_, err := os.Stat(dir)
	testhost.Need(t, "typescript", err)
	ref := regexp.MustCompile(`/// <reference lib="([^"]+)" />`)
	seen := map[string]bool{}
	var b strings.Builder
	var load func(string)
	load = func(lib string) {
		if seen[lib] {
			return
		}
		seen[lib] = true
		data, err := os.ReadFile(filepath.Join(dir, "lib."+lib+".d.ts"))
		require.NoError(t, err, lib)
		b.Write(data)
		for _, m := range ref.FindAllStringSubmatch(string(data), -1) {
			load(m[1])
		}
	}
	load(lib)
	for _, m := range ref.FindAllStringSubmatch(refsFrom, -1) {
		load(m[1])
	}
	return b.String()
}
