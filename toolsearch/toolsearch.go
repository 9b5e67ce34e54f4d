// Package toolsearch is the one tool-search ranking: the document BM25
// sees of a tool (its fields and their weights) and the index over a
// catalogue. The registry's tool_search and the host's in-script
// searchTools() both rank with it, so the same catalogue and query give
// the same order on either side.
//
// A tool's document is built from its protocol.ToolDef: the name as
// written and with "_" as spaces, the description, the input schema's
// property names and descriptions (nested ones too) and, outside the
// default namespace, the namespace name. The registry knows more about a
// tool than a ToolDef carries (search keywords, a freeform grammar, the
// namespace's description); it passes those as Extra, which add fields
// and never change the others. Text is tokenised by internal/bm25
// (lowercase, camelCase and snake_case split, stop words, stemming).
package toolsearch

import (
	"encoding/json"
	"strings"

	"github.com/codemode-host/codemode-host/internal/bm25"
	"github.com/codemode-host/codemode-host/protocol"
)

// Field weights. The name appears twice (as written and with "_" as
// spaces), as in the reference design, so it counts the most; schema
// text counts the least.
const (
	WeightName        = 2.0
	WeightKeywords    = 1.5
	WeightDescription = 1.0
	WeightProperties  = 0.6
	WeightSchemaText  = 0.4
	WeightNamespace   = 1.0
	WeightNSText      = 0.4
)

// maxSchemaDepth bounds how deep the schema walk reads.
const maxSchemaDepth = 6

// Extra is what the registry indexes about a tool beyond its ToolDef.
// The zero value adds nothing.
type Extra struct {
	// Keywords are extra words to match (a product name, synonyms).
	Keywords []string
	// Grammar is a freeform tool's grammar, read as schema text.
	Grammar string
	// NamespaceDescription describes the tool's namespace; ignored in the
	// default namespace.
	NamespaceDescription string
}

// Tool is one tool to index.
type Tool struct {
	Def   protocol.ToolDef
	Extra Extra
}

// Index ranks a catalogue of tools: Search(query, limit) returns the
// best Hits, ties in catalogue order. Build it with New or FromDefs; it
// is immutable afterwards and Search is safe from any goroutine. It is
// internal/bm25's index, so both sides share one ranking, not just one
// document.
type Index = bm25.Index

// Hit is one ranked tool: Doc is its position in the list given to New
// or FromDefs, Score its BM25 score (higher is better, always > 0).
type Hit = bm25.Hit

// New indexes tools, in order. tools is not retained. Safe from any
// goroutine.
func New(tools []Tool) *Index {
	docs := make([]bm25.Document, len(tools))
	for i, t := range tools {
		docs[i] = document(t.Def, t.Extra)
	}
	return bm25.New(docs, bm25.Params{})
}

// FromDefs indexes defs, in order, with no Extra: what the host knows of
// a cell's tools. Safe from any goroutine.
func FromDefs(defs []protocol.ToolDef) *Index {
	docs := make([]bm25.Document, len(defs))
	for i, d := range defs {
		docs[i] = document(d, Extra{})
	}
	return bm25.New(docs, bm25.Params{})
}

// document is what BM25 sees of one tool.
func document(d protocol.ToolDef, x Extra) bm25.Document {
	var props, texts []string
	if len(d.InputSchema) > 0 {
		var schema any
		if json.Unmarshal(d.InputSchema, &schema) == nil {
			collectSchemaText(schema, 0, &props, &texts)
		}
	}
	fields := []bm25.Field{
		{Text: d.Name, Weight: WeightName},
		{Text: strings.ReplaceAll(d.Name, "_", " "), Weight: WeightName},
		{Text: d.Description, Weight: WeightDescription},
		{Text: strings.Join(props, " "), Weight: WeightProperties},
		{Text: strings.Join(texts, " "), Weight: WeightSchemaText},
	}
	if len(x.Keywords) > 0 {
		fields = append(fields, bm25.Field{Text: strings.Join(x.Keywords, " "), Weight: WeightKeywords})
	}
	if x.Grammar != "" {
		fields = append(fields, bm25.Field{Text: x.Grammar, Weight: WeightSchemaText})
	}
	if !protocol.IsDefaultNamespace(d.Namespace) {
		fields = append(fields, bm25.Field{Text: d.Namespace, Weight: WeightNamespace})
		if x.NamespaceDescription != "" {
			fields = append(fields, bm25.Field{Text: x.NamespaceDescription, Weight: WeightNSText})
		}
	}
	return bm25.Document{Fields: fields}
}

// collectSchemaText gathers property names and descriptions from a JSON
// Schema: properties, items, anyOf/oneOf/allOf, recursively. The root's
// own description is not read (it repeats the tool's).
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
