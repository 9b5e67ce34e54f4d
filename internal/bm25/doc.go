// Package bm25 is a small, dependency-light BM25 ranking index for short
// English documents such as tool names and descriptions.
//
// A document is a list of weighted fields. Term frequencies and document
// lengths are the weighted sums over the fields (a simplified BM25F), so a
// word in a tool's name can count more than the same word in a long
// description. Text is tokenised by Tokenize: lowercased, split on
// non-alphanumerics and camelCase/snake_case boundaries, English stop words
// removed and every word reduced to its Snowball (Porter2) stem.
//
// An Index is immutable once built: Search is safe from any goroutine.
// The package knows nothing about tools: toolsearch builds the tool
// documents and is the one user, for the registry's tool_search and the
// host's in-script searchTools() alike.
package bm25
