package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-host/codemode-host/registry"
)

// output splits a successful result in two. Scripts get the whole
// CallToolResult without its _meta ({content, structuredContent}); the
// model reads the text blocks (or, with none, the structured content).
func output(res *sdk.CallToolResult) (registry.Output, error) {
	value, err := scriptValue(res)
	if err != nil {
		return registry.Output{}, err
	}
	text := resultText(res)
	if text == "" && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			text = string(b)
		}
	}
	if text == "" {
		text = "(the tool returned no content)"
	}
	return registry.Output{Value: value, Text: text}, nil
}

// scriptResult is what a script sees of a CallToolResult: no _meta and
// none of the SDK's own fields, content never null.
type scriptResult struct {
	Content           []sdk.Content `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError,omitempty"`
}

// scriptValue encodes res for a script, in one pass.
func scriptValue(res *sdk.CallToolResult) (json.RawMessage, error) {
	v := scriptResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}
	if v.Content == nil {
		v.Content = []sdk.Content{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding the tool's result: %w", err)
	}
	return b, nil
}

// resultText is the model-facing text of a result: its text blocks, one
// after another, with a short line for each block that is not text.
func resultText(res *sdk.CallToolResult) string {
	var lines []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			lines = append(lines, c.Text)
		case *sdk.ImageContent:
			lines = append(lines, fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			lines = append(lines, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			lines = append(lines, fmt.Sprintf("[resource link: %s]", c.URI))
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				lines = append(lines, c.Resource.Text)
			} else if c.Resource != nil {
				lines = append(lines, fmt.Sprintf("[resource: %s]", c.Resource.URI))
			}
		}
	}
	return strings.Join(lines, "\n")
}
