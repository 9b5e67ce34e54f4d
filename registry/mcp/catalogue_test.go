package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
	"github.com/codemode-host/codemode-host/runtime"
)

// The catalogue is what three real MCP servers (the pinned versions in
// package.json) list, captured once and committed, so the declarations and
// the token report work from the real thing without starting servers:
//
//   - catalogueFile: each server's initialize instructions and its
//     tools/list tools, byte for byte in the server's key order;
//   - catalogueDefs: the protocol.ToolDefs the registry binds into Code
//     Mode for them (MCP server -> registry/mcp -> registry -> ToolDef),
//     whose declarations tsdecl pins (testdata/mcp37.d.ts) and type-checks.
//
// TestCatalogueMatchesTheServers checks both against the servers; with
// UPDATE_CATALOGUE=1 it rewrites them (after an npm version bump).
const (
	catalogueFile = "../../tsdecl/testdata/mcp/catalogue-37.json"
	catalogueDefs = "../../tsdecl/testdata/mcp37.json"
)

// catalogue is the file's shape.
type catalogue struct {
	About   string            `json:"about"`
	Servers []catalogueServer `json:"servers"`
}

type catalogueServer struct {
	// Name is the server's name in the registry; its tools are in
	// namespace mcp__<name>__.
	Name    string `json:"name"`
	Package string `json:"package"`
	Version string `json:"version"`
	// Instructions are the initialize result's, as the adapter keeps
	// them (the first 2,000 characters).
	Instructions string            `json:"instructions"`
	Tools        []json.RawMessage `json:"tools"`
}

// catalogueServers are the three servers, with what each needs to run.
func catalogueServers(t *testing.T) []struct {
	pkg string
	cfg mcp.ServerConfig
} {
	everythingBin(t) // skips (or fails in CI) without node and the packages
	bin := func(name string) string {
		p, err := filepath.Abs("../../node_modules/.bin/" + name)
		require.NoError(t, err)
		return p
	}
	// The filesystem server's listing does not name its root; the memory
	// server's does not name its file.
	root := t.TempDir()
	return []struct {
		pkg string
		cfg mcp.ServerConfig
	}{
		{"@modelcontextprotocol/server-filesystem", mcp.ServerConfig{Name: "filesystem", Command: bin("mcp-server-filesystem"), Args: []string{root}, StopTimeout: quickStop}},
		{"@modelcontextprotocol/server-memory", mcp.ServerConfig{Name: "memory", Command: bin("mcp-server-memory"), Env: []string{"MEMORY_FILE_PATH=" + filepath.Join(root, "memory.jsonl")}, StopTimeout: quickStop}},
		{"@modelcontextprotocol/server-everything", everythingConfig(t)},
	}
}

// pinnedVersions reads the exact versions package.json pins.
func pinnedVersions(t *testing.T) map[string]string {
	data, err := os.ReadFile("../../package.json")
	require.NoError(t, err)
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	require.NoError(t, json.Unmarshal(data, &pkg))
	return pkg.DevDependencies
}

