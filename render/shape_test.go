package render_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The documented shapes of the three APIs' tool outputs, as JSON Schemas
// written from the API references (OpenAI Responses "function_call_output"
// and "custom_tool_call_output" input items, Chat Completions tool and user
// messages, Anthropic Messages "tool_result" content blocks). No property
// beyond the documented ones is allowed, so a field the SDK added, or a
// misspelt one, fails.
const (
	responsesText  = `{"type":"object","required":["type","text"],"additionalProperties":false,"properties":{"type":{"const":"input_text"},"text":{"type":"string","minLength":1}}}`
	responsesImage = `{"type":"object","required":["type","image_url"],"additionalProperties":false,"properties":{"type":{"const":"input_image"},"image_url":{"type":"string","pattern":"^data:"},"detail":{"enum":["low","high","auto","original"]}}}`
	responsesOut   = `{"oneOf":[{"type":"string","minLength":1},{"type":"array","minItems":1,"items":{"oneOf":[` + responsesText + `,` + responsesImage + `]}}]}`

	functionCallOutputShape = `{"type":"object","required":["type","call_id","output"],"additionalProperties":false,"properties":{
		"type":{"const":"function_call_output"},"call_id":{"type":"string","minLength":1},"output":` + responsesOut + `}}`
	customToolCallOutputShape = `{"type":"object","required":["type","call_id","output"],"additionalProperties":false,"properties":{
		"type":{"const":"custom_tool_call_output"},"call_id":{"type":"string","minLength":1},"output":` + responsesOut + `}}`

	chatMessagesShape = `{"type":"array","minItems":1,"maxItems":2,"prefixItems":[
		{"type":"object","required":["role","tool_call_id","content"],"additionalProperties":false,"properties":{
			"role":{"const":"tool"},"tool_call_id":{"type":"string","minLength":1},"content":{"type":"string","minLength":1}}},
		{"type":"object","required":["role","content"],"additionalProperties":false,"properties":{
			"role":{"const":"user"},"content":{"type":"array","minItems":2,"items":{"oneOf":[
				{"type":"object","required":["type","text"],"additionalProperties":false,"properties":{"type":{"const":"text"},"text":{"type":"string"}}},
				{"type":"object","required":["type","image_url"],"additionalProperties":false,"properties":{"type":{"const":"image_url"},
					"image_url":{"type":"object","required":["url"],"additionalProperties":false,"properties":{"url":{"type":"string","pattern":"^data:"},"detail":{"enum":["auto","low","high","original"]}}}}}]}}}}]}`

	anthropicToolResultShape = `{"type":"object","required":["type","tool_use_id","content"],"additionalProperties":false,"properties":{
		"type":{"const":"tool_result"},"tool_use_id":{"type":"string","minLength":1},"is_error":{"type":"boolean"},
		"content":{"type":"array","minItems":1,"items":{"oneOf":[
			{"type":"object","required":["type","text"],"additionalProperties":false,"properties":{"type":{"const":"text"},"text":{"type":"string","minLength":1}}},
			{"type":"object","required":["type","source"],"additionalProperties":false,"properties":{"type":{"const":"image"},
				"source":{"type":"object","required":["type","media_type","data"],"additionalProperties":false,"properties":{
					"type":{"const":"base64"},"media_type":{"enum":["image/jpeg","image/png","image/gif","image/webp"]},"data":{"type":"string","contentEncoding":"base64","minLength":1}}}}}]}}}}`
)

func compile(t *testing.T, name, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(schema)))
	require.NoError(t, err, name)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(name, doc))
	s, err := c.Compile(name)
	require.NoError(t, err, name)
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, raw json.RawMessage, what string) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	assert.NoError(t, s.Validate(doc), "%s: %s", what, raw)
}

// TestShapes checks every case's rendering, marshalled through the SDK
// types, against the shape its API documents.
func TestShapes(t *testing.T) {
	fco := compile(t, "fco.json", functionCallOutputShape)
	cco := compile(t, "cco.json", customToolCallOutputShape)
	chat := compile(t, "chat.json", chatMessagesShape)
	anth := compile(t, "anthropic.json", anthropicToolResultShape)
	for name, res := range cases {
		got := renderAll(t, res)
		validate(t, fco, got.FunctionCallOutput, name+" function_call_output")
		validate(t, cco, got.CustomToolCallOutput, name+" custom_tool_call_output")
		validate(t, chat, got.ChatMessages, name+" chat")
		validate(t, anth, got.AnthropicToolResult, name+" anthropic")
	}
}

// TestShapes_imagesUseContentPartsWhereTheAPIAllows: Responses outputs
// carry images as input_image parts, Chat Completions in a user message
// after the tool message, and Anthropic as base64 image blocks (the SVG,
// which it does not take, as a note).
func TestShapes_imagesUseContentPartsWhereTheAPIAllows(t *testing.T) {
	got := renderAll(t, cases["images"])
	var fco struct {
		Output []struct{ Type, ImageURL string } `json:"output"`
	}
	require.NoError(t, json.Unmarshal(got.FunctionCallOutput, &fco))
	var types []string
	for _, p := range fco.Output {
		types = append(types, p.Type)
	}
	assert.Equal(t, []string{"input_text", "input_image", "input_image", "input_text"}, types)

	var chat []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(got.ChatMessages, &chat))
	require.Len(t, chat, 2)
	assert.Equal(t, "tool", chat[0].Role)
	assert.Contains(t, string(chat[0].Content), "[image 1: image/png, 118 B — shown in the next user message]")
	assert.Equal(t, "user", chat[1].Role)

	var anth struct {
		Content []struct {
			Type   string `json:"type"`
			Text   string `json:"text"`
			Source *struct {
				MediaType string `json:"media_type"`
			} `json:"source"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(got.AnthropicToolResult, &anth))
	require.Len(t, anth.Content, 4)
	assert.Equal(t, "image/png", anth.Content[1].Source.MediaType)
	assert.Contains(t, anth.Content[2].Text, "image/svg+xml")
}

// TestShapes_rejectWhatTheAPIsDoNotDocument keeps the shapes honest: each
// refuses an output with an undocumented field or a wrong part type.
func TestShapes_rejectWhatTheAPIsDoNotDocument(t *testing.T) {
	for schema, bad := range map[string]string{
		functionCallOutputShape:   `{"type":"function_call_output","call_id":"c","output":"x","is_error":true}`,
		customToolCallOutputShape: `{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"text","text":"x"}]}`,
		chatMessagesShape:         `[{"role":"tool","tool_call_id":"c","content":[{"type":"image_url","image_url":{"url":"data:,"}}]}]`,
		anthropicToolResultShape:  `{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/svg+xml","data":"eA=="}}]}`,
	} {
		s := compile(t, "bad.json", schema)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(bad)))
		require.NoError(t, err)
		assert.Error(t, s.Validate(doc), bad)
	}
}
