package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
)

type catalogueTool struct {
	Namespace            string          `json:"namespace"`
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	NamespaceDescription string          `json:"namespace_description"`
	InputSchema          json.RawMessage `json:"input_schema"`
}

// loadCatalogue registers testdata/catalogue.json, every tool deferred.
func loadCatalogue(t testing.TB, r *registry.Registry, exp registry.Exposure) int {
	t.Helper()
	raw, err := os.ReadFile("testdata/catalogue.json")
	require.NoError(t, err)
	var cat struct{ Tools []catalogueTool }
	require.NoError(t, json.Unmarshal(raw, &cat))
	for _, ct := range cat.Tools {
		tool := registry.NewFunc(registry.Spec{
			Name:        registry.Namespaced(ct.Namespace, ct.Name),
			Description: ct.Description,
			InputSchema: ct.InputSchema,
			Exposure:    exp,
			Search:      registry.SearchInfo{NamespaceDescription: ct.NamespaceDescription},
		}, func(context.Context, registry.Invocation) (registry.Output, error) { return registry.Output{}, nil })
		require.True(t, r.AddExternal(tool), ct.Name)
	}
	return len(cat.Tools)
}

func TestSearchQualityOnARealisticCatalogue(t *testing.T) {
	r := newReg(t, registry.Config{})
	n := loadCatalogue(t, r, registry.Deferred)
	require.GreaterOrEqual(t, n, 200)
	set := finalize(t, r, registry.ModeCodeMode)

	raw, err := os.ReadFile("testdata/queries.json")
	require.NoError(t, err)
	var qs struct {
		Queries []struct{ Query, Want string }
	}
	require.NoError(t, json.Unmarshal(raw, &qs))
	require.GreaterOrEqual(t, len(qs.Queries), 25)

	top1, top3, top8 := 0, 0, 0
	var rr float64
	for _, q := range qs.Queries {
		res, err := set.Search(q.Query, 0)
		require.NoError(t, err)
		rank := 0
		for i, h := range res.Hits {
			if h.Name.Key().String() == q.Want || registry.Plain(h.Name.Name).Key() == h.Name && "functions."+h.Name.Name == q.Want {
				rank = i + 1
				break
			}
		}
		switch {
		case rank == 1:
			top1++
			fallthrough
		case rank >= 1 && rank <= 3:
			top3++
			fallthrough
		case rank >= 1:
			top8++
			rr += 1 / float64(rank)
		}
		if rank != 1 {
			var got []string
			for _, h := range res.Hits[:min(3, len(res.Hits))] {
				got = append(got, h.Name.String())
			}
			t.Logf("rank %d for %q (want %s), top: %s", rank, q.Query, q.Want, strings.Join(got, ", "))
		}
	}
	total := float64(len(qs.Queries))
	t.Logf("search quality over %d tools, %d queries: top-1 %.0f%%, top-3 %.0f%%, top-8 %.0f%%, MRR %.3f",
		n, len(qs.Queries), 100*float64(top1)/total, 100*float64(top3)/total, 100*float64(top8)/total, rr/total)
	assert.GreaterOrEqual(t, float64(top1)/total, 0.75, "top-1 hit rate")
	assert.GreaterOrEqual(t, float64(top3)/total, 0.90, "top-3 hit rate")
	assert.GreaterOrEqual(t, float64(top8)/total, 0.95, "top-8 hit rate")
}

func TestSearchGroupsByNamespaceAndDefaultsToEight(t *testing.T) {
	r := newReg(t, registry.Config{})
	loadCatalogue(t, r, registry.Deferred)
	set := finalize(t, r, registry.ModeDirect)
	res, err := set.Search("create", 0)
	require.NoError(t, err)
	assert.Len(t, res.Hits, registry.DefaultSearchLimit)
	count := 0
	seen := map[string]bool{}
	for _, g := range res.Groups {
		assert.False(t, seen[g.Namespace], "each namespace appears once")
		seen[g.Namespace] = true
		for _, h := range g.Tools {
			assert.Equal(t, g.Namespace, h.Name.Key().Namespace)
		}
		count += len(g.Tools)
	}
	assert.Equal(t, len(res.Hits), count)
	assert.Equal(t, res.Hits[0].Name.Key().Namespace, res.Groups[0].Namespace, "groups follow their best hit")

	res, err = set.Search("create", 3)
	require.NoError(t, err)
	assert.Len(t, res.Hits, 3)
	_, err = set.Search("  ", 0)
	assert.ErrorContains(t, err, "registry: tool_search needs a non-empty query")
}

