package protocol

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenBlock matches a golden marker in docs/PROTOCOL.md and the text
// block after it.
var goldenBlock = regexp.MustCompile("(?s)<!-- golden:([a-z.]+) -->\n```text\n(.*?)```")

// TestProtocolDocHexMatchesGoldenFiles keeps the worked exchange in
// docs/PROTOCOL.md byte-exact; UPDATE_GOLDEN=1 rewrites its hex blocks.
func TestProtocolDocHexMatchesGoldenFiles(t *testing.T) {
	path := filepath.Join("..", "docs", "PROTOCOL.md")
	doc, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skip("docs/PROTOCOL.md not present")
	}
	require.NoError(t, err)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		doc = goldenBlock.ReplaceAllFunc(doc, func(block []byte) []byte {
			name := string(goldenBlock.FindSubmatch(block)[1])
			return []byte("<!-- golden:" + name + " -->\n```text\n" + goldenHex(readGolden(t, name)) + "```")
		})
		require.NoError(t, os.WriteFile(path, doc, 0o644))
	}
	blocks := goldenBlock.FindAllSubmatch(doc, -1)
	require.NotEmpty(t, blocks)
	for _, b := range blocks {
		name := string(b[1])
		assert.Equal(t, goldenHex(readGolden(t, name)), string(b[2]), "docs/PROTOCOL.md block %s is stale: rerun with UPDATE_GOLDEN=1", name)
	}
}

// TestProtocolDocJSIdentExamples pins the identifier examples of
// docs/PROTOCOL.md section 9.
func TestProtocolDocJSIdentExamples(t *testing.T) {
	for _, c := range []struct{ ns, name, want string }{
		{"", "search", "search"},
		{"functions", "search", "search"},
		{"mcp__calendar", "list-events", "mcp__calendar__list_events"},
		{"mcp__cal_", "list", "mcp__cal_list"},
		{"web.tools", "fetch", "web_tools__fetch"},
		{"", "3d", "_3d"},
	} {
		assert.Equal(t, c.want, JSIdent(c.ns, c.name), "%s/%s", c.ns, c.name)
	}
}
