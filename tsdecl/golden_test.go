package tsdecl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// corpusFile is one testdata/*.json file: a JSON array of tool definitions
// whose declarations are pinned in testdata/<name>.d.ts.
type corpusFile struct {
	name string
	defs []protocol.ToolDef
}

// loadCorpus reads every testdata/*.json tool list, sorted by file name.
func loadCorpus(t testing.TB) []corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var out []corpusFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var defs []protocol.ToolDef
		require.NoError(t, json.Unmarshal(data, &defs), p)
		out = append(out, corpusFile{name: strings.TrimSuffix(filepath.Base(p), ".json"), defs: defs})
	}
	return out
}

// checkGolden compares got with testdata/<file>, or rewrites the file when
// UPDATE_GOLDEN is set.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden; run UPDATE_GOLDEN=1 go test ./tsdecl")
	assert.Equal(t, string(want), got, "golden %s differs; run UPDATE_GOLDEN=1 go test ./tsdecl and review the diff", path)
}

func TestDeclarationsMatchGoldens(t *testing.T) {
	for _, c := range loadCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			checkGolden(t, c.name+".d.ts", Declarations(c.defs))
		})
	}
}

// execCorpus is a realistic mix: a few direct tools, code-mode-only tools,
// deferred tools in several namespaces and a tool that Code Mode can't call.
func execCorpus(t testing.TB) []protocol.ToolDef {
	var defs []protocol.ToolDef
	for _, c := range loadCorpus(t) {
		for _, d := range c.defs {
			switch c.name {
			case "github", "filesystem":
				d.Exposure = protocol.ExposureDirect
			case "mcp_output":
				d.Exposure = protocol.ExposureCodeModeOnly
			case "slack", "jira", "postgres", "calendar":
				d.Exposure = protocol.ExposureDeferred
			default:
				d.Exposure = protocol.ExposureDirectModelOnly
			}
			defs = append(defs, d)
		}
	}
	return defs
}

func TestExecDescriptionMatchesGolden(t *testing.T) {
	e := ExecOptions{Namespaces: map[string]string{
		"slack":         "Slack workspace: channels, messages, users.",
		"atlassian":     "Jira and Confluence.",
		"mcp__postgres": "Read-only access to the analytics database.",
	}}
	checkGolden(t, "exec_description.golden", e.ExecDescription(execCorpus(t)))
}

func TestWaitDescriptionMatchesGolden(t *testing.T) {
	checkGolden(t, "wait_description.golden", WaitDescription())
}

// mcp37 is the Code Mode definitions of three real MCP servers' 37 tools
// (filesystem, memory, everything) as registry/mcp and the registry bind
// them; registry/mcp's TestCatalogueMatchesTheServers writes it.
func mcp37(t testing.TB) []protocol.ToolDef {
	for _, c := range loadCorpus(t) {
		if c.name == "mcp37" {
			return c.defs
		}
	}
	t.Fatal("testdata/mcp37.json is missing")
	return nil
}

// mcp37Namespaces describes the namespaces of mcp37 by the instructions
// their servers sent (testdata/mcp/catalogue-37.json).
func mcp37Namespaces(t testing.TB) map[string]string {
	data, err := os.ReadFile(filepath.Join("testdata", "mcp", "catalogue-37.json"))
	require.NoError(t, err)
	var cat struct {
		Servers []struct {
			Name         string `json:"name"`
			Instructions string `json:"instructions"`
		} `json:"servers"`
	}
	require.NoError(t, json.Unmarshal(data, &cat))
	out := map[string]string{}
	for _, s := range cat.Servers {
		if s.Instructions != "" {
			out["mcp__"+s.Name+"__"] = s.Instructions
		}
	}
	return out
}

// mcp37Exec is the exec description of the 37 tools, all direct, with
// their servers' instructions.
func mcp37Exec(t testing.TB) string {
	return ExecOptions{Namespaces: mcp37Namespaces(t)}.ExecDescription(mcp37(t))
}

func TestExecDescriptionOfTheMCPCatalogueMatchesGolden(t *testing.T) {
	checkGolden(t, "exec_description_mcp37.golden", mcp37Exec(t))
}
