package bm25

import (
	"cmp"
	"math"
	"slices"
)

// Params are the BM25 tuning constants. The zero value means the usual
// defaults.
type Params struct {
	// K1 controls how fast repeated terms saturate. Default 1.2.
	K1 float64
	// B controls length normalisation, 0 (none) to 1 (full). Default 0.75.
	// Use a negative value for 0.
	B float64
}

func (p Params) withDefaults() Params {
	if p.K1 <= 0 {
		p.K1 = 1.2
	}
	switch {
	case p.B == 0:
		p.B = 0.75
	case p.B < 0:
		p.B = 0
	case p.B > 1:
		p.B = 1
	}
	return p
}

// Field is one piece of a document's text with its weight.
type Field struct {
	// Text is tokenised with Tokenize.
	Text string
	// Weight multiplies the field's term counts and length. Zero means 1;
	// negative weights are treated as 1.
	Weight float64
}

// Document is what the index ranks: a list of weighted fields. Documents
// are identified by their position in the slice given to New.
type Document struct {
	Fields []Field
}

// Hit is one ranked document.
type Hit struct {
	// Doc is the document's index in the slice given to New.
	Doc int
	// Score is its BM25 score for the query; higher is better, always > 0.
	Score float64
}

type posting struct {
	doc int
	tf  float64
}

// Index ranks documents for queries. Build it with New; it is immutable
// afterwards and Search is safe from any goroutine.
type Index struct {
	params   Params
	postings map[string][]posting
	norm     []float64 // k1·(1−b+b·len/avgLen) per document, fixed at New
}

// New builds an index over docs. Safe from any goroutine; docs is not
// retained.
func New(docs []Document, p Params) *Index {
	ix := &Index{
		params:   p.withDefaults(),
		postings: make(map[string][]posting),
		norm:     make([]float64, len(docs)),
	}
	var total float64
	stems := make(map[string]stem)
	// One term-count map serves every document; a document with very many
	// terms gets a fresh one afterwards, so the next ones don't pay for
	// clearing its size.
	const maxReusedTerms = 512
	tf := make(map[string]float64, 64)
	for d, doc := range docs {
		var length float64
		for _, f := range doc.Fields {
			w := f.Weight
			if w <= 0 {
				w = 1
			}
			eachTerm(f.Text, stems, func(t string) {
				tf[t] += w
				length += w
			})
		}
		ix.norm[d] = length
		total += length
		for t, n := range tf {
			ix.postings[t] = append(ix.postings[t], posting{doc: d, tf: n})
		}
		if len(tf) > maxReusedTerms {
			tf = make(map[string]float64, 64)
		} else {
			clear(tf)
		}
	}
	avgLen := 1.0
	if len(docs) > 0 && total > 0 {
		avgLen = total / float64(len(docs))
	}
	k1, b := ix.params.K1, ix.params.B
	for d, length := range ix.norm {
		ix.norm[d] = k1 * (1 - b + b*length/avgLen)
	}
	return ix
}

// Len is the number of documents in the index.
func (ix *Index) Len() int { return len(ix.norm) }

// Search ranks the documents matching query and returns at most limit of
// them, best first; ties keep document order. limit <= 0 means no limit.
// A query with no indexable words (only stop words, say) matches nothing.
// Safe from any goroutine.
func (ix *Index) Search(query string, limit int) []Hit {
	terms := Tokenize(query)
	if len(terms) == 0 || len(ix.norm) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(terms))
	// Dense scores: a document's score is 0 until a term adds to it (every
	// addition is > 0), so touched lists each matching document once.
	scores := make([]float64, len(ix.norm))
	var touched []int
	n := float64(len(ix.norm))
	k1 := ix.params.K1
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		w := idf * (k1 + 1)
		for _, p := range ps {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += w * p.tf / (p.tf + ix.norm[p.doc])
		}
	}
	hits := make([]Hit, len(touched))
	for i, d := range touched {
		hits[i] = Hit{Doc: d, Score: scores[d]}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
