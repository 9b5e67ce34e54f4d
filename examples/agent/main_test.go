package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/render"
)

func TestMain(m *testing.M) { testhost.Main(m) }

// Recorded model output items, in the Responses API's shapes.

func customCall(callID, name, input string) json.RawMessage {
	return item(map[string]any{"type": "custom_tool_call", "id": "ctc_" + callID, "call_id": callID, "name": name, "input": input, "status": "completed"})
}

func functionCall(callID, name, args string) json.RawMessage {
	return item(map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": name, "arguments": args, "status": "completed"})
}

func message(text string) json.RawMessage {
	return item(map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}})
}

func item(v map[string]any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// turn is one recorded response: its output items.
func turn(items ...json.RawMessage) json.RawMessage {
	b, err := json.Marshal(items)
	if err != nil {
		panic(err)
	}
	return b
}

// mcpServer is server-everything from node_modules; the test is skipped
// (failed under CI) without it or node.
func mcpServer(t testing.TB) string {
	t.Helper()
	bin := "../../node_modules/.bin/mcp-server-everything"
	_, err := os.Stat(bin)
	testhost.Need(t, "server-everything", err)
	_, err = exec.LookPath("node")
	testhost.Need(t, "node", err)
	return bin
}

// startAgent starts an agent on server-everything whose model is the
// replay server.
func startAgent(t *testing.T, ctx context.Context, model *replay, mode registry.Mode, shape registry.ExecShape, log io.Writer) *Agent {
	t.Helper()
	a, err := Start(ctx, Config{
		HostPath:       testhost.Bin(t),
		MCPCommand:     []string{mcpServer(t)},
		Model:          "replay-1",
		Mode:           mode,
		ExecShape:      shape,
		ModelOptions:   []option.RequestOption{option.WithBaseURL(model.url), option.WithAPIKey("test-key"), option.WithMaxRetries(0)},
		MaxTurns:       6,
		RequestTimeout: 10 * time.Second,
		Log:            log,
	})
	require.NoError(t, err)
	t.Cleanup(a.Close)
	return a
}

// TestAgent drives the model loop against recorded model turns; the
// registry, the bridge, the host binary and server-everything are real.
func TestAgent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := newReplay(t)
	var log testhost.Buffer // progress reports write from the bridge's goroutines
	a := startAgent(t, ctx, model, registry.ModeCodeMode, registry.ExecFreeform, &log)

	t.Run("exec calls MCP and native tools, then the model answers", func(t *testing.T) {
		model.play(
			turn(customCall("call_1", "exec", `
const [sum, echo] = await Promise.all([
  tools.mcp__everything__get_sum({a: 19, b: 23}),
  tools.mcp__everything__echo({message: "hello from a cell"}),
]);
text(sum.content[0].text);
text(echo.content[0].text);
try {
  await tools.remember({note: ""});
} catch (e) {
  console.warn("remember failed: " + e.code);
}
return await tools.weather({city: "Paris"});`)),
			turn(message("19 + 23 = 42, and Paris is clear.")),
		)
		answer, err := a.Ask(ctx, "What is 19 + 23, and the weather in Paris?")
		require.NoError(t, err)
		assert.Equal(t, "19 + 23 = 42, and Paris is clear.", answer)
		require.Equal(t, 2, model.count())

		first := model.request(t, 1)
		assert.Equal(t, "replay-1", first["model"])
		assert.Contains(t, first["instructions"], "exec")
		tools := model.toolNames(t, 1)
		assert.Equal(t, []string{"exec:custom", "wait:function", "weather:function", "remember:function", "tool_search:function"}, tools,
			"the MCP tools are deferred: found with tool_search, not listed")

		assert.Equal(t, []string{"message:user", "custom_tool_call", "custom_tool_call_output"}, model.inputTypes(t, 2),
			"every request carries the whole conversation")
		out, typ := model.output(t, 2, "call_1")
		assert.Equal(t, "custom_tool_call_output", typ)
		assert.Regexp(t, `^Script completed · \d+ ms\n`, out)
		assert.Contains(t, out, "\nThe sum of 19 and 23 is 42.\nEcho: hello from a cell\n[warn] remember failed: invalid_arguments\n"+`{"celsius":21,"sky":"clear"}`)
	})

	t.Run("a cell that yields is waited on", func(t *testing.T) {
		model.play(
			turn(customCall("call_1", "exec", `
text("started");
yield_control();
await tools.mcp__everything__trigger_long_running_operation({duration: 0.2, steps: 2});
return "finished";`)),
			turn(functionCall("call_2", "wait", `{"cell_id": "$CELL", "yield_time_ms": 10000}`)),
			turn(message("It finished.")),
		)
		answer, err := a.Ask(ctx, "Run the long operation.")
		require.NoError(t, err)
		assert.Equal(t, "It finished.", answer)
		assert.Equal(t, []string{"message:user", "custom_tool_call", "custom_tool_call_output", "function_call", "function_call_output"}, model.inputTypes(t, 3))

		out, _ := model.output(t, 2, "call_1")
		assert.True(t, strings.HasPrefix(out, render.RunningPrefix), out)
		assert.Regexp(t, `^Script running with cell ID (\S+) · \d+ ms — call wait with cell_id "(\S+)" to keep waiting\nstarted$`, out)
		out, typ := model.output(t, 3, "call_2")
		assert.Equal(t, "function_call_output", typ)
		assert.Regexp(t, `^Script completed · \d+(\.\d)? m?s\nfinished$`, out)
		assert.Contains(t, log.String(), "progress of mcp__everything__.trigger-long-running-operation: 1/2")
	})

	t.Run("the model calls a direct tool", func(t *testing.T) {
		model.play(
			turn(functionCall("call_1", "weather", `{"city": "Lisbon"}`)),
			turn(message("Lisbon: 21 °C, clear.")),
		)
		answer, err := a.Ask(ctx, "Weather in Lisbon?")
		require.NoError(t, err)
		assert.Equal(t, "Lisbon: 21 °C, clear.", answer)
		out, typ := model.output(t, 2, "call_1")
		assert.Equal(t, "function_call_output", typ)
		assert.JSONEq(t, `{"celsius":21,"sky":"clear"}`, out)
	})

	t.Run("tool_search loads a deferred tool for the next step", func(t *testing.T) {
		model.play(
			turn(functionCall("call_1", "tool_search", `{"query": "add two numbers", "limit": 3}`)),
			turn(functionCall("call_2", "mcp__everything__get_sum", `{"a": 2, "b": 3}`)),
			turn(message("2 + 3 = 5")),
		)
		answer, err := a.Ask(ctx, "Add 2 and 3 with a tool.")
		require.NoError(t, err)
		assert.Equal(t, "2 + 3 = 5", answer)

		assert.NotContains(t, model.toolNames(t, 1), "mcp__everything__get_sum:function")
		found, _ := model.output(t, 2, "call_1")
		assert.Contains(t, found, `"name":"get-sum"`)
		tools := model.toolNames(t, 2)
		assert.Contains(t, tools, "mcp__everything__get_sum:function")
		assert.Equal(t, "tool_search:function", tools[len(tools)-1], "loaded tools come before tool_search")
		sum, _ := model.output(t, 3, "call_2")
		assert.Contains(t, sum, "The sum of 2 and 3 is 5.")
	})

	t.Run("a script error, then a corrected script", func(t *testing.T) {
		model.play(
			// exec as a JSON function call, as with ExecFunction.
			turn(functionCall("call_1", "exec", `{"code": "const w = await tools.weather({city: \"Oslo\"});\nreturn w.forecast.tomorrow;"}`)),
			turn(customCall("call_2", "exec", `const w = await tools.weather({city: "Oslo"});
return w.sky;`)),
			turn(message("Oslo is clear.")),
		)
		answer, err := a.Ask(ctx, "Weather in Oslo tomorrow?")
		require.NoError(t, err)
		assert.Equal(t, "Oslo is clear.", answer)

		failed, typ := model.output(t, 2, "call_1")
		assert.Equal(t, "function_call_output", typ)
		assert.Regexp(t, `^Script failed · \d+ ms\nTypeError: Cannot read properties of undefined \(reading 'tomorrow'\) \(line 2, column \d+\)\n    at `, failed)
		fixed, typ := model.output(t, 3, "call_2")
		assert.Equal(t, "custom_tool_call_output", typ)
		assert.Regexp(t, `^Script completed · \d+ ms\nclear$`, fixed)
	})

	t.Run("the loop stops after MaxTurns requests", func(t *testing.T) {
		var turns []json.RawMessage
		for range 7 {
			turns = append(turns, turn(functionCall("call_1", "weather", `{"city": "Rome"}`)))
		}
		model.play(turns...)
		_, err := a.Ask(ctx, "Loop forever.")
		require.ErrorContains(t, err, "no final answer after 6 model requests")
		assert.Equal(t, 6, model.count())
	})
}

