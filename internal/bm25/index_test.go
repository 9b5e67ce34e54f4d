package bm25

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func docs(texts ...string) []Document {
	out := make([]Document, len(texts))
	for i, t := range texts {
		out[i] = Document{Fields: []Field{{Text: t}}}
	}
	return out
}

func TestSearchRanksTheMostSpecificDocumentFirst(t *testing.T) {
	ix := New(docs(
		"send a message to a slack channel",
		"create an issue in a github repository",
		"list issues in a github repository",
		"read a file from disk",
	), Params{})
	hits := ix.Search("Creating a new GitHub issue", 0)
	require.Len(t, hits, 2, "only documents with a query term match")
	assert.Equal(t, 1, hits[0].Doc, "'create' is stemmed and picks the create doc: %v", hits)
	assert.Greater(t, hits[0].Score, hits[1].Score)

	hits = ix.Search("slack messages", 0)
	require.Len(t, hits, 1)
	assert.Equal(t, 0, hits[0].Doc)
}

func TestSearchRespectsLimitAndTieOrder(t *testing.T) {
	ix := New(docs("alpha", "alpha", "alpha", "beta"), Params{})
	hits := ix.Search("alpha", 2)
	require.Len(t, hits, 2)
	assert.Equal(t, []int{0, 1}, []int{hits[0].Doc, hits[1].Doc})
	assert.Equal(t, hits[0].Score, hits[1].Score)
}

func TestFieldWeightsChangeTheRanking(t *testing.T) {
	ix := New([]Document{
		{Fields: []Field{{Text: "calendar_event", Weight: 1}, {Text: "deletes a reminder", Weight: 1}}},
		{Fields: []Field{{Text: "reminder", Weight: 4}, {Text: "manages calendar events", Weight: 1}}},
	}, Params{})
	hits := ix.Search("reminder", 0)
	require.Len(t, hits, 2)
	assert.Equal(t, 1, hits[0].Doc, "the heavier name field wins")
}

func TestRareTermsOutweighCommonOnes(t *testing.T) {
	ix := New(docs("github list", "github list", "github list", "github archive"), Params{})
	hits := ix.Search("github archive", 0)
	require.NotEmpty(t, hits)
	assert.Equal(t, 3, hits[0].Doc)
}

func TestEmptyQueriesAndIndexesMatchNothing(t *testing.T) {
	assert.Nil(t, New(nil, Params{}).Search("anything", 5))
	ix := New(docs("some text"), Params{})
	assert.Nil(t, ix.Search("the of and", 5))
	assert.Nil(t, ix.Search("", 5))
	assert.Equal(t, 1, ix.Len())
}

func TestParamsDefaults(t *testing.T) {
	assert.Equal(t, Params{K1: 1.2, B: 0.75}, Params{}.withDefaults())
	assert.Equal(t, Params{K1: 2, B: 0}, Params{K1: 2, B: -1}.withDefaults())
}

func TestSearchIsSafeFromManyGoroutines(t *testing.T) {
	ix := New(docs("create issue", "close issue", "merge pull request"), Params{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				if hits := ix.Search("issue", 1); len(hits) != 1 {
					t.Errorf("got %d hits", len(hits))
					return
				}
			}
		}()
	}
	wg.Wait()
}

func benchDocs(n int) []Document {
	verbs := []string{"create", "list", "get", "update", "delete", "search", "archive", "send", "upload", "sync"}
	nouns := []string{"issue", "repository", "message", "channel", "event", "file", "bucket", "invoice", "ticket", "user", "table", "alert"}
	out := make([]Document, n)
	for i := range out {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		out[i] = Document{Fields: []Field{
			{Text: fmt.Sprintf("%s_%s_%d", v, o, i), Weight: 3},
			{Text: fmt.Sprintf("%s a %s in service %d. Returns the %s with its id, owner and timestamps.", v, o, i%37, o)},
			{Text: "id owner limit cursor filter", Weight: 0.5},
		}}
	}
	return out
}

func BenchmarkSearch1000Tools(b *testing.B) {
	ix := New(benchDocs(1000), Params{})
	b.ReportAllocs()
	for b.Loop() {
		ix.Search("archive an old github repository", 8)
	}
}

func BenchmarkBuild1000Tools(b *testing.B) {
	d := benchDocs(1000)
	b.ReportAllocs()
	for b.Loop() {
		New(d, Params{})
	}
}

// Term counts never leak from one document to the next, whether the
// count map is cleared or replaced after a document with many terms.
func TestTermCountsStayWithTheirDocument(t *testing.T) {
	var big []string
	for i := range 600 {
		big = append(big, fmt.Sprintf("w%dx", i))
	}
	ix := New(docs(strings.Join(big, " "), "alpha", "beta alpha", "gamma"), Params{})
	for q, want := range map[string][]int{"w5x": {0}, "w599x": {0}, "beta": {2}, "gamma": {3}} {
		var got []int
		for _, h := range ix.Search(q, 0) {
			got = append(got, h.Doc)
		}
		assert.Equal(t, want, got, q)
	}
	assert.Len(t, ix.Search("alpha", 0), 2)
}
