package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgent_cellUsesNativeAndMCPTools(t *testing.T) {
	bin := "../../node_modules/.bin/mcp-server-everything"
	_, statErr := os.Stat(bin)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("server-everything or node is missing (%v, %v); run npm ci", statErr, nodeErr)
		}
		t.Skip("server-everything or node is missing; run npm ci")
	}
	host := filepath.Join(t.TempDir(), "codemode-host")
	build := exec.Command("go", "build", "-o", host, "../../cmd/codemode-host")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out strings.Builder
	require.NoError(t, run(ctx, &out, host, []string{bin}))
	assert.Regexp(t, `the everything server offers \d+ tools`, out.String())
	assert.Contains(t, out.String(), "Paris: 21°C, clear\nThe sum of 19 and 23 is 42.\nEcho: hello from a cell\n")
	assert.Contains(t, out.String(), "remember failed as expected: invalid_arguments\n")
	assert.Contains(t, out.String(), `["The sum of 19 and 23 is 42."]`)
}
