package runtime

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// A script's searchTools() and the registry's tool_search rank one
// catalogue the same way: the registry's Code Mode set sends every
// deferred tool of registry/testdata/catalogue.json to a real isolate,
// and each query of registry/testdata/queries.json (plus a few that lean
// on the name, nested schema text and namespaces) gives the same tools,
// in the same order, on both sides. Namespace descriptions are left out:
// only the registry knows them (toolsearch.Extra).
func TestSearchToolsRanksAsToolSearchDoes(t *testing.T) {
	raw, err := os.ReadFile("../registry/testdata/catalogue.json")
	require.NoError(t, err)
	var cat struct {
		Tools []struct {
			Namespace   string          `json:"namespace"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
	}
	require.NoError(t, json.Unmarshal(raw, &cat))
	reg := registry.New(registry.Config{})
	for _, ct := range cat.Tools {
		require.True(t, reg.AddExternal(registry.NewFunc(registry.Spec{
			Name: registry.Namespaced(ct.Namespace, ct.Name), Description: ct.Description,
			InputSchema: ct.InputSchema, Exposure: registry.Deferred,
		}, nil)), ct.Name)
	}
	set, err := reg.Finalize(registry.ModeCodeMode)
	require.NoError(t, err)
	defs := set.CodeModeDefs()
	require.Len(t, defs, len(cat.Tools), "every tool is bound, so both sides index the same catalogue")

	raw, err = os.ReadFile("../registry/testdata/queries.json")
	require.NoError(t, err)
	var qs struct{ Queries []struct{ Query string } }
	require.NoError(t, json.Unmarshal(raw, &qs))
	queries := []string{"schedule a meeting with attendees", "calendar", "create", "s3 bucket", "the of and"}
	for _, q := range qs.Queries {
		queries = append(queries, q.Query)
	}
	// Both sides' default limit (toolsearch.DefaultLimit), too.
	var want [][]string
	for _, q := range queries {
		res, err := set.Search(q, 0)
		require.NoError(t, err, q)
		idents := []string{}
		for _, h := range res.Hits {
			idents = append(idents, h.Name.JSIdent())
		}
		want = append(want, idents)
	}

	src, err := json.Marshal(queries)
	require.NoError(t, err)
	rt := newRuntime(t)
	res, err := rt.Run(context.Background(), CellRequest{Tools: defs, Caller: &echoCaller{},
		Source: `return JSON.stringify(` + string(src) + `.map(q => searchTools(q).map(t => t.name)))`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.NotNil(t, res.Returned)
	var got [][]string // a returned string is its own text
	require.NoError(t, json.Unmarshal([]byte(res.Returned.Text), &got), res.Returned.Text)
	require.Len(t, got, len(queries))
	for i, q := range queries {
		assert.Equal(t, want[i], got[i], "query %q", q)
	}
	assert.NotEmpty(t, want[0])
}
