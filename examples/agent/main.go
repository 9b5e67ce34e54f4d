// Command agent is the reference for embedding codemode-host in a Go agent:
// a registry with two native tools and the tools of an MCP server, and one
// Code Mode cell (the JavaScript a model would write) that uses both.
//
//	make build && go run ./examples/agent          # server-everything from node_modules (make setup)
//	go run ./examples/agent -host bin/codemode-host -mcp 'npx -y @modelcontextprotocol/server-everything'
//
// The cell runs in a codemode-host process that the bridge launches; the
// tool calls the script makes come back to this process, where the same
// ToolSet that advertised the tools executes them.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// script is what the model would send to the exec tool: it finds the MCP
// tools in ALL_TOOLS, calls a native tool and two MCP tools at once, and
// handles a failing call.
const script = `
const mcpTools = ALL_TOOLS.filter(t => t.name.startsWith("mcp__everything__"));
text("the everything server offers " + mcpTools.length + " tools");

const [weather, sum, echo] = await Promise.all([
  tools.weather({city: "Paris"}),
  tools.mcp__everything__get_sum({a: 19, b: 23}),
  tools.mcp__everything__echo({message: "hello from a cell"}),
]);
text("Paris: " + weather.celsius + "°C, " + weather.sky);
text(sum.content[0].text);
text(echo.content[0].text);

await tools.mcp__everything__trigger_long_running_operation({duration: 0.3, steps: 3});

try {
  await tools.remember({note: ""});
} catch (e) {
  text("remember failed as expected: " + e.code);
}
return (await tools.remember({note: sum.content[0].text})).notes;
`

func main() {
	mcpCmd := flag.String("mcp", "node_modules/.bin/mcp-server-everything", "command (and arguments) that runs the MCP server")
	host := flag.String("host", "bin/codemode-host", "the codemode-host binary (make build)")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *host, strings.Fields(*mcpCmd)); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// run builds the registry, connects the MCP server, runs the cell in the
// host at hostPath and prints its output to out.
func run(ctx context.Context, out io.Writer, hostPath string, mcpCmd []string) error {
	// 1. The registry, with the agent's own (trusted) tools.
	reg := registry.New(registry.Config{})
	if err := addNativeTools(reg); err != nil {
		return err
	}

	// 2. An MCP server's tools, in namespace mcp__everything__. Connect
	// returns once they are registered; Close removes them.
	if len(mcpCmd) == 0 {
		return fmt.Errorf("no MCP server command")
	}
	srv, err := mcp.Connect(ctx, reg, mcp.ServerConfig{
		Name:    "everything",
		Command: mcpCmd[0],
		Args:    mcpCmd[1:],
	})
	if err != nil {
		return err
	}
	defer srv.Close()

	// 3. One model step: freeze the registry into a tool set. The model is
	// offered set.ModelTools(); the cell gets set.CodeModeDefs(), and the
	// same set executes the calls the cell makes.
	set, err := reg.Finalize(registry.ModeCodeMode)
	if err != nil {
		return err
	}

	// 4. Start the host (go-plugin launches it; it exits when this process
	// does) and open a session. The executor serves the cell's tool calls;
	// progress reports of long calls reach it through the call's context.
	client, err := bridge.Start(ctx, bridge.Config{
		HostPath: hostPath,
		Executor: withProgress{set: set, log: os.Stderr},
	})
	if err != nil {
		return err
	}
	defer client.Close(time.Second)
	session, err := client.OpenSession(ctx, "agent", nil)
	if err != nil {
		return err
	}

	// 5. Run the cell: the source the model wrote and the tools it may call.
	res, err := session.Exec(ctx, bridge.ExecRequest{
		Source: script,
		Tools:  set.CodeModeDefs(),
		Yield:  time.Minute,
	})
	if err != nil {
		return err
	}
	for _, it := range res.Items {
		fmt.Fprintln(out, it.Text)
	}
	if res.Status != protocol.StatusCompleted {
		return fmt.Errorf("the cell ended %s: %+v", res.Status, res.Error)
	}
	return nil
}

// withProgress executes a cell's calls with the tool set and prints the
// progress they report to log.
type withProgress struct {
	set *registry.ToolSet
	log io.Writer
}

func (c withProgress) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	ctx = registry.WithProgress(ctx, func(p registry.Progress) {
		fmt.Fprintf(c.log, "progress of %s: %g/%g\n", call.QualifiedName(), p.Progress, p.Total)
	})
	return c.set.CallTool(ctx, call)
}

type weatherIn struct {
	City string `json:"city"`
}

type weatherOut struct {
	Celsius int    `json:"celsius"`
	Sky     string `json:"sky"`
}

type rememberIn struct {
	Note string `json:"note"`
}

type rememberOut struct {
	Notes []string `json:"notes"`
}

// addNativeTools registers the agent's own tools: one read-only (it may
// run alongside others) and one that keeps state.
func addNativeTools(reg *registry.Registry) error {
	weather := registry.NewTypedFunc(registry.Spec{
		Name:             registry.Plain("weather"),
		Description:      "Current weather in a city.",
		InputSchema:      json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema:     json.RawMessage(`{"type":"object","properties":{"celsius":{"type":"integer"},"sky":{"type":"string"}},"required":["celsius","sky"]}`),
		SupportsParallel: true,
	}, func(_ context.Context, in weatherIn) (weatherOut, error) {
		return weatherOut{Celsius: 21, Sky: "clear"}, nil
	})
	var notes []string
	remember := registry.NewTypedFunc(registry.Spec{
		Name:        registry.Plain("remember"),
		Description: "Keeps a note and returns every note kept so far.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}},"required":["note"]}`),
	}, func(_ context.Context, in rememberIn) (rememberOut, error) {
		if in.Note == "" {
			return rememberOut{}, &protocol.ToolError{Code: protocol.CodeInvalidArguments, Message: "remember needs a non-empty note"}
		}
		notes = append(notes, in.Note) // remember is not parallel: calls run one at a time
		return rememberOut{Notes: notes}, nil
	})
	if err := reg.AddTrusted(weather); err != nil {
		return err
	}
	return reg.AddTrusted(remember)
}
