package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// socketStdio launches `codemode-host stdio` with a Unix socket pair as its
// stdin and stdout, as Node's child_process does for stdio "pipe", and
// returns a Conn over the other end.
func socketStdio(b *testing.B) *Conn {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	require.NoError(b, err)
	// Both ends stay blocking: the bridge's reader then sleeps in read(2)
	// for every frame instead of polling for it, as a parent that waits in
	// its event loop (Node's) does. With the parent's end non-blocking the
	// bridge polls as it does on os.Pipe's, and a call costs what it costs
	// through the plugin pipes.
	ours, theirs := os.NewFile(uintptr(fds[0]), "parent"), os.NewFile(uintptr(fds[1]), "host")
	cmd := exec.Command(hostBin, "stdio")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, theirs, os.Stderr
	require.NoError(b, cmd.Start())
	theirs.Close()
	w := os.NewFile(uintptr(mustDup(b, fds[0])), "parent-w")
	conn, err := NewConn(ours, w, ConnConfig{Executor: ToolExecutorFunc(func(_ context.Context, c protocol.ToolCall) (json.RawMessage, error) {
		return c.Input, nil
	})})
	require.NoError(b, err)
	b.Cleanup(func() {
		conn.Close(time.Second)
		_ = cmd.Wait()
	})
	return conn
}

func mustDup(b *testing.B, fd int) int {
	n, err := syscall.Dup(fd)
	require.NoError(b, err)
	syscall.CloseOnExec(n)
	return n
}

// BenchmarkSequentialCallSocket is one awaited tool call through a host
// serving on stdio over a Unix socket pair (a Node parent's transport),
// with a parent that sleeps until each frame arrives (see socketStdio).
func BenchmarkSequentialCallSocket(b *testing.B) {
	conn := socketStdio(b)
	_, err := conn.OpenSession(context.Background(), "s1", nil, nil)
	require.NoError(b, err)
	const n = 1000
	req := ExecRequest{Tools: []protocol.ToolDef{{Name: "echo"}}, Yield: time.Minute,
		Source: fmt.Sprintf(`let s = 0; for (let i = 0; i < %d; i++) s += (await tools.echo({i})).i; return s`, n)}
	for b.Loop() {
		res, err := conn.Exec(context.Background(), "s1", req)
		if err != nil || res.Status != protocol.StatusCompleted {
			b.Fatalf("exec: %v %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/call")
}
