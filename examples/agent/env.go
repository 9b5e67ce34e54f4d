package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// Agent is what conversations share: the registry with the native tools
// and the MCP server's, and the codemode-host process the bridge runs.
// Its methods are safe from any goroutine.
type Agent struct {
	cfg    Config
	reg    *registry.Registry
	srv    *mcp.Server // nil without Config.MCPCommand
	client *bridge.Client
	exec   *currentSet
	nextID atomic.Uint64
}

// Run answers one prompt: it starts an Agent, has one conversation and
// closes the agent.
func Run(ctx context.Context, cfg Config, prompt string) (string, error) {
	a, err := Start(ctx, cfg)
	if err != nil {
		return "", err
	}
	defer a.Close()
	return a.Ask(ctx, prompt)
}

// Start builds the registry, connects the MCP server and starts the host.
func Start(ctx context.Context, cfg Config) (*Agent, error) {
	cfg = cfg.withDefaults()
	if cfg.Model == "" {
		return nil, errors.New("agent: no model; set Config.Model (-model or OPENAI_MODEL)")
	}
	a := &Agent{cfg: cfg, reg: registry.New(registry.Config{ExecShape: cfg.ExecShape}), exec: &currentSet{log: cfg.Log}}
	if err := addNativeTools(a.reg); err != nil {
		return nil, err
	}
	if len(cfg.MCPCommand) > 0 {
		// The server's tools, in namespace mcp__everything__, deferred:
		// scripts find them in ALL_TOOLS, the model with tool_search.
		// Connect returns once they are registered; Close removes them.
		srv, err := mcp.Connect(ctx, a.reg, mcp.ServerConfig{
			Name:     "everything",
			Command:  cfg.MCPCommand[0],
			Args:     cfg.MCPCommand[1:],
			Exposure: registry.Deferred,
		})
		if err != nil {
			return nil, err
		}
		a.srv = srv
	}
	if _, err := a.toolSet(); err != nil {
		a.Close()
		return nil, err
	}
	// The host (go-plugin launches it; it exits with this process). The
	// executor serves the scripts' tool calls with the current tool set.
	client, err := bridge.Start(ctx, bridge.Config{HostPath: cfg.HostPath, Executor: a.exec})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.client = client
	return a, nil
}

// Close stops the host and the MCP server.
func (a *Agent) Close() {
	if a.client != nil {
		a.client.Close(time.Second)
	}
	if a.srv != nil {
		a.srv.Close()
	}
}

// toolSet freezes the registry for one model step (the same set while
// nothing changed) and makes it the one that runs the scripts' calls.
func (a *Agent) toolSet() (*registry.ToolSet, error) {
	set, err := a.reg.Finalize(a.cfg.Mode)
	if err != nil {
		return nil, err
	}
	a.exec.set.Store(set)
	return set, nil
}

// Ask has one conversation about prompt, in a session of its own, and
// returns the model's final answer.
func (a *Agent) Ask(ctx context.Context, prompt string) (string, error) {
	id := fmt.Sprintf("conversation-%d", a.nextID.Add(1))
	session, err := a.client.OpenSession(ctx, id, nil)
	if err != nil {
		return "", err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = session.Close(cctx)
	}()
	c := newConversation(a, session)
	return c.run(ctx, prompt)
}

// currentSet runs a script's tool call with the tool set of the current
// model step, and logs the progress long calls report.
type currentSet struct {
	set atomic.Pointer[registry.ToolSet]
	log io.Writer
}

// CallTool implements bridge.ToolExecutor.
func (c *currentSet) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	ctx = registry.WithProgress(ctx, func(p registry.Progress) {
		fmt.Fprintf(c.log, "progress of %s: %g/%g\n", call.QualifiedName(), p.Progress, p.Total)
	})
	return c.set.Load().CallTool(ctx, call)
}
