package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/hashicorp/go-hclog"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// anyObject is the input schema of a tool whose own schema can't be used.
const anyObject = `{"type":"object"}`

// knownDrafts are the $schema values the registry's validator knows.
var knownDrafts = map[string]bool{
	"http://json-schema.org/draft-04/schema#":      true,
	"http://json-schema.org/draft-06/schema#":      true,
	"http://json-schema.org/draft-07/schema#":      true,
	"http://json-schema.org/draft-04/schema":       true,
	"http://json-schema.org/draft-06/schema":       true,
	"http://json-schema.org/draft-07/schema":       true,
	"https://json-schema.org/draft/2019-09/schema": true,
	"https://json-schema.org/draft/2020-12/schema": true,
}

// inputSchema is a tool's input schema as JSON text the registry can
// compile: an unknown $schema is dropped, and a schema that still does not
// compile is replaced by any object (the server validates anyway), so one
// odd tool does not vanish from the list.
func inputSchema(v any, log hclog.Logger, tool string) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil || len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
		return json.RawMessage(anyObject)
	}
	var doc map[string]any
	if json.Unmarshal(raw, &doc) != nil {
		log.Warn("tool input schema is not an object; accepting any object", "tool", tool)
		return json.RawMessage(anyObject)
	}
	if d, ok := doc["$schema"].(string); ok && !knownDrafts[d] {
		delete(doc, "$schema")
		raw, _ = json.Marshal(doc)
	}
	if err := compiles(raw); err != nil {
		log.Warn("tool input schema does not compile; accepting any object", "tool", tool, "error", err)
		return json.RawMessage(anyObject)
	}
	return raw
}

func compiles(raw []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///input.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("mem:///input.json")
	return err
}

// resultSchema describes what scripts get from an MCP tool: the
// CallToolResult without _meta, whose structuredContent follows the
// tool's output schema when it has one. (The declaration renderer knows
// this shape and types content as McpContent[].)
func resultSchema(output any) json.RawMessage {
	props := map[string]any{
		"content": map[string]any{
			"type":        "array",
			"description": "The result's content blocks: text, image, audio, resource_link or resource.",
			"items":       map[string]any{"type": "object"},
		},
		// Always false: a result with isError is thrown as a ToolError.
		"isError": map[string]any{"type": "boolean"},
	}
	required := []string{"content"}
	if output != nil {
		if b, err := json.Marshal(output); err == nil && string(b) != "null" {
			props["structuredContent"] = json.RawMessage(b)
			required = append(required, "structuredContent")
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	return b
}
