package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

func TestAFunctionToolKeepsItsPropertyOrder(t *testing.T) {
	tool := registry.ModelTool{Name: registry.Namespaced("mcp__files__", "write_file"), Kind: protocol.KindFunction,
		InputSchema: json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "append": {"type": "boolean"}}, "required": ["path", "content"]}`)}
	b, err := json.Marshal(toolParam(wireName(tool.Name), tool))
	require.NoError(t, err)
	s := string(b)
	path, content, app := strings.Index(s, `"path"`), strings.Index(s, `"content"`), strings.Index(s, `"append"`)
	assert.True(t, 0 < path && path < content && content < app, "path, content, append as the server listed them: %s", s)
	assert.Contains(t, s, `"required":["path","content"]`)

	b, err = json.Marshal(toolParam("t", registry.ModelTool{Name: registry.Plain("t"), Kind: protocol.KindFunction}))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"parameters":{"type":"object"}`, "no schema: an object")
}

func TestAModelsYieldIsCappedWithoutWrapping(t *testing.T) {
	c := &conversation{a: &Agent{cfg: Config{}.withDefaults()}}
	assert.Equal(t, DefaultYield, c.yield(0))
	assert.Equal(t, 1500*time.Millisecond, c.yield(1500))
	for _, ms := range []uint64{uint64(MaxYield / time.Millisecond), 1 << 53, 1 << 63, math.MaxUint64} {
		assert.Equal(t, MaxYield, c.yield(ms), "%d ms", ms)
	}
}
