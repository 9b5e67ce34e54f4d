package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/toolsearch"
)

// searchSchema is the input schema of tool_search whose limit defaults
// to limit (Config.SearchLimit); the default changes only its text.
func searchSchema(limit int) string {
	return fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "Words describing the tool you need, e.g. \"create a calendar event\"."},
    "limit": {"type": "integer", "minimum": 1, "description": "How many tools to return. Defaults to %d."}
  },
  "required": ["query"],
  "additionalProperties": false
}`, limit)
}

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
	index   *toolsearch.Index
}

// get builds the index on first use: each tool's document is
// toolsearch's (the same as the host's searchTools()), plus what only the
// registry knows (keywords, grammar, the namespace's description).
func (si *searchIndex) get() *toolsearch.Index {
	si.once.Do(func() {
		tools := make([]toolsearch.Tool, len(si.entries))
		for i, e := range si.entries {
			tools[i] = toolsearch.Tool{Def: e.def(), Extra: toolsearch.Extra{
				Keywords:             e.spec.Search.Keywords,
				Grammar:              e.spec.Grammar,
				NamespaceDescription: si.nsDesc[e.name.Namespace],
			}}
		}
		si.index = toolsearch.New(tools)
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
	if err := s.recordLoaded(inv, res); err != nil {
		return Output{}, err
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
