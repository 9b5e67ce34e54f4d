package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

const benchSchema = `{"type":"object","properties":{
  "owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string","minLength":1},
  "labels":{"type":"array","items":{"type":"string"}},"draft":{"type":"boolean"}},
  "required":["owner","repo","title"],"additionalProperties":false}`

const benchInput = `{"owner":"codemode-host","repo":"codemode-host","title":"Flaky test","labels":["bug","ci"]}`

func benchSet(b *testing.B, parallel bool) *registry.ToolSet {
	r := registry.New(registry.Config{})
	require.NoError(b, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Namespaced("mcp__github", "create_issue"),
		InputSchema: json.RawMessage(benchSchema), SupportsParallel: parallel},
		func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
			return registry.Output{Value: inv.Input}, nil
		})))
	set, err := r.Finalize(registry.ModeCodeMode)
	require.NoError(b, err)
	return set
}

// BenchmarkDispatch is one script call through the whole pipeline:
// lookup, exposure check, schema validation, gate, execution, events.
func BenchmarkDispatch(b *testing.B) {
	set := benchSet(b, false)
	call := protocol.ToolCall{CellID: "c", CallID: 1, Namespace: "mcp__github", Name: "create_issue",
		Kind: protocol.KindFunction, Input: json.RawMessage(benchInput)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := set.CallTool(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatchParallel is the same call from many goroutines to a
// parallel-safe tool.
func BenchmarkDispatchParallel(b *testing.B) {
	set := benchSet(b, true)
	call := protocol.ToolCall{CellID: "c", CallID: 1, Namespace: "mcp__github", Name: "create_issue",
		Kind: protocol.KindFunction, Input: json.RawMessage(benchInput)}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := set.CallTool(context.Background(), call); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkToolSearchCatalogue is one tool_search query over the
// testdata catalogue (254 tools).
func BenchmarkToolSearchCatalogue(b *testing.B) {
	r := registry.New(registry.Config{})
	loadCatalogue(b, r, registry.Deferred)
	set, err := r.Finalize(registry.ModeDirect)
	require.NoError(b, err)
	_, _ = set.Search("warm", 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := set.Search("schedule a meeting with attendees", 0); err != nil {
			b.Fatal(err)
		}
	}
}
