package main

import (
	"io"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/render"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// Defaults of Config. Every model request, cell, wait and tool call is
// bounded: no step of the loop waits without a deadline.
const (
	// DefaultMaxTurns is how many model requests one prompt may take.
	DefaultMaxTurns = 24
	// DefaultRequestTimeout bounds one model request (retries included).
	DefaultRequestTimeout = 2 * time.Minute
	// DefaultToolTimeout bounds one direct tool call of the model.
	DefaultToolTimeout = time.Minute
	// DefaultYield is how long exec and wait wait for a cell before they
	// return its output so far (status yielded).
	DefaultYield = protocol.DefaultYieldMS * time.Millisecond
	// MaxYield caps the yield a model asks for (exec's yield_ms or
	// pragma, wait's yield_time_ms): the default wall limit (and wait's
	// default), so a wait can last until the cell ends.
	MaxYield = tsdecl.DefaultWaitMS * time.Millisecond
	// cellGrace is how much longer than its yield an exec or wait may take
	// before its context ends (and the bridge terminates the cell).
	cellGrace = 30 * time.Second
)

// instructions is the system text of every request.
const instructions = "You are an agent with tools. Prefer the exec tool: write one JavaScript program that calls " +
	"every tool you need (in parallel with Promise.all where you can) and outputs only what matters. " +
	"When exec's result starts with \"" + render.RunningPrefix + "<id>\", call wait with that cell_id. " +
	"Answer the user in plain text when you are done."

// Config configures Run and Start. Model is required; every other zero
// field takes the default its doc names.
type Config struct {
	// HostPath is the codemode-host binary. Default "bin/codemode-host".
	HostPath string
	// MCPCommand runs the MCP server whose tools the agent offers (deferred:
	// found with tool_search, callable from scripts), as command and
	// arguments. Default none: no MCP server.
	MCPCommand []string
	// Model names the model, as the endpoint spells it. Required.
	Model string
	// Mode is the registry's tool mode. The zero value is
	// registry.ModeDirect (no exec); main passes registry.DefaultAgentMode
	// (code_mode_only) by default.
	Mode registry.Mode
	// ExecShape is how exec is offered (registry.Config.ExecShape). Default
	// registry.ExecFreeform, a custom tool.
	ExecShape registry.ExecShape
	// ModelOptions configure the Responses API client, after the
	// environment's (OPENAI_API_KEY, OPENAI_BASE_URL): a base URL, a key,
	// retries. Default none.
	ModelOptions []option.RequestOption
	// MaxTurns is how many model requests one prompt may take. Default
	// DefaultMaxTurns.
	MaxTurns int
	// RequestTimeout bounds each model request. Default
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ToolTimeout bounds each direct tool call. Default DefaultToolTimeout.
	ToolTimeout time.Duration
	// Yield is how long exec and wait wait for a cell when the model does
	// not say. Default DefaultYield.
	Yield time.Duration
	// Log receives one line per step (model turns, tool calls, progress),
	// from many goroutines at once (progress comes from the bridge's).
	// Default: discard.
	Log io.Writer
}

func (c Config) withDefaults() Config {
	if c.HostPath == "" {
		c.HostPath = "bin/codemode-host"
	}
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.ToolTimeout <= 0 {
		c.ToolTimeout = DefaultToolTimeout
	}
	if c.Yield <= 0 {
		c.Yield = DefaultYield
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}
