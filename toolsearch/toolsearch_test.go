package toolsearch_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/toolsearch"
)

func names(defs []protocol.ToolDef, hits []toolsearch.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = defs[h.Doc].QualifiedName()
	}
	return out
}

func TestTheNameCountsMoreThanTheDescription(t *testing.T) {
	defs := []protocol.ToolDef{
		{Name: "notify", Description: "Send an email to the on-call engineer"},
		{Name: "send_email", Description: "Deliver a message"},
	}
	assert.Equal(t, []string{"send_email", "notify"}, names(defs, toolsearch.FromDefs(defs).Search("send email", 0)))
}

func TestNestedSchemaTextIsIndexed(t *testing.T) {
	defs := []protocol.ToolDef{
		{Name: "a", InputSchema: json.RawMessage(`{"type":"object","properties":{"event":{"type":"object","properties":{"attendees":{"type":"array","items":{"type":"object","properties":{"rsvp":{"description":"Whether the invitee accepted"}}}}}}}}`)},
		{Name: "b", Description: "unrelated"},
	}
	ix := toolsearch.FromDefs(defs)
	assert.Equal(t, []string{"a"}, names(defs, ix.Search("attendees", 0)), "a nested property name")
	assert.Equal(t, []string{"a"}, names(defs, ix.Search("invitee accepted", 0)), "a nested description")
}

func TestTheNamespaceIsIndexedOutsideTheDefaultOne(t *testing.T) {
	defs := []protocol.ToolDef{
		{Namespace: "mcp__calendar", Name: "list"},
		{Namespace: "functions", Name: "lookup"},
		{Name: "other"},
	}
	ix := toolsearch.FromDefs(defs)
	assert.Equal(t, []string{"mcp__calendar.list"}, names(defs, ix.Search("calendar", 0)))
	assert.Empty(t, ix.Search("functions", 0), "the default namespace's name is not a word of its tools")
}

// Extra only adds fields: without it New ranks exactly as FromDefs.
func TestExtraOnlyAdds(t *testing.T) {
	defs := benchDefs(50)
	tools := make([]toolsearch.Tool, len(defs))
	for i, d := range defs {
		tools[i] = toolsearch.Tool{Def: d}
	}
	for _, q := range []string{"archive repository", "send message 7", "owner cursor"} {
		assert.Equal(t, toolsearch.FromDefs(defs).Search(q, 0), toolsearch.New(tools).Search(q, 0), q)
	}
	tools[3].Def.Namespace = ""
	tools[3].Extra = toolsearch.Extra{Keywords: []string{"kanban"}, NamespaceDescription: "Ignored: default namespace"}
	tools[4].Extra = toolsearch.Extra{NamespaceDescription: "Zephyr weather service", Grammar: "start: lark"}
	ix := toolsearch.New(tools)
	require.Len(t, ix.Search("kanban", 0), 1)
	assert.Equal(t, 3, ix.Search("kanban", 0)[0].Doc)
	assert.Empty(t, ix.Search("ignored", 0), "no namespace description in the default namespace")
	require.Len(t, ix.Search("zephyr", 0), 1)
	assert.Equal(t, 4, ix.Search("zephyr", 0)[0].Doc)
	assert.Equal(t, 4, ix.Search("lark", 0)[0].Doc)
}

func benchDefs(n int) []protocol.ToolDef {
	verbs := []string{"create", "list", "get", "update", "delete", "search", "archive", "send", "upload", "sync"}
	nouns := []string{"issue", "repository", "message", "channel", "event", "file", "bucket", "invoice", "ticket", "user", "table", "alert"}
	out := make([]protocol.ToolDef, n)
	for i := range out {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		out[i] = protocol.ToolDef{
			Namespace:   fmt.Sprintf("mcp__svc%d", i%37),
			Name:        fmt.Sprintf("%s_%s_%d", v, o, i),
			Description: fmt.Sprintf("%s a %s in service %d. Returns the %s with its id, owner and timestamps.", v, o, i%37, o),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"The ` + o + ` id"},"owner":{"type":"string"},"limit":{"type":"integer"},"cursor":{"type":"string"},"filter":{"type":"object","properties":{"state":{"enum":["open","closed"]}}}}}`),
		}
	}
	return out
}

// BenchmarkBuild1000Tools builds the index of 1,000 tools from their
// definitions (schemas parsed), as the host does for a new tool list.
func BenchmarkBuild1000Tools(b *testing.B) {
	defs := benchDefs(1000)
	b.ReportAllocs()
	for b.Loop() {
		toolsearch.FromDefs(defs)
	}
}

// BenchmarkSearch1000Tools is one query over 1,000 tools.
func BenchmarkSearch1000Tools(b *testing.B) {
	ix := toolsearch.FromDefs(benchDefs(1000))
	b.ReportAllocs()
	for b.Loop() {
		ix.Search("archive an old github repository", 8)
	}
}
