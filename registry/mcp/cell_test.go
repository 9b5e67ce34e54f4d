package mcp_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
	"github.com/codemode-host/codemode-host/runtime"
)

// These tests run scripts in a real cell (in-process V8) whose tools are
// server-everything's, executed by the registry.

// progressCaller executes a cell's calls with set, reporting progress to
// onProgress (what the bridge does to turn it into progress events).
type progressCaller struct {
	set        *registry.ToolSet
	onProgress registry.ProgressFunc
}

func (c progressCaller) CallTool(ctx context.Context, tc protocol.ToolCall) (json.RawMessage, error) {
	return c.set.CallTool(registry.WithProgress(ctx, c.onProgress), tc)
}

func newRuntime(t *testing.T) *runtime.Runtime {
	rt := runtime.New(runtime.Config{})
	t.Cleanup(rt.Close)
	return rt
}

const everythingScript = `
const mine = ALL_TOOLS.filter(t => t.name.startsWith("mcp__everything__"));
const [echo, sum, weather] = await Promise.all([
  tools.mcp__everything__echo({message: "from a cell"}),
  tools.mcp__everything__get_sum({a: 20, b: 22}),
  tools.mcp__everything__get_structured_content({location: "New York"}),
]);
let caught = null;
try {
  await tools.mcp__everything__gzip_file_as_resource({name: "x.gz", data: "ftp://example.com/x"});
} catch (e) {
  caught = {name: e.name, code: e.code, tool: e.tool, why: e.message.includes("Unsupported URL protocol")};
}
return {
  tools: mine.length,
  echoListed: mine.some(t => t.name === "mcp__everything__echo"),
  echo: echo.content[0].text,
  sum: sum.content[0].text,
  temperature: typeof weather.structuredContent.temperature,
  meta: "_meta" in weather,
  caught,
};
`

func TestCell_listsCallsConcurrentlyAndCatchesAnError(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, log := proxiedEverything(t)
	srv := connect(t, reg, cfg)
	set := finalize(t, reg)

	res, err := newRuntime(t).Run(testCtx(t), runtime.CellRequest{
		Source: everythingScript,
		Tools:  set.CodeModeDefs(),
		Caller: set,
	})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.NotEmpty(t, res.Items)
	var got struct {
		Tools       int
		EchoListed  bool
		Echo, Sum   string
		Temperature string
		Meta        bool
		Caught      map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(res.Items[len(res.Items)-1].Text), &got))
	assert.Equal(t, len(srv.Tools()), got.Tools)
	assert.True(t, got.EchoListed)
	assert.Equal(t, "Echo: from a cell", got.Echo)
	assert.Contains(t, got.Sum, "42")
	assert.Equal(t, "number", got.Temperature)
	assert.False(t, got.Meta)
	assert.Equal(t, map[string]any{"name": "ToolError", "code": "tool_failed", "tool": "mcp__everything__.gzip-file-as-resource", "why": true}, got.Caught)

	// The three calls were in flight at the server at the same time: all
	// three requests reached it before the first answer left it.
	inFlight := map[any]bool{}
	maxInFlight := 0
	for _, m := range log.all(t) {
		if m.dir == '>' && m.msg["method"] == "tools/call" {
			inFlight[m.msg["id"]] = true
		}
		if m.dir == '<' && inFlight[m.msg["id"]] {
			delete(inFlight, m.msg["id"])
		}
		maxInFlight = max(maxInFlight, len(inFlight))
	}
	assert.GreaterOrEqual(t, maxInFlight, 2, "Promise.all ran the calls concurrently")
}

func TestCell_terminateCancelsTheServersCall(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	cfg, log := proxiedEverything(t)
	connect(t, reg, cfg)
	set := finalize(t, reg)

	started := make(chan struct{})
	var once sync.Once
	cell, err := newRuntime(t).Start(runtime.CellRequest{
		Source: `text("starting"); await tools.mcp__everything__trigger_long_running_operation({duration: 2, steps: 20}); text("finished");`,
		Tools:  set.CodeModeDefs(),
		Caller: progressCaller{set: set, onProgress: func(registry.Progress) { once.Do(func() { close(started) }) }},
	})
	require.NoError(t, err)
	waitFor(t, started, "the first progress report") // the server is running the operation
	cell.Terminate()
	res := cell.Result()
	assert.Equal(t, protocol.StatusTerminated, res.Status)
	for _, it := range res.Items {
		assert.NotEqual(t, "finished", it.Text)
	}

	// A call of the same length started after the terminated one: when it
	// is answered, the first would have been answered too, had the server
	// not cancelled it.
	_, err = call(t, set, testCtx(t), "trigger-long-running-operation", `{"duration":2,"steps":20}`)
	require.NoError(t, err)
	first := requestID(t, log, "trigger-long-running-operation", 0)
	cancelled, answered := log.cancelledAndDropped(t, first)
	assert.True(t, cancelled, "the server received notifications/cancelled for request %v", first)
	assert.False(t, answered, "the server dropped the cancelled call")
}

func TestCell_callsWaitForAServerStillStarting(t *testing.T) {
	t.Parallel()
	known := connect(t, registry.New(registry.Config{}), everythingConfig(t)).Tools()
	reg := registry.New(registry.Config{})
	cfg, _ := wrappedEverything(t, "sleep 1")
	cfg.Tools = known
	srv, err := mcp.Attach(testCtx(t), reg, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	set := finalize(t, reg)

	res, err := newRuntime(t).Run(testCtx(t), runtime.CellRequest{
		Source: `return (await tools.mcp__everything__get_sum({a: 1, b: 2})).content[0].text`,
		Tools:  set.CodeModeDefs(),
		Caller: set,
	})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Contains(t, res.Items[len(res.Items)-1].Text, "3")
}
