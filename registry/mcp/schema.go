package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

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

// marshalSchema is a decoded schema as JSON text; nil for none (nil or
// JSON null) and for a value that does not encode.
func marshalSchema(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil || string(raw) == "null" {
		return nil
	}
	return raw
}

// inputSchema is a tool's input schema (JSON text, as the server wrote
// it) as JSON text the registry can compile, in the server's key order:
// an unknown $schema is dropped, and a schema that still does not compile
// is replaced by any object (the server validates anyway), so one odd tool
// does not vanish from the list.
func inputSchema(raw json.RawMessage, log hclog.Logger, tool string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(anyObject)
	}
	members, err := objectMembers(raw)
	if err != nil {
		log.Warn("tool input schema is not an object; accepting any object", "tool", tool)
		return json.RawMessage(anyObject)
	}
	for i, m := range members {
		var draft string
		if m.key == "$schema" && json.Unmarshal(m.value, &draft) == nil && !knownDrafts[draft] {
			raw = joinMembers(append(members[:i:i], members[i+1:]...))
			break
		}
	}
	if err := compiles(raw); err != nil {
		log.Warn("tool input schema does not compile; accepting any object", "tool", tool, "error", err)
		return json.RawMessage(anyObject)
	}
	return raw
}

// member is one key of a JSON object and its value's text.
type member struct {
	key   string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, in document order.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	return out, nil
}

// joinMembers writes members as one JSON object, in their order.
func joinMembers(members []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
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

// resultSchema describes what a script gets from an MCP tool: the
// CallToolResult without _meta (and without isError, since a result that
// reports an error is thrown as a ToolError): content, and, when the tool
// declares an output schema (JSON text, kept as the server wrote it),
// structuredContent of that schema, which the MCP spec makes servers send.
// The title marks the shape for the declaration renderer, which types
// content as McpContent[].
func resultSchema(output json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"title":"CallToolResult","type":"object","properties":{"content":{"type":"array",` +
		`"description":"The result's content blocks: text, image, audio, resource_link or resource.","items":{"type":"object"}}`)
	output = bytes.TrimSpace(output)
	structured := len(output) > 0 && string(output) != "null" && json.Valid(output)
	if structured {
		b.WriteString(`,"structuredContent":`)
		b.Write(output)
	}
	b.WriteString(`},"required":["content"`)
	if structured {
		b.WriteString(`,"structuredContent"`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}
