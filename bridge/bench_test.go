package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// benchExec runs src once per iteration through a host launched by Start
// (plugin mode, fd 3/4 pipes) with the echo tool, checking it completes.
func benchExec(b *testing.B, src string) {
	c, err := Start(context.Background(), Config{HostPath: hostBin, Executor: echo})
	require.NoError(b, err)
	defer c.Close(0)
	s, err := c.OpenSession(context.Background(), "bench", nil)
	require.NoError(b, err)
	req := ExecRequest{Source: src, Tools: []protocol.ToolDef{tool("echo")}, Yield: time.Minute}
	for b.Loop() {
		res, err := s.Exec(context.Background(), req)
		if err != nil || res.Status != protocol.StatusCompleted {
			b.Fatalf("exec: %v %+v", err, res)
		}
	}
}

// BenchmarkTrivialCell is a warm host running `return 1` end to end.
func BenchmarkTrivialCell(b *testing.B) { benchExec(b, `return 1`) }

// BenchmarkSequentialToolCalls100 awaits 100 echo calls one by one.
func BenchmarkSequentialToolCalls100(b *testing.B) {
	benchExec(b, `for (let i = 0; i < 100; i++) await tools.echo({i}); return 1`)
}

// BenchmarkPromiseAll1000 runs 1,000 echo calls at once.
func BenchmarkPromiseAll1000(b *testing.B) {
	benchExec(b, `await Promise.all(Array.from({length: 1000}, (_, i) => tools.echo({i}))); return 1`)
}

// BenchmarkFib27 is CPU-bound JavaScript.
func BenchmarkFib27(b *testing.B) {
	benchExec(b, `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) } return fib(27)`)
}