func TestToolSearchSaysItsConfiguredDefaultLimit(t *testing.T) {
	r := newReg(t, registry.Config{SearchLimit: 3})
	loadCatalogue(t, r, registry.Deferred)
	set := finalize(t, r, registry.ModeDirect)
	info, ok := set.Lookup(registry.Plain(registry.SearchToolName))
	require.True(t, ok)
	assert.Contains(t, string(info.Spec.InputSchema), "Defaults to 3.")
	assert.Contains(t, info.Spec.Description, "(default 3)")
	res, err := set.Search("create", 0)
	require.NoError(t, err)
	assert.Len(t, res.Hits, 3)
}

func TestToolSearchToolReturnsGroupedJSON(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__cal", "create_event"), registry.Deferred, "Create a calendar event")))
	require.NoError(t, r.AddTrusted(named(registry.Plain("forecast"), registry.Deferred, "Weather forecast for a city")))
	set := finalize(t, r, registry.ModeDirect)
	res, err := set.Dispatch(context.Background(), registry.Call{Name: registry.Plain("tool_search"), Input: json.RawMessage(`{"query":"weather in paris"}`)})
	require.NoError(t, err)
	var out struct {
		Namespaces []struct {
			Namespace string
			Tools     []struct{ Name string }
		}
	}
	require.NoError(t, json.Unmarshal(res.Value, &out))
	require.Len(t, out.Namespaces, 1)
	assert.Equal(t, "functions", out.Namespaces[0].Namespace, "top-level tools are grouped in the default namespace")
	assert.Equal(t, "forecast", out.Namespaces[0].Tools[0].Name)

	_, err = set.Dispatch(context.Background(), registry.Call{Name: registry.Plain("tool_search"), Input: json.RawMessage(`{"query":""}`)})
	assert.Equal(t, "invalid_arguments", toolErr(t, err).Code)
}

