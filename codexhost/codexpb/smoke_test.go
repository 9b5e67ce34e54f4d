package codexpb_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os/exec"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-host/codemode-host/codexhost/codexpb"
	"github.com/codemode-host/codemode-host/internal/codexbin"
	"github.com/codemode-host/codemode-host/internal/pipeconn"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// deadline bounds the whole exchange; the real host answers each call in
// milliseconds.
const deadline = 10 * time.Second

var uuid = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// startHost runs Codex's codex-code-mode-host as codex does (`--listen
// grpc+stdio://`) and returns a gRPC client speaking HTTP/2 with prior
// knowledge over its stdin and stdout, and a function that closes the
// client and returns the host's stderr and exit error.
func startHost(t *testing.T, ctx context.Context) (codexpb.CodeModeHostClient, func() (string, error)) {
	t.Helper()
	cmd := exec.CommandContext(ctx, codexbin.Host(t), "--listen", "grpc+stdio://")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())

	// The host serves one connection, the pipe pair; a second dial (a
	// reconnect) has nothing to connect to.
	var dialed atomic.Bool
	conn, err := grpc.NewClient("passthrough:///code-mode-host", // the :authority codex sends
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
			if dialed.Swap(true) {
				return nil, errors.New("the host's stdio was dialed already")
			}
			return pipeconn.New(stdout, stdin), nil
		}))
	require.NoError(t, err)
	stopped := false
	stop := func() (string, error) {
		if !stopped {
			stopped = true
			conn.Close()
			err = cmd.Wait()
		}
		return stderr.String(), err
	}
	t.Cleanup(func() { stop() })
	return codexpb.NewCodeModeHostClient(conn), stop
}

// TestRealHostOverGRPC drives the real host with the generated client:
// a session opened the way codex 0.169.0 opens it, one cell, the
// process-metrics call this build refuses, closing the session, and the
// host's exit when the connection closes.
func TestRealHostOverGRPC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	host, stop := startHost(t, ctx)

	// OpenSession is the handshake: the stream is the session's lease and
	// its first event names the session. codex sends exactly this.
	events, err := host.OpenSession(ctx, &codexpb.OpenSessionRequest{
		OutputTruncation:        codexpb.OutputTruncation_OUTPUT_TRUNCATION_SERVER,
		MaxPendingDelegateCalls: proto.Uint32(4096),
	})
	require.NoError(t, err)
	first, err := events.Recv()
	require.NoError(t, err)
	opened := first.GetOpened()
	require.NotNil(t, opened, "first event: %v", first)
	require.Regexp(t, uuid, opened.GetSessionId())
	require.Equal(t, codexpb.OutputTruncation_OUTPUT_TRUNCATION_SERVER, opened.GetOutputTruncation(), "the host echoes server mode")
	session := opened.GetSessionId()

	// One cell through Execute (a server stream: started, then one outcome);
	// the session stream reports the cell closed.
	run, err := host.Execute(ctx, &codexpb.ExecuteRequest{
		SessionId:   session,
		ExecutionId: "4f3c2b1a-0000-4000-8000-000000000001",
		ToolCallId:  "call-1",
		Source:      `text("hi"); text(6 * 7)`,
	})
	require.NoError(t, err)
	ev, err := run.Recv()
	require.NoError(t, err)
	started := ev.GetStarted()
	require.NotNil(t, started, "first execute event: %v", ev)
	require.Equal(t, "4f3c2b1a-0000-4000-8000-000000000001", started.GetExecutionId())
	require.NotEmpty(t, started.GetCellId())
	ev, err = run.Recv()
	require.NoError(t, err)
	outcome := ev.GetOutcome()
	require.NotNil(t, outcome, "second execute event: %v", ev)
	require.NotNil(t, outcome.GetCompleted(), "outcome: %v", outcome)
	require.Nil(t, outcome.GetCompleted().ErrorText, "outcome: %v", outcome)
	require.Equal(t, started.GetCellId(), outcome.GetCellId())
	var texts []string
	for _, item := range outcome.GetContentItems() {
		texts = append(texts, item.GetText().GetText())
	}
	require.Equal(t, []string{"hi", "42"}, texts)
	_, err = run.Recv()
	require.ErrorIs(t, err, io.EOF, "the execute stream ends OK after the outcome")

	closed, err := events.Recv()
	require.NoError(t, err)
	require.Equal(t, started.GetCellId(), closed.GetCellClosed().GetCellId(), "session event: %v", closed)

	// The rpc 0.169.0 added; this build does not implement it.
	_, err = host.GetProcessMetrics(ctx, &codexpb.GetProcessMetricsRequest{})
	require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	require.Equal(t, "process metrics are unsupported", status.Convert(err).Message())

	// CloseSession ends the lease stream with OK, then answers.
	_, err = host.CloseSession(ctx, &codexpb.CloseSessionRequest{SessionId: session})
	require.NoError(t, err)
	_, err = events.Recv()
	require.ErrorIs(t, err, io.EOF)
	_, err = host.CloseSession(ctx, &codexpb.CloseSessionRequest{SessionId: session})
	require.Equal(t, codes.NotFound, status.Code(err), "%v", err)
	require.Equal(t, "unknown code-mode session "+session, status.Convert(err).Message())

	// Dropping the one connection ends the host, with status 0.
	stderr, waitErr := stop()
	require.NoError(t, waitErr, "host stderr: %s", stderr)
}