// TestAgent_codeModeOnlyWithExecAsFunction: in the default mode the model
// is offered exec and wait alone, exec here as a JSON function tool, and a
// script finds the deferred MCP tools itself.
func TestAgent_codeModeOnlyWithExecAsFunction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	model := newReplay(t)
	a := startAgent(t, ctx, model, registry.DefaultAgentMode, registry.ExecFunction, io.Discard)
	model.play(
		turn(functionCall("call_1", "exec", `{"code": "const [hit] = searchTools(\"sum of two numbers\", 1);\nconst r = await tools[hit.name]({a: 40, b: 2});\nconst w = await tools.weather({city: \"Rome\"});\ntext(hit.name);\nreturn r.content[0].text + \" \" + w.sky;", "yield_ms": 5000}`)),
		turn(message("42")),
	)
	answer, err := a.Ask(ctx, "What is 40 + 2?")
	require.NoError(t, err)
	assert.Equal(t, "42", answer)

	assert.Equal(t, []string{"exec:function", "wait:function"}, model.toolNames(t, 1))
	exec := model.request(t, 1)["tools"].([]any)[0].(map[string]any)
	assert.Contains(t, exec["description"], "weather(", "exec's description declares the native tools")
	assert.Contains(t, exec["parameters"].(map[string]any)["required"], "code")

	out, typ := model.output(t, 2, "call_1")
	assert.Equal(t, "function_call_output", typ)
	assert.Regexp(t, `^Script completed · \d+ ms\nmcp__everything__get_sum\nThe sum of 40 and 2 is 42\. clear$`, out)
}