func TestSearchIndexesSchemaNamespaceAndUnderscoreNames(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.True(t, r.AddExternal(registry.NewFunc(registry.Spec{
		Name: registry.Namespaced("mcp__acme", "op_1"), Description: "Does a thing.", Exposure: registry.Deferred,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"invoice_number":{"type":"string","description":"Ledger reference"}}}`),
	}, nil)))
	require.True(t, r.AddExternal(registry.NewFunc(registry.Spec{
		Name: registry.Namespaced("mcp__weather", "op_2"), Description: "Does another thing.", Exposure: registry.Deferred,
		Search: registry.SearchInfo{NamespaceDescription: "Meteorology service", Keywords: []string{"umbrella"}},
	}, nil)))
	require.True(t, r.AddExternal(registry.NewFunc(registry.Spec{
		Name: registry.Plain("rotate_keys"), Description: "x", Exposure: registry.Deferred}, nil)))
	set := finalize(t, r, registry.ModeDirect)
	for q, want := range map[string]string{
		"invoice":     "mcp__acme.op_1",
		"ledger":      "mcp__acme.op_1",
		"meteorology": "mcp__weather.op_2",
		"weather":     "mcp__weather.op_2",
		"umbrella":    "mcp__weather.op_2",
		"rotate key":  "rotate_keys",
	} {
		res, err := set.Search(q, 1)
		require.NoError(t, err)
		require.Len(t, res.Hits, 1, q)
		assert.Equal(t, want, res.Hits[0].Name.String(), q)
	}
}

func TestSearchCoversOnlyDeferredTools(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(named(registry.Plain("deploy_direct"), registry.Direct, "deploy")))
	require.NoError(t, r.AddTrusted(named(registry.Plain("deploy_deferred"), registry.Deferred, "deploy")))
	require.NoError(t, r.AddTrusted(named(registry.Plain("deploy_model"), registry.DeferredModelOnly, "deploy")))
	require.NoError(t, r.AddTrusted(named(registry.Plain("deploy_code"), registry.CodeModeOnly, "deploy")))
	require.NoError(t, r.AddTrusted(named(registry.Plain("deploy_hidden"), registry.Hidden, "deploy")))

	names := func(m registry.Mode) []string {
		res, err := finalize(t, r, m).Search("deploy", 0)
		require.NoError(t, err)
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.Name.Name)
		}
		return out
	}
	assert.ElementsMatch(t, []string{"deploy_deferred", "deploy_model"}, names(registry.ModeDirect))
	assert.ElementsMatch(t, []string{"deploy_deferred", "deploy_model"}, names(registry.ModeCodeMode))
	assert.ElementsMatch(t, []string{"deploy_model"}, names(registry.ModeCodeModeOnly),
		"in code_mode_only deferred Code Mode tools are found from scripts, not tool_search")
}

func TestSearchIsOffWithoutDeferredToolsOrWhenDisabled(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Direct)))
	set := finalize(t, r, registry.ModeDirect)
	assert.False(t, set.SearchEnabled())
	assert.NotContains(t, modelNames(set), "tool_search")
	_, err := set.Search("a", 0)
	assert.ErrorContains(t, err, "registry: tool_search is not available")

	r = newReg(t, registry.Config{DisableSearch: true})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Deferred)))
	assert.False(t, finalize(t, r, registry.ModeDirect).SearchEnabled())
}

func ExampleToolSet_Search() {
	r := registry.New(registry.Config{})
	r.AddExternal(registry.NewFunc(registry.Spec{Name: registry.Namespaced("mcp__slack", "post_message"),
		Description: "Send a message to a Slack channel.", Exposure: registry.Deferred}, nil))
	r.AddExternal(registry.NewFunc(registry.Spec{Name: registry.Namespaced("mcp__github", "create_issue"),
		Description: "Open an issue in a repository.", Exposure: registry.Deferred}, nil))
	set, _ := r.Finalize(registry.ModeDirect)
	res, _ := set.Search("send a slack message", 0)
	for _, g := range res.Groups {
		fmt.Println(g.Namespace, g.Tools[0].Tool)
	}
	// Output: mcp__slack post_message
}

func TestTheSearchIndexFollowsNamespaceDescriptionChanges(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__w", "op"), registry.Deferred, "Does a thing")))
	find := func(q string) []registry.SearchGroup {
		t.Helper()
		res, err := finalize(t, r, registry.ModeDirect).Search(q, 0)
		require.NoError(t, err)
		return res.Groups
	}
	assert.Empty(t, find("meteorology"))

	// A Direct tool describes the namespace: the deferred set is the same,
	// but what the index holds is not.
	require.True(t, r.AddExternal(registry.NewFunc(registry.Spec{Name: registry.Namespaced("mcp__w", "info"), Exposure: registry.Direct,
		Search: registry.SearchInfo{NamespaceDescription: "Meteorology service"}}, nil)))
	groups := find("meteorology")
	require.Len(t, groups, 1, "the new description is indexed")
	assert.Equal(t, "mcp__w", groups[0].Namespace)
	assert.Equal(t, "Meteorology service", groups[0].Description)
	assert.Equal(t, "op", groups[0].Tools[0].Tool)

	// A server's description, for a namespace with no tool description.
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "hydro", Description: "Rainfall gauges"},
		[]registry.Tool{named(registry.Namespaced("mcp__h", "status"), registry.Direct, "Status")}))
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__h", "read"), registry.Deferred, "Reads a value")))
	require.Len(t, find("rainfall"), 1)
	assert.Equal(t, 1, r.RemoveServer("hydro"))
	assert.Empty(t, find("rainfall"), "the removed server's description is no longer indexed")

	// The description goes when the tool that gave it does.
	require.True(t, r.Remove(registry.Namespaced("mcp__w", "info")))
	assert.Empty(t, find("meteorology"))
	groups = find("thing")
	require.Len(t, groups, 1)
	assert.Empty(t, groups[0].Description)
}
