package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// These tests run a real go-sdk MCP server in the test process, for what
// server-everything can't be made to do on demand: change its tool list,
// answer with a JSON-RPC error.

func inProcessServer(t *testing.T) (*sdk.Server, mcp.ServerConfig) {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "inproc"}, &sdk.ServerOptions{Instructions: "In-process test tools."})
	clientT, serverT := sdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), serverT, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	return server, mcp.ServerConfig{Name: "inproc", Transport: clientT}
}

func textTool(name, desc string) (*sdk.Tool, sdk.ToolHandler) {
	return &sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " ran"}}}, nil
		}
}

func TestListChanged_updatesTheRegistry(t *testing.T) {
	t.Parallel()
	server, cfg := inProcessServer(t)
	server.AddTool(textTool("alpha", "first"))
	server.AddTool(textTool("beta", "second"))
	changes := make(chan []string, 16)
	cfg.Policy = &registry.ExposurePolicy{Search: true} // deferred
	cfg.OnToolsChanged = func(names []string) { changes <- names }
	reg := registry.New(registry.Config{})
	connect(t, reg, cfg)
	// The tools added before the client connected may still announce a
	// list_changed of their own, so a change can repeat the current list:
	// wait for the one each step makes.
	next := func(want ...string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case got := <-changes:
				if assert.ObjectsAreEqual(sorted(want), sorted(got)) {
					return
				}
			case <-deadline:
				t.Fatalf("no tools change to %v within 10s", want)
			}
		}
	}
	next("alpha", "beta")
	inproc := func(name string) registry.ToolName { return registry.Namespaced("mcp__inproc__", name) }

	server.AddTool(textTool("gamma", "third"))
	next("alpha", "beta", "gamma")
	_, ok := reg.Lookup(inproc("gamma"))
	assert.True(t, ok, "an added tool is registered")

	server.RemoveTools("alpha")
	next("beta", "gamma")
	_, ok = reg.Lookup(inproc("alpha"))
	assert.False(t, ok, "a removed tool is unregistered")

	server.AddTool(textTool("beta", "second, reworded"))
	deadline := time.After(10 * time.Second)
	for {
		info, ok := reg.Lookup(inproc("beta"))
		require.True(t, ok)
		if info.Spec.Description == "second, reworded" {
			break // a changed tool is registered again
		}
		select {
		case <-changes:
		case <-deadline:
			t.Fatalf("beta still reads %q: the changed tool was not registered again", info.Spec.Description)
		}
	}

	set := finalize(t, reg)
	res, err := set.Dispatch(testCtx(t), registry.Call{Name: inproc("gamma")})
	require.NoError(t, err)
	assert.Equal(t, "gamma ran", res.ModelText)
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__inproc__", Description: "In-process test tools."}}, set.DeferredNamespaces(),
		"the server's instructions describe its namespace")
}

func TestCall_protocolErrorIsAToolError(t *testing.T) {
	t.Parallel()
	server, cfg := inProcessServer(t)
	server.AddTool(&sdk.Tool{Name: "strict", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "strict wants a ticket number"}
		})
	reg := registry.New(registry.Config{})
	connect(t, reg, cfg)

	_, err := finalize(t, reg).Dispatch(testCtx(t), registry.Call{Name: registry.Namespaced("mcp__inproc__", "strict")})
	var terr *protocol.ToolError
	require.ErrorAs(t, err, &terr)
	assert.Equal(t, protocol.CodeToolFailed, terr.Code)
	assert.Equal(t, "mcp__inproc__.strict", terr.Tool)
	assert.Equal(t, `mcp: server "inproc" refused the call: strict wants a ticket number (JSON-RPC error -32602)`, terr.Message)
}

func TestClose_failsCallsInFlight(t *testing.T) {
	t.Parallel()
	server, cfg := inProcessServer(t)
	entered := make(chan struct{})
	server.AddTool(&sdk.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			close(entered)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	reg := registry.New(registry.Config{})
	srv := connect(t, reg, cfg)
	set := finalize(t, reg)

	errc := make(chan error, 1)
	go func() {
		_, err := set.Dispatch(testCtx(t), registry.Call{Name: registry.Namespaced("mcp__inproc__", "block")})
		errc <- err
	}()
	<-entered
	require.NoError(t, srv.Close())
	var terr *protocol.ToolError
	require.ErrorAs(t, <-errc, &terr)
	assert.Equal(t, protocol.CodeToolFailed, terr.Code)
	assert.Contains(t, terr.Message, `server "inproc" was closed`)
}

func TestAttach_cachedToolsFailClearlyWhenTheServerCantStart(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	// The server exits after a while without speaking MCP, so the call
	// below is made while the connection is still being tried (a command
	// that cannot start at all may fail before the call, and then the
	// tool is already gone).
	srv, err := mcp.Attach(testCtx(t), reg, mcp.ServerConfig{
		Name:    "gone",
		Command: "/bin/sh",
		Args:    []string{"-c", "echo 'gone: no config file' >&2; sleep 0.5; exit 3"},
		Tools:   []*sdk.Tool{{Name: "lookup", InputSchema: map[string]any{"type": "object"}}},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	set := finalize(t, reg)

	_, err = set.Dispatch(testCtx(t), registry.Call{Name: registry.Namespaced("mcp__gone__", "lookup")})
	var terr *protocol.ToolError
	require.ErrorAs(t, err, &terr)
	assert.Equal(t, protocol.CodeToolFailed, terr.Code)
	assert.Contains(t, terr.Message, `mcp: server "gone" could not connect`)
	assert.Contains(t, terr.Message, "gone: no config file", "the server's stderr says why")
	t.Log(terr.Message)
	<-srv.Done()
	_, ok := reg.Lookup(registry.Namespaced("mcp__gone__", "lookup"))
	assert.False(t, ok, "the tools of a server that could not start are removed")
}

func TestConnect_refusesABadConfig(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	for _, cfg := range []mcp.ServerConfig{
		{Name: "", Command: "x"},
		{Name: "a.b", Command: "x"},
		{Name: "ok"},
		{Name: "ok", Command: "x", URL: "http://localhost/mcp"},
	} {
		_, err := mcp.Attach(context.Background(), reg, cfg)
		require.Error(t, err, "%+v", cfg)
		assert.Regexp(t, `^mcp: `, err.Error())
	}
}

func TestConnect_aServerWithoutToolsHasNone(t *testing.T) {
	t.Parallel()
	server := sdk.NewServer(&sdk.Implementation{Name: "prompts-only"}, nil)
	server.AddPrompt(&sdk.Prompt{Name: "greet"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{}, nil
	})
	clientT, serverT := sdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), serverT, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })

	srv := connect(t, registry.New(registry.Config{}), mcp.ServerConfig{Name: "prompts", Transport: clientT})
	assert.Empty(t, srv.Tools())
	require.NoError(t, srv.Err())
}

// sorted returns a sorted copy of names.
func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}
