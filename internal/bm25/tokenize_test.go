package bm25

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitWordsHandlesCamelSnakeAndAcronyms(t *testing.T) {
	cases := map[string][]string{
		"createIssue":          {"create", "Issue"},
		"list_pull_requests":   {"list", "pull", "requests"},
		"HTTPServer":           {"HTTP", "Server"},
		"mcp__github.getRepo":  {"mcp", "github", "get", "Repo"},
		"upload to s3 bucket!": {"upload", "to", "s3", "bucket"},
		"  ":                   nil,
		"v2Endpoint":           {"v2", "Endpoint"},
	}
	for in, want := range cases {
		assert.Equal(t, want, splitWords(in), in)
	}
}

func TestTokenizeLowercasesDropsStopWordsAndStems(t *testing.T) {
	assert.Equal(t, []string{"list", "pull", "request"}, Tokenize("List the Pull Requests"))
	assert.Equal(t, []string{"creat", "issu"}, Tokenize("createIssue"))
	assert.Equal(t, Tokenize("sending messages"), Tokenize("send message"))
	assert.Empty(t, Tokenize("the and of to"))
}
