package bridge

import (
	"context"
	"fmt"
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

// seqSource awaits n echo calls one after another and returns their sum.
func seqSource(n int) string {
	return fmt.Sprintf(`let s = 0; for (let i = 0; i < %d; i++) s += (await tools.echo({i})).i; return s`, n)
}

// benchSequentialCall reports the cost of one awaited tool call (µs/call)
// through exec, a cell of 1,000 sequential calls per iteration.
func benchSequentialCall(b *testing.B, exec func(ExecRequest) (*protocol.CellResult, error)) {
	const n = 1000
	req := ExecRequest{Tools: []protocol.ToolDef{tool("echo")}, Source: seqSource(n), Yield: time.Minute}
	want := fmt.Sprint(n * (n - 1) / 2)
	for b.Loop() {
		res, err := exec(req)
		if err != nil || res.Status != protocol.StatusCompleted || len(res.Items) == 0 || res.Items[0].Text != want {
			b.Fatalf("exec: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/call")
}

// BenchmarkSequentialCallPlugin is one awaited tool call through the
// plugin pipes (fd 3/4), as Start launches the host.
func BenchmarkSequentialCallPlugin(b *testing.B) {
	c, err := Start(context.Background(), Config{HostPath: hostBin, Executor: echo})
	require.NoError(b, err)
	defer c.Close(0)
	s, err := c.OpenSession(context.Background(), "bench", nil)
	require.NoError(b, err)
	benchSequentialCall(b, func(r ExecRequest) (*protocol.CellResult, error) { return s.Exec(context.Background(), r) })
}

// BenchmarkSequentialCallStdio is the same call through a host serving
// on stdio (`codemode-host stdio`) with the bridge's Conn.
func BenchmarkSequentialCallStdio(b *testing.B) {
	conn, _ := stdioPair(b, echo)
	_, err := conn.OpenSession(context.Background(), "s1", nil, nil)
	require.NoError(b, err)
	benchSequentialCall(b, func(r ExecRequest) (*protocol.CellResult, error) { return conn.Exec(context.Background(), "s1", r) })
}

// BenchmarkPingStdio is a bare ping round trip over stdio: the floor
// under a tool call through the same pipes.
func BenchmarkPingStdio(b *testing.B) {
	conn, _ := stdioPair(b, echo)
	for b.Loop() {
		if err := conn.Ping(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
