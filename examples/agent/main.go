// Command agent is the reference for embedding codemode-host in a Go
// agent: a model loop over the OpenAI Responses API (any endpoint that
// speaks it), a registry with two native tools and the tools of an MCP
// server, Code Mode cells run in a codemode-host process through the
// bridge, and each cell's result rendered for the model by render.
//
//	make build
//	export OPENAI_API_KEY=… OPENAI_BASE_URL=https://…/v1   # base URL optional
//	go run ./examples/agent -model gpt-5.1 'What is 19 + 23? Use the everything server.'
//
// By default (registry.DefaultAgentMode, code_mode_only) the model is
// offered exec and wait, and exec's description declares the native tools;
// the MCP server's tools are deferred, so scripts find them with
// searchTools() and ALL_TOOLS. With -mode code_mode the model also gets the
// native tools directly and tool_search, which loads the MCP tools it
// finds for its next step; -exec-shape function offers exec as a JSON
// function tool. The tool calls a script makes come back to this process,
// where the tool set of the current step executes them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/codemode-host/codemode-host/registry"
)

func main() {
	mcpCmd := flag.String("mcp", "node_modules/.bin/mcp-server-everything", "command (and arguments) that runs the MCP server")
	host := flag.String("host", "bin/codemode-host", "the codemode-host binary (make build)")
	model := flag.String("model", os.Getenv("OPENAI_MODEL"), "the model to ask (default $OPENAI_MODEL)")
	mode := flag.String("mode", registry.DefaultAgentMode.String(), "tool mode: code_mode_only (the lean default), code_mode or direct")
	shape := flag.String("exec-shape", registry.ExecFreeform.String(), "how exec is offered: freeform (a custom tool) or function")
	maxTurns := flag.Int("max-turns", DefaultMaxTurns, "most model requests for one prompt")
	timeout := flag.Duration("timeout", 10*time.Minute, "bound on the whole run")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: agent [flags] PROMPT\n\nOPENAI_API_KEY and OPENAI_BASE_URL (optional) reach the model.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *model == "" {
		flag.Usage()
		os.Exit(2)
	}
	m, err := registry.ParseMode(*mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(2)
	}
	execShape, err := registry.ParseExecShape(*shape)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	cfg := Config{
		HostPath:   *host,
		MCPCommand: strings.Fields(*mcpCmd),
		Model:      *model,
		Mode:       m,
		ExecShape:  execShape,
		MaxTurns:   *maxTurns,
		Log:        os.Stderr,
		// option.WithBaseURL and option.WithAPIKey default to
		// OPENAI_BASE_URL and OPENAI_API_KEY.
		ModelOptions: []option.RequestOption{option.WithMaxRetries(2)},
	}
	answer, err := Run(ctx, cfg, strings.Join(flag.Args(), " "))
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
	fmt.Println(answer)
}
