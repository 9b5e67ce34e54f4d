package runtime

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode-host/codemode-host/internal/bm25"
	"github.com/codemode-host/codemode-host/jsbindings"
	"github.com/codemode-host/codemode-host/protocol"
)

// searchIndexes caches the BM25 index of a tool list: a parent sends the
// same tools with every cell. Safe from any goroutine.
var searchIndexes struct {
	sync.Mutex
	m map[string]*bm25.Index
}

// maxSearchQueryBytes bounds the query searchTools ranks, whatever its
// caller checked: the script's searchTools refuses a query longer than
// jsbindings.MaxSearchQuery code units, at most 3 bytes each in UTF-8.
const maxSearchQueryBytes = 3 * jsbindings.MaxSearchQuery

// searchTools ranks query against idx and returns the best limit indexes
// as a JSON array. A query past maxSearchQueryBytes is cut there.
func searchTools(idx *bm25.Index, query string, limit int) string {
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

func toolIndex(tools []protocol.ToolDef) *bm25.Index {
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
	docs := make([]bm25.Document, len(tools))
	for i, t := range tools {
		docs[i] = bm25.Document{Fields: []bm25.Field{
			{Text: t.Name + " " + strings.ReplaceAll(t.Name, "_", " "), Weight: 3},
			{Text: protocol.JSIdent(t.Namespace, t.Name), Weight: 1},
			{Text: t.Description, Weight: 1},
			{Text: schemaWords(t.InputSchema), Weight: 1},
		}}
	}
	idx := bm25.New(docs, bm25.Params{})
	if searchIndexes.m == nil || len(searchIndexes.m) >= 64 {
		searchIndexes.m = map[string]*bm25.Index{}
	}
	searchIndexes.m[k] = idx
	return idx
}

// schemaWords collects the property names and descriptions of a schema's
// top-level properties.
func schemaWords(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return ""
	}
	var b strings.Builder
	for name, p := range s.Properties {
		b.WriteString(name)
		b.WriteByte(' ')
		b.WriteString(p.Description)
		b.WriteByte(' ')
	}
	return b.String()
}