// longCell prints a line every stepMS for steps steps, then returns; its
// first line asks exec to yield after yieldMS (0: no pragma, exec's
// default yield).
func longCell(steps, stepMS, yieldMS int) string {
	pragma := ""
	if yieldMS > 0 {
		pragma = fmt.Sprintf("// @exec: {\"yield_time_ms\": %d}\n", yieldMS)
	}
	return pragma + fmt.Sprintf(`for (let i = 1; i <= %d; i++) {
  await new Promise(r => setTimeout(r, %d));
  console.log("step " + i);
}
return "done";`, steps, stepMS)
}

// startPollingAgent starts an agent in the default mode whose model may
// take many turns (replay.poll).
func startPollingAgent(tb testing.TB, ctx context.Context) (*Agent, *replay) {
	tb.Helper()
	model := newReplay(tb)
	a, err := Start(ctx, Config{
		HostPath:     testhost.Bin(tb),
		MCPCommand:   []string{mcpServer(tb)},
		Model:        "replay-1",
		Mode:         registry.DefaultAgentMode,
		ModelOptions: []option.RequestOption{option.WithBaseURL(model.url), option.WithAPIKey("test-key"), option.WithMaxRetries(0)},
		MaxTurns:     40,
		Log:          io.Discard,
	})
	require.NoError(tb, err)
	tb.Cleanup(a.Close)
	return a, model
}

// turnsFor runs cell with a model that waits with waitArgs while the cell
// runs and returns how many tool-calling turns it took (requests less the
// final answer), checking that the cell's last line reached the model.
func turnsFor(t testing.TB, ctx context.Context, a *Agent, model *replay, cell, waitArgs string) int {
	model.poll(waitArgs, "done", turn(customCall("call_1", "exec", cell)))
	answer, err := a.Ask(ctx, "Run the long job.")
	require.NoError(t, err)
	require.Equal(t, "done", answer)
	n := model.count()
	body, err := json.Marshal(model.request(t, n)["input"])
	require.NoError(t, err)
	require.Contains(t, string(body), "Script completed", "the cell's end reached the model")
	return n - 1
}

// TestALongCellCostsTwoTurns: exec answers at its yield time (here the
// cell's own pragma), and the model's wait blocks until the cell ends, so
// a cell that logs all the time costs exec and one wait (issue #21, "no
// polling tax"). A wait that wakes on output costs a turn per line.
func TestALongCellCostsTwoTurns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, model := startPollingAgent(t, ctx)
	cell := longCell(15, 100, 300)
	assert.Equal(t, 2, turnsFor(t, ctx, a, model, cell, `{"cell_id": "$CELL"}`), "exec, then one wait")
	woken := turnsFor(t, ctx, a, model, cell, `{"cell_id": "$CELL", "wake_on_output": true}`)
	assert.Greater(t, woken, 4, "a wait that wakes on output returns for the lines")
}

// BenchmarkTurnsForA60sCell measures, with every default (exec's 10 s
// yield, the model's wait), the model turns a 60 s cell that logs every
// second costs (turns/op), against a model that waits 10 s at a time.
func BenchmarkTurnsForA60sCell(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	a, model := startPollingAgent(b, ctx)
	cell := longCell(60, 1000, 0)
	var turns, polled int
	for b.Loop() {
		turns = turnsFor(b, ctx, a, model, cell, `{"cell_id": "$CELL"}`)
		polled = turnsFor(b, ctx, a, model, cell, `{"cell_id": "$CELL", "yield_time_ms": 10000}`)
	}
	b.ReportMetric(float64(turns), "turns")
	b.ReportMetric(float64(polled), "turns-10s-waits")
}
