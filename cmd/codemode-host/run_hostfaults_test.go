package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// runJSON parses the --json output of a run.
func runJSON(t *testing.T, out runOutput) jsonResult {
	t.Helper()
	var res jsonResult
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &res), "stdout: %s\nstderr: %s", out.stdout, out.stderr)
	return res
}

func TestRunJSONReportsAV8AbortAsHostDiedErrorWithItsCause(t *testing.T) {
	out := runHost(t, `return "x".repeat(2**27 + 10).split("").length`, "run", "-", "--json")
	assert.Equal(t, 1, out.code)
	res := runJSON(t, out)
	assert.Equal(t, protocol.StatusFailed, res.Status)
	require.NotNil(t, res.Error)
	assert.Equal(t, "HostDiedError", res.Error.Name)
	assert.True(t, strings.HasPrefix(res.Error.Message, "the host process died (exit status 2: Fatal JavaScript invalid size error "), res.Error.Message)
	assert.Contains(t, res.Error.Message, "the script built a string, array or table larger than V8 can hold, which aborts V8: build it in smaller pieces")
	assert.Empty(t, res.Items)
	assert.Contains(t, out.stderr, "codemode-host: bridge: the host died (exit status 2: Fatal JavaScript invalid size error")
}

// TestRunEndsWithinTimeoutPlusGraceWhateverTheHost: a cell V8 cannot stop
// (a builtin's loop over 10^12 indexes, no termination check) on a host
// that never reports it stuck: run still ends, after --timeout + runSlack
// + runGrace, with status timed_out.
func TestRunEndsWithinTimeoutPlusGraceWhateverTheHost(t *testing.T) {
	const timeout = time.Second
	limit := timeout + runSlack + runGrace + 20*time.Second // process start-up and a loaded machine
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, hostBin, "run", "-", "--json", "--timeout", timeout.String())
	cmd.Env = append(os.Environ(), "CODEMODE_HOST_STUCK_AFTER=1h")
	cmd.Stdin = strings.NewReader(`Array.prototype.includes.call({length: 1e12}, 1)`)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "run did not end within %s", limit)
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "run exits with a status: %v", err)
	assert.Equal(t, 1, ee.ExitCode())
	res := runJSON(t, runOutput{stdout.String(), stderr.String(), ee.ExitCode()})
	assert.Equal(t, protocol.StatusTimedOut, res.Status)
	require.NotNil(t, res.Error)
	// This host never answers (HostUnresponsiveError); one that reports
	// the cell stuck anyway is fine too.
	assert.Contains(t, []string{"HostUnresponsiveError", protocol.ErrorNameStuck}, res.Error.Name, "%+v", res.Error)
	t.Logf("run ended after %v with %s: %s", time.Since(start).Round(time.Millisecond), res.Error.Name, res.Error.Message)
}
