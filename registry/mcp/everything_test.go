package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// These tests run against the real @modelcontextprotocol/server-everything.

func TestConnect_registersEveryToolInTheServersNamespace(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	srv := connect(t, reg, everythingConfig(t))

	listed := srv.Tools()
	require.NotEmpty(t, listed)
	for _, def := range listed {
		info, ok := reg.Lookup(everythingTool(def.Name))
		require.True(t, ok, def.Name)
		assert.Equal(t, "everything", info.Server)
		assert.Equal(t, registry.Direct, info.Exposure)
		assert.True(t, info.Parallel)
	}
	for _, name := range []string{"echo", "get-sum", "get-structured-content", "trigger-long-running-operation"} {
		_, ok := reg.Lookup(everythingTool(name))
		assert.True(t, ok, name)
	}

	sum, _ := reg.Lookup(everythingTool("get-sum"))
	assert.Equal(t, "mcp__everything__get_sum", sum.Name.JSIdent())
	assert.JSONEq(t, `{"type":"number","description":"First number"}`, schemaProperty(t, sum.Spec.InputSchema, "a"))

	weather, _ := reg.Lookup(everythingTool("get-structured-content"))
	var out struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	require.NoError(t, json.Unmarshal(weather.Spec.OutputSchema, &out))
	assert.Equal(t, []string{"content", "structuredContent"}, out.Required)
	assert.Contains(t, string(out.Properties["structuredContent"]), "temperature")

	def, ok := srv.Lookup(everythingTool("get-sum"))
	require.True(t, ok)
	require.NotNil(t, def.Annotations)
	assert.True(t, def.Annotations.ReadOnlyHint)
}

func schemaProperty(t *testing.T, schema json.RawMessage, name string) string {
	t.Helper()
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(schema, &s))
	return string(s.Properties[name])
}

func TestConnect_exposurePolicyAppliesToEveryTool(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg := everythingConfig(t)
	cfg.Policy = &registry.ExposurePolicy{OmitFrom: registry.SurfaceDirect | registry.SurfaceDeferred}
	connect(t, reg, cfg)

	info, ok := reg.Lookup(everythingTool("echo"))
	require.True(t, ok)
	assert.Equal(t, registry.CodeModeOnly, info.Exposure)
	set := finalize(t, reg)
	for _, mt := range set.ModelTools() {
		assert.NotEqual(t, mcp.Namespace("everything"), mt.Name.Namespace, "code-mode-only tools are not in the model's list")
	}
	assert.NotEmpty(t, set.CodeModeDefs())
}

func TestConnect_fixedExposure(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg := everythingConfig(t)
	cfg.Exposure = registry.Deferred
	connect(t, reg, cfg)

	info, ok := reg.Lookup(everythingTool("get-sum"))
	require.True(t, ok)
	assert.Equal(t, registry.Deferred, info.Exposure)
	found, err := finalize(t, reg).Search("sum of two numbers", 3)
	require.NoError(t, err)
	require.NotEmpty(t, found.Hits)
	assert.Equal(t, everythingTool("get-sum"), found.Hits[0].Name)
}

func TestCall_scriptGetsTheResultWithoutMetaAndModelGetsTheText(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	connect(t, reg, everythingConfig(t))
	set := finalize(t, reg)
	ctx := testCtx(t)

	res, err := call(t, set, ctx, "echo", `{"message":"hi"}`)
	require.NoError(t, err)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"Echo: hi"}]}`, string(res.Value))
	assert.Equal(t, "Echo: hi", res.ModelText)

	res, err = call(t, set, ctx, "get-structured-content", `{"location":"Chicago"}`)
	require.NoError(t, err)
	var v struct {
		Content           []map[string]any `json:"content"`
		StructuredContent struct {
			Temperature *float64 `json:"temperature"`
			Conditions  string   `json:"conditions"`
		} `json:"structuredContent"`
		Meta any `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(res.Value, &v))
	require.NotNil(t, v.StructuredContent.Temperature)
	assert.NotEmpty(t, v.StructuredContent.Conditions)
	assert.Nil(t, v.Meta)
	assert.NotContains(t, res.ModelText, "_meta")
}

