package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/codemode-host/codemode-host/internal/bm25"
	"github.com/codemode-host/codemode-host/protocol"
)

// searchSchema is the input schema of tool_search.
const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "Words describing the tool you need, e.g. \"create a calendar event\"."},
    "limit": {"type": "integer", "minimum": 1, "description": "How many tools to return. Defaults to 8."}
  },
  "required": ["query"],
  "additionalProperties": false
}`

// Weights of the fields tool_search indexes. The name appears twice (as
// written and with "_" as spaces), as in the reference design, so it
// counts the most; schema text counts the least.
const (
	weightName        = 2.0
	weightKeywords    = 1.5
	weightDescription = 1.0
	weightProperties  = 0.6
	weightSchemaText  = 0.4
	weightNamespace   = 1.0
	weightNSText      = 0.4
	maxSchemaDepth    = 6
)

// SearchHit is one tool tool_search found.
type SearchHit struct {
	// Name is the tool's canonical name.
	Name ToolName `json:"-"`
	// Tool is the tool's name inside its namespace.
	Tool        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Kind        protocol.ToolKind `json:"kind,omitempty"`
	InputSchema json.RawMessage   `json:"input_schema,omitempty"`
	// Score is the BM25 score, higher is better.
	Score float64 `json:"-"`
}

// SearchGroup is the hits of one namespace.
type SearchGroup struct {
	Namespace   string      `json:"namespace"`
	Description string      `json:"description,omitempty"`
	Tools       []SearchHit `json:"tools"`
}

// SearchResult is what tool_search returns: the hits grouped by namespace
// (groups in the order of their best hit), and the flat ranking.
type SearchResult struct {
	Groups []SearchGroup `json:"namespaces"`
	// Hits is every hit, best first.
	Hits []SearchHit `json:"-"`
}

// searchIndex is the BM25 index over one set of searchable tools, built
// on first use. nsDesc holds the descriptions of the tools' namespaces
// (those that have one), indexed with the tools and shown in results.
type searchIndex struct {
	entries []*entry
	nsDesc  map[string]string
	once    sync.Once
	index   *bm25.Index
}

func (si *searchIndex) get() *bm25.Index {
	si.once.Do(func() {
		docs := make([]bm25.Document, len(si.entries))
		for i, e := range si.entries {
			docs[i] = searchDocument(e, si.nsDesc[e.name.Namespace])
		}
		si.index = bm25.New(docs, bm25.Params{})
	})
	return si.index
}

// searchCache keeps the indexes of the current deferred set, one per mode,
// so an index is rebuilt only when what it indexes changes: the deferred
// set, or the description of one of its namespaces (which tools of any
// exposure, and servers, provide). Guarded by Registry.mu.
type searchCache struct {
	version uint64
	byMode  map[Mode]*searchIndex
	builds  int // indexes created, for tests
}

func (c *searchCache) get(version uint64, mode Mode, entries []*entry, nsDesc map[string]string) *searchIndex {
	if c.byMode == nil || c.version != version {
		c.byMode = make(map[Mode]*searchIndex)
		c.version = version
	}
	if si := c.byMode[mode]; si != nil && maps.Equal(si.nsDesc, nsDesc) {
		return si
	}
	si := &searchIndex{entries: entries, nsDesc: nsDesc}
	c.byMode[mode] = si
	c.builds++
	return si
}

// searchDocument is what BM25 sees of one tool.
func searchDocument(e *entry, nsDesc string) bm25.Document {
	var props, texts []string
	if len(e.spec.InputSchema) > 0 {
		var schema any
		if json.Unmarshal(e.spec.InputSchema, &schema) == nil {
			collectSchemaText(schema, 0, &props, &texts)
		}
	}
	fields := []bm25.Field{
		{Text: e.name.Name, Weight: weightName},
		{Text: strings.ReplaceAll(e.name.Name, "_", " "), Weight: weightName},
		{Text: e.spec.Description, Weight: weightDescription},
		{Text: strings.Join(e.spec.Search.Keywords, " "), Weight: weightKeywords},
		{Text: strings.Join(props, " "), Weight: weightProperties},
		{Text: strings.Join(texts, " "), Weight: weightSchemaText},
		{Text: e.spec.Grammar, Weight: weightSchemaText},
	}
	if !e.name.IsDefaultNamespace() {
		fields = append(fields,
			bm25.Field{Text: e.name.Namespace, Weight: weightNamespace},
			bm25.Field{Text: nsDesc, Weight: weightNSText})
	}
	return bm25.Document{Fields: fields}
}

// collectSchemaText gathers property names and descriptions from a JSON
// Schema: properties, items, anyOf/oneOf/allOf, recursively.
func collectSchemaText(v any, depth int, props, texts *[]string) {
	m, ok := v.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return
	}
	if d, ok := m["description"].(string); ok && depth > 0 {
		*texts = append(*texts, d)
	}
	if ps, ok := m["properties"].(map[string]any); ok {
		for name, p := range ps {
			*props = append(*props, name)
			collectSchemaText(p, depth+1, props, texts)
		}
	}
	if items, ok := m["items"]; ok {
		collectSchemaText(items, depth+1, props, texts)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if xs, ok := m[k].([]any); ok {
			for _, x := range xs {
				collectSchemaText(x, depth+1, props, texts)
			}
		}
	}
}

// Search ranks the set's searchable tools for query and returns at most
// limit (0 means Config.SearchLimit). Searchable tools are the Deferred and
// DeferredModelOnly ones (only DeferredModelOnly in ModeCodeModeOnly).
// Safe from any goroutine.
func (s *ToolSet) Search(query string, limit int) (SearchResult, error) {
	if s.search == nil {
		return SearchResult{}, fmt.Errorf("registry: tool_search is not available in this tool set (no deferred tools, or Config.DisableSearch)")
	}
	query = strings.TrimSpace(query)
	if query == "" {
		return SearchResult{}, fmt.Errorf("registry: tool_search needs a non-empty query; describe the tool you need in a few words")
	}
	if limit < 0 {
		return SearchResult{}, fmt.Errorf("registry: tool_search limit must be positive; got %d", limit)
	}
	if limit == 0 {
		limit = s.cfg.SearchLimit
	}
	var res SearchResult
	group := map[string]int{}
	for _, h := range s.search.get().Search(query, limit) {
		e := s.search.entries[h.Doc]
		hit := SearchHit{Name: e.name, Tool: e.name.Name, Description: e.spec.Description, Kind: e.spec.Kind, InputSchema: e.spec.InputSchema, Score: h.Score}
		res.Hits = append(res.Hits, hit)
		ns := e.name.namespaceDisplay()
		i, ok := group[ns]
		if !ok {
			i = len(res.Groups)
			group[ns] = i
			res.Groups = append(res.Groups, SearchGroup{Namespace: ns, Description: s.search.nsDesc[ns]})
		}
		res.Groups[i].Tools = append(res.Groups[i].Tools, hit)
	}
	if res.Groups == nil {
		res.Groups = []SearchGroup{}
	}
	return res, nil
}

// runSearch is tool_search's handler.
func (s *ToolSet) runSearch(_ context.Context, inv Invocation) (Output, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := inv.Bind(&in); err != nil {
		return Output{}, toolError(protocol.CodeInvalidArguments, inv.Name, "%v", err)
	}
	res, err := s.Search(in.Query, in.Limit)
	if err != nil {
		return Output{}, toolError(protocol.CodeInvalidArguments, inv.Name, "%v", err)
	}
	return JSONOutput(res)
}

// searchDescription is tool_search's description: what it does and which
// sources it covers.
func (s *ToolSet) searchDescription() string {
	var b strings.Builder
	b.WriteString("# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call. ")
	fmt.Fprintf(&b, "Returns up to `limit` tools (default %d), grouped by namespace.\n", s.cfg.SearchLimit)
	if len(s.deferNS) > 0 {
		b.WriteString("\nYou have access to tools from the following sources:\n")
		for _, ns := range s.deferNS {
			if ns.Description != "" {
				fmt.Fprintf(&b, "- %s: %s\n", ns.Name, oneLine(ns.Description, 300))
			} else {
				fmt.Fprintf(&b, "- %s\n", ns.Name)
			}
		}
	}
	b.WriteString("\nSome of these tools are not in your tool list yet: search for what you need before saying a tool is unavailable.")
	return b.String()
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
