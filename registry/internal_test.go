package registry

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noop(name ToolName, exp Exposure) Tool {
	return NewFunc(Spec{Name: name, Description: "tool " + name.Name, Exposure: exp},
		func(context.Context, Invocation) (Output, error) { return Output{}, nil })
}

func TestSearchIndexIsRebuiltOnlyWhenTheDeferredSetChanges(t *testing.T) {
	r := New(Config{})
	require.True(t, r.AddExternal(noop(Plain("a"), Deferred)))
	s1, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	require.NotNil(t, s1.search)

	require.NoError(t, r.AddTrusted(noop(Plain("direct"), Direct)))
	r.AddReminder(func(context.Context, Call, Result) string { return "" })
	s2, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	assert.NotSame(t, s1, s2, "the set changed")
	assert.Same(t, s1.search, s2.search, "the deferred set did not")
	assert.Equal(t, 1, r.search.builds)

	require.True(t, r.AddExternal(noop(Plain("b"), DeferredModelOnly)))
	s3, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	assert.NotSame(t, s2.search, s3.search)
	require.True(t, r.Remove(Plain("b")))
	s4, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	assert.NotSame(t, s3.search, s4.search)
	assert.Equal(t, 3, r.search.builds)
	res, err := s3.Search("tool b", 0)
	require.NoError(t, err)
	assert.Equal(t, "b", res.Hits[0].Name.Name, "an old set keeps its own index")
}

func TestGateLetsAWaitingExclusiveCallInBeforeNewSharedOnes(t *testing.T) {
	g := &gate{}
	ctx := context.Background()
	require.NoError(t, g.acquire(ctx, false))
	gotExclusive := make(chan struct{})
	go func() {
		assert.NoError(t, g.acquire(ctx, true))
		close(gotExclusive)
	}()
	// Wait until the exclusive call is queued.
	for {
		g.mu.Lock()
		w := g.waitingExcl
		g.mu.Unlock()
		if w == 1 {
			break
		}
		time.Sleep(50 * time.Microsecond)
	}
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, g.acquire(short, false), context.DeadlineExceeded, "a new shared call waits behind the exclusive one")
	g.release(false)
	<-gotExclusive
	g.release(true)
	require.NoError(t, g.acquire(ctx, false))
	g.release(false)
}

// BenchmarkSchemaValidation is the argument check of one function call.
func BenchmarkSchemaValidation(b *testing.B) {
	schema := mustSchema(Plain("bench"), `{"type":"object","properties":{
  "owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string","minLength":1},
  "labels":{"type":"array","items":{"type":"string"}},"draft":{"type":"boolean"}},
  "required":["owner","repo","title"],"additionalProperties":false}`)
	input := []byte(`{"owner":"codemode-host","repo":"codemode-host","title":"Flaky test","labels":["bug","ci"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if msg := validateArgs(Plain("bench"), schema, input); msg != "" {
			b.Fatal(msg)
		}
	}
}

func TestSearchIndexIsRebuiltWhenANamespaceDescriptionChanges(t *testing.T) {
	r := New(Config{})
	require.True(t, r.AddExternal(noop(Namespaced("mcp__w", "a"), Deferred)))
	s1, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	require.True(t, r.AddExternal(noop(Namespaced("mcp__w", "b"), Direct)))
	s2, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	assert.Same(t, s1.search, s2.search, "neither the deferred set nor a description changed")

	described := NewFunc(Spec{Name: Namespaced("mcp__w", "c"), Search: SearchInfo{NamespaceDescription: "Weather"}}, nil)
	require.True(t, r.AddExternal(described))
	s3, err := r.Finalize(ModeDirect)
	require.NoError(t, err)
	assert.NotSame(t, s2.search, s3.search, "the namespace's description changed")
	assert.Equal(t, map[string]string{"mcp__w": "Weather"}, s3.search.nsDesc)
	assert.Equal(t, 2, r.search.builds)
}

// An invalid-arguments message is the same text for the same call every
// time: its problems are sorted by location, not in the validator's map
// order.
func TestInvalidArgumentsListTheProblemsInOneOrder(t *testing.T) {
	schema := mustSchema(Plain("f"), `{"type": "object", "properties": {
		"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1},
		"mode": {"enum": ["a", "b"]}, "zeta": {"type": "boolean"}}}`)
	input := json.RawMessage(`{"query": 5, "limit": 0, "mode": "c", "zeta": 1}`)
	first := validateArgs(Plain("f"), schema, input)
	for range 50 {
		require.Equal(t, first, validateArgs(Plain("f"), schema, input))
	}
	lines := strings.Split(first, "\n")
	require.Len(t, lines, 6, first)
	assert.True(t, slices.IsSorted(lines[1:5]), first)
}
