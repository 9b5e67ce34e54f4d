package runtime

import (
	"strconv"
	"strings"
	"sync"

	"github.com/codemode-host/codemode-host/jsbindings"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/toolsearch"
)

// searchIndexes caches the BM25 index of a tool list: a parent sends the
// same tools with every cell. Safe from any goroutine.
var searchIndexes struct {
	sync.Mutex
	m map[string]*toolsearch.Index
}

// maxSearchQueryBytes bounds the query searchTools ranks, whatever its
// caller checked: the script's searchTools refuses a query longer than
// jsbindings.MaxSearchQuery code units, at most 3 bytes each in UTF-8.
const maxSearchQueryBytes = 3 * jsbindings.MaxSearchQuery

// searchTools ranks query against idx and returns the best limit indexes
// as a JSON array. A query past maxSearchQueryBytes is cut there.
func searchTools(idx *toolsearch.Index, query string, limit int) string {
	if len(query) > maxSearchQueryBytes {
		query = cutRunes(query, maxSearchQueryBytes, true)
	}
	hits := idx.Search(query, max(limit, 1))
	var b strings.Builder
	b.WriteByte('[')
	for i, h := range hits {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(h.Doc))
	}
	b.WriteByte(']')
	return b.String()
}

// toolIndex is the search index of a cell's bound tools: toolsearch's
// ranking, the one the registry's tool_search uses.
func toolIndex(tools []protocol.ToolDef) *toolsearch.Index {
	var key strings.Builder
	for _, t := range tools {
		key.WriteString(toolKey(t))
		key.WriteByte(1)
	}
	k := key.String()
	searchIndexes.Lock()
	defer searchIndexes.Unlock()
	if idx, ok := searchIndexes.m[k]; ok {
		return idx
	}
	idx := toolsearch.FromDefs(tools)
	if searchIndexes.m == nil || len(searchIndexes.m) >= 64 {
		searchIndexes.m = map[string]*toolsearch.Index{}
	}
	searchIndexes.m[k] = idx
	return idx
}