func TestCall_nonTextBlocksReachTheScriptAndAreSummarizedForTheModel(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	connect(t, reg, everythingConfig(t))
	res, err := call(t, finalize(t, reg), testCtx(t), "get-tiny-image", `{}`)
	require.NoError(t, err)
	var v struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MIMEType string `json:"mimeType"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(res.Value, &v))
	require.Len(t, v.Content, 3)
	assert.Equal(t, "image", v.Content[1].Type)
	assert.Equal(t, "image/png", v.Content[1].MIMEType)
	assert.NotEmpty(t, v.Content[1].Data, "the script gets the image data")
	lines := strings.Split(res.ModelText, "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "Here's the image you requested:", lines[0])
	assert.Regexp(t, `^\[image: image/png, \d+ bytes\]$`, lines[1])
	assert.Equal(t, v.Content[2].Text, lines[2])
}

func TestCall_isErrorResultIsAToolError(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	connect(t, reg, everythingConfig(t))
	set := finalize(t, reg)

	_, err := call(t, set, testCtx(t), "gzip-file-as-resource", `{"name":"x.gz","data":"ftp://example.com/x"}`)
	var terr *protocol.ToolError
	require.ErrorAs(t, err, &terr)
	assert.Equal(t, protocol.CodeToolFailed, terr.Code)
	assert.Equal(t, "mcp__everything__.gzip-file-as-resource", terr.Tool)
	assert.Contains(t, terr.Message, "Unsupported URL protocol")
	assert.Regexp(t, `^mcp: `, terr.Message)
}

func TestCall_progressReachesTheCallersProgressFunc(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	connect(t, reg, everythingConfig(t))
	set := finalize(t, reg)

	var mu sync.Mutex
	var got []registry.Progress
	ctx := registry.WithProgress(testCtx(t), func(p registry.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	res, err := call(t, set, ctx, "trigger-long-running-operation", `{"duration":0.4,"steps":4}`)
	require.NoError(t, err)
	assert.Contains(t, res.ModelText, "Long running operation completed")
	mu.Lock()
	defer mu.Unlock()
	// The SDK hands notifications to a queue and results straight to the
	// caller, so the last report may come after the result and is dropped.
	require.GreaterOrEqual(t, len(got), 3)
	for i, p := range got {
		assert.Equal(t, registry.Progress{Progress: float64(i + 1), Total: 4}, p)
	}
}

// A cancelled call sends notifications/cancelled, and the server drops
// the call: it never answers it, though it answers a later call of the
// same length that started after it.
func TestCall_cancellationReachesTheServer(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, log := proxiedEverything(t)
	connect(t, reg, cfg)
	set := finalize(t, reg)

	ctx, cancel := context.WithCancel(testCtx(t))
	started := make(chan struct{})
	var once sync.Once
	ctx = registry.WithProgress(ctx, func(registry.Progress) { once.Do(func() { close(started) }) })
	errc := make(chan error, 1)
	go func() {
		_, err := call(t, set, ctx, "trigger-long-running-operation", `{"duration":1.5,"steps":15}`)
		errc <- err
	}()
	waitFor(t, started, "the first progress report") // the server is running it
	cancel()
	var terr *protocol.ToolError
	require.ErrorAs(t, <-errc, &terr)
	assert.Equal(t, protocol.CodeCancelled, terr.Code)

	_, err := call(t, set, testCtx(t), "trigger-long-running-operation", `{"duration":1.5,"steps":15}`)
	require.NoError(t, err)

	first := requestID(t, log, "trigger-long-running-operation", 0)
	second := requestID(t, log, "trigger-long-running-operation", 1)
	cancelled, answered := log.cancelledAndDropped(t, first)
	assert.True(t, cancelled, "the server received notifications/cancelled for request %v", first)
	assert.False(t, answered, "the server dropped the cancelled call")
	_, answered = log.cancelledAndDropped(t, second)
	assert.True(t, answered, "the later call was answered")
}

// requestID is the JSON-RPC id of the n-th tools/call of tool in the log.
func requestID(t *testing.T, log proxyLog, tool string, n int) any {
	t.Helper()
	for _, m := range log.messages(t, '>') {
		if m["method"] != "tools/call" {
			continue
		}
		if params := m["params"].(map[string]any); params["name"] == tool {
			if n == 0 {
				return m["id"]
			}
			n--
		}
	}
	t.Fatalf("no tools/call #%d of %s in the proxy log", n, tool)
	return nil
}

func TestAttach_callsWaitForASlowStartingServer(t *testing.T) {
	t.Parallel()
	// Learn the tool list once, as a host would cache it.
	known := connect(t, registry.New(registry.Config{}), everythingConfig(t)).Tools()

	reg := registry.New(registry.Config{})
	cfg, _ := wrappedEverything(t, "sleep 1")
	cfg.Tools = known
	srv, err := mcp.Attach(testCtx(t), reg, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })

	_, ok := reg.Lookup(everythingTool("echo"))
	require.True(t, ok, "cached tools are registered at once")
	select {
	case <-srv.Ready():
		t.Fatal("the server can't be ready before its start-up sleep ends")
	default:
	}
	res, err := call(t, finalize(t, reg), testCtx(t), "echo", `{"message":"late"}`)
	require.NoError(t, err)
	assert.Equal(t, "Echo: late", res.ModelText)
	require.NoError(t, srv.Err())
}

func TestConnect_waitsForASlowStartingServer(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, _ := wrappedEverything(t, "sleep 1")
	connect(t, reg, cfg)
	_, ok := reg.Lookup(everythingTool("get-sum"))
	assert.True(t, ok)
}

func TestConnect_ignoresTextTheServerPrintsToStdout(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, _ := wrappedEverything(t, "echo 'Starting the everything server...'; echo")
	connect(t, reg, cfg)
	res, err := call(t, finalize(t, reg), testCtx(t), "echo", `{"message":"still fine"}`)
	require.NoError(t, err)
	assert.Equal(t, "Echo: still fine", res.ModelText)
}

func TestConnect_timeoutSaysHowToFixIt(t *testing.T) {
	t.Parallel()
	cfg, _ := wrappedEverything(t, "sleep 5")
	cfg.ConnectTimeout = 200 * time.Millisecond
	_, err := mcp.Connect(testCtx(t), registry.New(registry.Config{}), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ConnectTimeout")
}

func TestConnect_failureShowsTheServersStderr(t *testing.T) {
	t.Parallel()
	cfg := mcp.ServerConfig{Name: "broken", Command: "/bin/sh", Args: []string{"-c", "echo 'cannot open the database' >&2; exit 3"}}
	_, err := mcp.Connect(testCtx(t), registry.New(registry.Config{}), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `mcp: server "broken"`)
	assert.Contains(t, err.Error(), "cannot open the database")
}

func TestServerKilledMidCall_failsTheCallAndRemovesTheTools(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, pidFile := wrappedEverything(t, "")
	srv := connect(t, reg, cfg)
	set := finalize(t, reg)

	errc := startLongCall(t, set)
	require.NoError(t, syscall.Kill(readPid(t, pidFile), syscall.SIGKILL))

	var terr *protocol.ToolError
	require.ErrorAs(t, <-errc, &terr)
	assert.Equal(t, protocol.CodeToolFailed, terr.Code)
	assert.Contains(t, terr.Message, `server "everything" exited`)
	assert.Contains(t, terr.Message, "killed")
	t.Log(terr.Message)

	<-srv.Done()
	for _, name := range reg.Names() {
		assert.NotEqual(t, mcp.Namespace("everything"), name.Namespace, "tool %s was left behind", name)
	}
	assert.Empty(t, srv.Tools())

	// A set finalized before the server left still has the tool; the call
	// fails with a clear error instead of hanging.
	_, err := call(t, set, testCtx(t), "echo", `{"message":"anyone?"}`)
	require.ErrorAs(t, err, &terr)
	assert.Contains(t, terr.Message, `server "everything" exited`)
}

func TestClose_removesTheToolsAndStopsTheServer(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, pidFile := wrappedEverything(t, "")
	srv := connect(t, reg, cfg)
	pid := readPid(t, pidFile)

	require.NoError(t, srv.Close())
	<-srv.Done()
	_, ok := reg.Lookup(everythingTool("echo"))
	assert.False(t, ok)
	err := syscall.Kill(pid, 0)
	assert.True(t, errors.Is(err, syscall.ESRCH), "the server process is gone: %v", err)
	require.NoError(t, srv.Close(), "Close twice is fine")
}

func TestConnect_passesEnvToTheServer(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg := everythingConfig(t)
	cfg.Env = []string{"CODEMODE_MCP_PROBE=hello-from-config"}
	connect(t, reg, cfg)
	res, err := call(t, finalize(t, reg), testCtx(t), "get-env", `{}`)
	require.NoError(t, err)
	assert.Contains(t, res.ModelText, "hello-from-config")
	assert.Contains(t, res.ModelText, "PATH", "the parent's environment is kept")
}
