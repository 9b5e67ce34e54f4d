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
	"errors"
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

// DefaultLimit is how many tools a search returns when its caller names
// no limit: the registry's tool_search (registry.DefaultSearchLimit) and a
// script's searchTools(query).
const DefaultLimit = 8

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
	// Def is what every side knows of the tool.
	Def protocol.ToolDef
	// Extra is what only the registry knows.
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

// document is what BM25 sees of one tool. The name is one field at
// twice WeightName: it stands for the name as written and the name with
// "_" as spaces, which tokenise alike.
func document(d protocol.ToolDef, x Extra) bm25.Document {
	var props, texts []string
	if len(d.InputSchema) > 0 {
		var root schemaNode
		err := json.Unmarshal(d.InputSchema, &root)
		var typeErr *json.UnmarshalTypeError
		if err == nil || errors.As(err, &typeErr) {
			root.collect(0, &props, &texts)
		}
	}
	fields := make([]bm25.Field, 0, 8)
	fields = append(fields,
		bm25.Field{Text: d.Name, Weight: 2 * WeightName},
		bm25.Field{Text: d.Description, Weight: WeightDescription},
		bm25.Field{Text: strings.Join(props, " "), Weight: WeightProperties},
		bm25.Field{Text: strings.Join(texts, " "), Weight: WeightSchemaText},
	)
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

// schemaNode is the part of a JSON Schema the document reads, decoded
// without building the rest. A value of the wrong type (a description
// that is not a string, items that are a tuple) is left empty;
// json.Unmarshal still fills in the rest. (encoding/json also matches a
// keyword spelt in another case, "Properties"; that only adds words.)
type schemaNode struct {
	Description string                 `json:"description"`
	Properties  map[string]*schemaNode `json:"properties"`
	Items       *schemaNode            `json:"items"`
	AnyOf       []*schemaNode          `json:"anyOf"`
	OneOf       []*schemaNode          `json:"oneOf"`
	AllOf       []*schemaNode          `json:"allOf"`
}

// collect gathers property names and descriptions: properties, items,
// anyOf/oneOf/allOf, recursively to maxSchemaDepth. The root's own
// description is not read (it repeats the tool's).
func (n *schemaNode) collect(depth int, props, texts *[]string) {
	if n == nil || depth > maxSchemaDepth {
		return
	}
	if n.Description != "" && depth > 0 {
		*texts = append(*texts, n.Description)
	}
	for name, p := range n.Properties {
		*props = append(*props, name)
		p.collect(depth+1, props, texts)
	}
	n.Items.collect(depth+1, props, texts)
	for _, xs := range [][]*schemaNode{n.AnyOf, n.OneOf, n.AllOf} {
		for _, x := range xs {
			x.collect(depth+1, props, texts)
		}
	}
}
