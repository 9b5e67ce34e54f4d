package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry/mcp"
)

func TestParseFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want mcp.ServerConfig
	}{
		{"everything=npx -y @modelcontextprotocol/server-everything",
			mcp.ServerConfig{Name: "everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}},
		{`files=mcp-server-filesystem '/tmp/my dir' "a \"b\"" c\ d`,
			mcp.ServerConfig{Name: "files", Command: "mcp-server-filesystem", Args: []string{"/tmp/my dir", `a "b"`, "c d"}}},
		{"solo=server", mcp.ServerConfig{Name: "solo", Command: "server", Args: []string{}}},
		{"remote=https://example.com/mcp", mcp.ServerConfig{Name: "remote", URL: "https://example.com/mcp"}},
		{"eq=cmd --opt=a=b", mcp.ServerConfig{Name: "eq", Command: "cmd", Args: []string{"--opt=a=b"}}},
	} {
		got, err := mcp.ParseFlag(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "noequals", "name=", "=cmd", "bad.name=cmd", `x=cmd 'open`, `x=cmd \`} {
		_, err := mcp.ParseFlag(bad)
		require.Error(t, err, bad)
		assert.Regexp(t, `^mcp: `, err.Error())
	}
}