func TestCatalogueMatchesTheServers(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	servers := catalogueServers(t)
	versions := pinnedVersions(t)
	// One after another, so the registry's order (and so the ToolDefs')
	// is the catalogue's.
	live := make([]*mcp.Server, len(servers))
	for i, s := range servers {
		ctx := testCtx(t)
		srv := connect(t, reg, s.cfg)
		// server-everything adds tools once the session is initialized;
		// listing again after Connect sees them all.
		require.NoError(t, srv.Refresh(ctx), s.cfg.Name)
		live[i] = srv
	}

	cat := catalogue{About: "tools/list and initialize instructions of three MCP servers, as registry/mcp received them; " +
		"UPDATE_CATALOGUE=1 go test ./registry/mcp -run TestCatalogue rewrites it from the versions package.json pins"}
	for i, s := range servers {
		srv := live[i]
		listed := srv.ListedTools()
		require.Len(t, listed, len(srv.Tools()), "%s: every listed tool has its JSON text", s.cfg.Name)
		cat.Servers = append(cat.Servers, catalogueServer{
			Name: s.cfg.Name, Package: s.pkg, Version: versions[s.pkg],
			Instructions: srv.Instructions(), Tools: listed,
		})
	}
	got, err := json.MarshalIndent(cat, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')

	set := finalize(t, reg)
	defs := set.CodeModeDefs()
	gotDefs, err := json.MarshalIndent(defs, "", "  ")
	require.NoError(t, err)
	gotDefs = append(gotDefs, '\n')

	if os.Getenv("UPDATE_CATALOGUE") != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(catalogueFile), 0o755))
		require.NoError(t, os.WriteFile(catalogueFile, got, 0o644))
		require.NoError(t, os.WriteFile(catalogueDefs, gotDefs, 0o644))
	}
	want, err := os.ReadFile(catalogueFile)
	require.NoError(t, err, "run UPDATE_CATALOGUE=1 go test ./registry/mcp -run TestCatalogue")
	assert.Equal(t, string(want), string(got), "the pinned servers list something else than %s; run UPDATE_CATALOGUE=1 go test ./registry/mcp -run TestCatalogue and review the diff", catalogueFile)
	wantDefs, err := os.ReadFile(catalogueDefs)
	require.NoError(t, err)
	assert.Equal(t, string(wantDefs), string(gotDefs), "the registry binds other definitions than %s", catalogueDefs)

	// Every tool is bound, and its input schema reached the ToolDef with
	// the server's property order.
	byIdent := map[string]protocol.ToolDef{}
	for _, d := range defs {
		byIdent[protocol.JSIdent(d.Namespace, d.Name)] = d
	}
	n := 0
	for _, s := range cat.Servers {
		for _, raw := range s.Tools {
			n++
			var tool struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			require.NoError(t, json.Unmarshal(raw, &tool))
			d, ok := byIdent[protocol.JSIdent(mcp.Namespace(s.Name), tool.Name)]
			require.True(t, ok, "%s.%s is bound", s.Name, tool.Name)
			assert.Equal(t, propertyOrder(t, tool.InputSchema), propertyOrder(t, d.InputSchema), "%s.%s keeps the server's property order", s.Name, tool.Name)
		}
	}
	assert.Equal(t, 37, n, "the catalogue's tool count (its name says 37)")
	assert.Len(t, defs, n)
}

// propertyOrder lists the keys of a schema's top-level properties in
// document order.
func propertyOrder(t *testing.T, schema json.RawMessage) []string {
	t.Helper()
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(schema, &s))
	if len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// realShapesCell is a cell that tsdecl's type-check test also checks
// against the declarations of the catalogue's tools.
const realShapesCell = "../../tsdecl/testdata/cells/real_shapes.ts"

// What a script really receives from the three servers is what the
// declarations say: content, and structuredContent exactly when the tool
// declares an output schema; never isError or _meta; a failure rejects
// with a ToolError.
func TestCell_resultsAreWhatTheDeclarationsSay(t *testing.T) {
	t.Parallel()
	reg := registry.New(registry.Config{})
	for _, s := range catalogueServers(t) {
		connect(t, reg, s.cfg)
	}
	set := finalize(t, reg)
	src, err := os.ReadFile(realShapesCell)
	require.NoError(t, err)

	res, err := newRuntime(t).Run(testCtx(t), runtime.CellRequest{
		Source:   string(src),
		Language: protocol.LangTS,
		Tools:    set.CodeModeDefs(),
		Caller:   set,
	})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.JSONEq(t, `{
		"file": ["content", "structuredContent"], "text": "hello",
		"graph": ["content", "structuredContent"], "entities": 0,
		"echo": ["content"], "echoed": "Echo: hi",
		"weather": ["content", "structuredContent"], "temperature": "number",
		"code": "tool_failed"
	}`, res.Items[len(res.Items)-1].Text)
}
