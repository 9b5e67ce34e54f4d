package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// Over streamable HTTP too, a tool's schema reaches the registry in the
// server's property order (gzip-file-as-resource lists name, data,
// outputType), and ListedTools has the server's text.
func TestConnect_streamableHTTPKeepsThePropertyOrder(t *testing.T) {
	t.Parallel()
	url, _ := startEverythingHTTP(t)
	reg := registry.New(registry.Config{})
	srv := connect(t, reg, mcp.ServerConfig{Name: "everything", URL: url})
	require.NoError(t, srv.Refresh(testCtx(t)))

	info, ok := reg.Lookup(everythingTool("gzip-file-as-resource"))
	require.True(t, ok)
	assert.Equal(t, []string{"name", "data", "outputType"}, propertyOrder(t, info.Spec.InputSchema))
	listed := srv.ListedTools()
	require.Len(t, listed, len(srv.Tools()))
	for _, raw := range listed {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(raw, &tool))
		info, ok := reg.Lookup(everythingTool(tool.Name))
		require.True(t, ok, tool.Name)
		assert.Equal(t, propertyOrder(t, tool.InputSchema), propertyOrder(t, info.Spec.InputSchema), tool.Name)
	}
}
