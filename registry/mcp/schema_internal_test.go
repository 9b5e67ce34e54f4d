package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/assert"
)

func TestInputSchemaKeepsTheServersKeyOrder(t *testing.T) {
	log := hclog.NewNullLogger()
	raw := `{"$schema":"https://example.com/custom","type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"}},"required":["zeta"]}`
	assert.Equal(t, `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"}},"required":["zeta"]}`,
		string(inputSchema(json.RawMessage(raw), log, "t")), "an unknown $schema goes, the rest keeps its order")
	known := `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"b":{},"a":{}}}`
	assert.Equal(t, known, string(inputSchema(json.RawMessage(known), log, "t")))
	assert.Equal(t, anyObject, string(inputSchema(json.RawMessage(`[1]`), log, "t")))
	assert.Equal(t, anyObject, string(inputSchema(nil, log, "t")))
}

func TestResultSchemaIsWhatAScriptGets(t *testing.T) {
	assert.JSONEq(t, `{"title":"CallToolResult","type":"object","properties":{"content":{"type":"array","description":"The result's content blocks: text, image, audio, resource_link or resource.","items":{"type":"object"}}},"required":["content"]}`,
		string(resultSchema(nil)))
	with := string(resultSchema(json.RawMessage(`{"type":"object","properties":{"y":{},"x":{}}}`)))
	assert.Contains(t, with, `"structuredContent":{"type":"object","properties":{"y":{},"x":{}}}`)
	assert.Contains(t, with, `"required":["content","structuredContent"]`)
	assert.NotContains(t, with, "isError")
}

func TestBoundInstructionsCutsOnARuneBoundary(t *testing.T) {
	s := strings.Repeat("é", maxInstructions+5)
	got := boundInstructions(s)
	assert.Equal(t, maxInstructions, len([]rune(got)))
	assert.Equal(t, "short", boundInstructions("short"))
}
