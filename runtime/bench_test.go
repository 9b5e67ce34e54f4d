package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode-host/codemode-host/protocol"
)

// inlineEcho answers at once with the call's input.
type inlineEcho struct{}

func (inlineEcho) CallTool(_ context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	return call.Input, nil
}

func benchCell(b *testing.B, src string) {
	rt := New(Config{})
	defer rt.Close()
	req := CellRequest{Source: src, Tools: []protocol.ToolDef{{Name: "echo"}}, Caller: inlineEcho{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := rt.Run(context.Background(), req)
		if err != nil || res.Status != protocol.StatusCompleted {
			b.Fatalf("%v %+v", err, res.Error)
		}
	}
}

// In-process baselines for DESIGN §7's scenarios: no process boundary.
func BenchmarkTrivialCell(b *testing.B) { benchCell(b, "return 1") }
func BenchmarkSequentialCalls100(b *testing.B) {
	benchCell(b, "for (let i = 0; i < 100; i++) await tools.echo({i}); return 1")
}
func BenchmarkPromiseAll1000(b *testing.B) {
	benchCell(b, "await Promise.all(Array.from({length: 1000}, (_, i) => tools.echo({i}))); return 1")
}
func BenchmarkFib27(b *testing.B) {
	benchCell(b, "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } return fib(27)")
}
