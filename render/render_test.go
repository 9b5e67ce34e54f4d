package render_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/render"
)

// png is a 1×1 PNG as the host reports image() output.
const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// svg is an image no Anthropic image block takes.
const svg = "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'/%3E"

const stack = "TypeError: Cannot read properties of undefined (reading 'name')\n" +
	"    at initials (cell.js:6:23)\n    at Array.map (<anonymous>)\n    at f1 (cell.js:9:7)\n" +
	"    at f2 (cell.js:10:7)\n    at f3 (cell.js:11:7)\n    at f4 (cell.js:12:7)\n    at cell.js:13:1"

// cases are the results every renderer is pinned on, by golden name.
var cases = map[string]*protocol.CellResult{
	"completed": {Cell: "c1", Status: protocol.StatusCompleted, Stats: protocol.Stats{WallMS: 1234.5, ToolCalls: 3},
		Items: []protocol.Item{
			{Type: protocol.ItemText, Text: "3 files"},
			{Type: protocol.ItemText, Text: "disk almost full", Level: "warn"},
			{Type: protocol.ItemText, Text: "plain log", Level: "log"},
			{Type: protocol.ItemText, Text: `{"total":42}`},
		}},
	"failed": {Cell: "c2", Status: protocol.StatusFailed, Stats: protocol.Stats{WallMS: 312.4},
		Items: []protocol.Item{{Type: protocol.ItemText, Text: "before the error"}},
		Error: &protocol.ErrorInfo{Name: "TypeError", Message: "Cannot read properties of undefined (reading 'name')", Stack: stack, Line: 6, Column: 23}},
	"yielded": {Cell: "c3", Status: protocol.StatusYielded, Stats: protocol.Stats{WallMS: 10003},
		Items: []protocol.Item{{Type: protocol.ItemText, Text: "step 1 of 5 done"}}},
	"terminated": {Cell: "c4", Status: protocol.StatusTerminated, Stats: protocol.Stats{WallMS: 2100},
		Items: []protocol.Item{{Type: protocol.ItemText, Text: "partial"}},
		Error: &protocol.ErrorInfo{Name: "TerminatedError", Message: "the cell was terminated"}},
	"timed_out": {Cell: "c5", Status: protocol.StatusTimedOut, Stats: protocol.Stats{WallMS: 60000},
		Items: []protocol.Item{{Type: protocol.ItemText, Text: "spinning"}},
		Error: &protocol.ErrorInfo{Name: "TimeoutError", Message: "the script ran longer than its wall-time limit of 1m0s and was stopped"}},
	"out_of_memory": {Cell: "c6", Status: protocol.StatusOutOfMemory, Stats: protocol.Stats{WallMS: 800},
		Error: &protocol.ErrorInfo{Name: "OutOfMemoryError", Message: "the cell used more than 256 MiB"}},
	"images": {Cell: "c7", Status: protocol.StatusCompleted, Stats: protocol.Stats{WallMS: 5},
		Items: []protocol.Item{
			{Type: protocol.ItemText, Text: "chart:"},
			{Type: protocol.ItemImage, ImageURL: png, Detail: "high"},
			{Type: protocol.ItemImage, ImageURL: svg, Detail: "low"},
			{Type: protocol.ItemText, Text: "done"},
		}},
	"truncated": {Cell: "c8", Status: protocol.StatusCompleted, Truncated: true, Stats: protocol.Stats{WallMS: 2500},
		Items: []protocol.Item{
			{Type: protocol.ItemText, Text: "line 1"},
			{Type: protocol.ItemText, Text: "…[output truncated: 12000 tokens cut]…"},
			{Type: protocol.ItemText, Text: "line 999"},
		}},
	"empty": {Cell: "c9", Status: protocol.StatusCompleted, Stats: protocol.Stats{WallMS: 0.4}},
}

func TestHeader_saysStatusWallTimeAndHowToWait(t *testing.T) {
	want := map[string]string{
		"completed":     "Script completed · 1.2 s",
		"failed":        "Script failed · 312 ms",
		"yielded":       `Script running with cell ID c3 · 10.0 s — call wait with cell_id "c3" to keep waiting`,
		"terminated":    "Script terminated · 2.1 s",
		"timed_out":     "Script timed out · 60.0 s",
		"out_of_memory": "Script ran out of memory · 800 ms",
		"truncated":     "Script completed · 2.5 s · output truncated",
		"empty":         "Script completed · 0 ms",
	}
	for name, h := range want {
		assert.Equal(t, h, render.Header(cases[name]), name)
	}
	assert.True(t, strings.HasPrefix(render.Header(cases["yielded"]), render.RunningPrefix))
}

func TestText_failureShowsLocationAndTrimmedStack(t *testing.T) {
	assert.Equal(t, "Script failed · 312 ms\nbefore the error\n"+
		"TypeError: Cannot read properties of undefined (reading 'name') (line 6, column 23)\n"+
		"    at initials (cell.js:6:23)\n    at Array.map (<anonymous>)\n    at f1 (cell.js:9:7)\n"+
		"    at f2 (cell.js:10:7)\n    at f3 (cell.js:11:7)\n    … 2 more", render.Text(cases["failed"]))
	assert.Equal(t, "Script completed · 0 ms\n"+render.NoOutput, render.Text(cases["empty"]))
}

// rendered is every API's rendering of one result, as JSON through the
// SDK types.
type rendered struct {
	Text                 string          `json:"text"`
	FunctionCallOutput   json.RawMessage `json:"responses_function_call_output"`
	CustomToolCallOutput json.RawMessage `json:"responses_custom_tool_call_output"`
	ChatMessages         json.RawMessage `json:"chat_messages"`
	AnthropicToolResult  json.RawMessage `json:"anthropic_tool_result"`
}

func renderAll(t *testing.T, res *protocol.CellResult) rendered {
	t.Helper()
	tool, images := render.ChatToolMessage("call_1", res)
	msgs := []openai.ChatCompletionMessageParamUnion{tool}
	if m, ok := render.ChatImageMessage(images); ok {
		msgs = append(msgs, m)
	}
	return rendered{
		Text:                 render.Text(res),
		FunctionCallOutput:   marshal(t, render.FunctionCallOutput("call_1", res)),
		CustomToolCallOutput: marshal(t, render.CustomToolCallOutput("call_1", res)),
		ChatMessages:         marshal(t, msgs),
		AnthropicToolResult:  marshal(t, render.AnthropicToolResult("toolu_1", res)),
	}
}

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestGolden pins each API's rendering of each case in
// testdata/<case>.json; UPDATE_GOLDEN=1 rewrites them.
func TestGolden(t *testing.T) {
	for name, res := range cases {
		t.Run(name, func(t *testing.T) {
			got := renderAll(t, res)
			b, err := json.Marshal(got)
			require.NoError(t, err)
			var pretty bytes.Buffer
			require.NoError(t, json.Indent(&pretty, b, "", "  "))
			pretty.WriteByte('\n')
			path := filepath.Join("testdata", name+".json")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with UPDATE_GOLDEN=1 to create it")
			assert.Equal(t, string(want), pretty.String())
		})
	}
}
