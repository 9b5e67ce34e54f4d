package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/protocol"
)

// stdioHost is `codemode-host stdio` run from the built binary, driven by
// a Go parent that reads and writes frames synchronously.
type stdioHost struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *protocol.FrameWriter
	in     *protocol.FrameReader
	stderr *testhost.Buffer
}

func startStdioHost(t *testing.T) *stdioHost {
	t.Helper()
	cmd := exec.Command(hostBin, "stdio")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	h := &stdioHost{t: t, cmd: cmd, stdin: stdin, stderr: &testhost.Buffer{},
		out: protocol.NewFrameWriter(stdin, 0), in: protocol.NewFrameReader(stdout, 0)}
	cmd.Stderr = h.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	return h
}

func (h *stdioHost) send(m protocol.Message) {
	h.t.Helper()
	require.NoError(h.t, h.out.WriteMessage(m))
	require.NoError(h.t, h.out.Flush())
}

func (h *stdioHost) next() protocol.Message {
	h.t.Helper()
	m, err := h.in.ReadMessage()
	require.NoError(h.t, err, "stderr: %s", h.stderr.String())
	return m
}

func recv[T protocol.Message](h *stdioHost) T {
	h.t.Helper()
	m := h.next()
	v, ok := m.(T)
	require.True(h.t, ok, "got %T %+v", m, m)
	return v
}

func (h *stdioHost) open() {
	h.t.Helper()
	h.send(&protocol.Hello{ID: 1, Versions: []uint32{1}, Client: "stdio_test"})
	ok := recv[*protocol.HelloOK](h)
	assert.Regexp(h.t, `^10\.9\.`, ok.V8Version)
	h.send(&protocol.OpenSession{ID: 2, Session: "s1"})
	recv[*protocol.SessionOpened](h)
}

var echoDef = protocol.ToolDef{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}

func TestStdioRunsCellWithToolCall(t *testing.T) {
	h := startStdioHost(t)
	h.open()
	h.send(&protocol.Exec{ID: 3, Session: "s1", Tools: []protocol.ToolDef{echoDef},
		Source: `const r = await tools.echo({n: 41}); console.log("n is", r.n); return r.n + 1`})
	started := recv[*protocol.ExecStarted](h)
	call := recv[*protocol.ToolCallRequest](h)
	assert.Equal(t, started.Cell, call.CellID)
	h.send(&protocol.ToolResult{ID: call.ID, Value: call.Input})
	res := recv[*protocol.CellResult](h)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	assert.Equal(t, []protocol.Item{{Type: "text", Text: "n is 41", Level: "log"}, {Type: "text", Text: "42"}}, res.Items)
	recv[*protocol.CellClosed](h)

	h.stdin.Close()
	_, err := h.in.ReadFrame()
	assert.ErrorIs(t, err, io.EOF, "nothing but frames on stdout")
	require.NoError(t, h.cmd.Wait(), "exit status 0 after end of input")
	for _, line := range strings.Split(strings.TrimSpace(h.stderr.String()), "\n") {
		var v map[string]any
		assert.NoError(t, json.Unmarshal([]byte(line), &v), "stderr line is not JSON: %q", line)
		assert.Contains(t, v, "@level", line)
	}
}

func TestStdioRejectedHandshakeExitsTwo(t *testing.T) {
	h := startStdioHost(t)
	h.send(&protocol.Hello{ID: 1, Versions: []uint32{99}})
	rej := recv[*protocol.HelloRejected](h)
	assert.Equal(t, protocol.RejectNoCommonVersion, rej.Reason)
	err := h.cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
}

func TestStdioShutdownEndsOutputAndExitsZero(t *testing.T) {
	h := startStdioHost(t)
	h.open()
	h.send(&protocol.Shutdown{})
	_, err := h.in.ReadFrame()
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, h.cmd.Wait())
}

// TestStdioMovesStrayWritesToStderr checks the descriptor trick: in a
// serving host fd 1 is its stderr, so stray writes cannot reach the frames.
func TestStdioMovesStrayWritesToStderr(t *testing.T) {
	h := startStdioHost(t)
	h.open() // the redirect happens before the handshake is answered
	pid := h.cmd.Process.Pid
	fd1, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", pid))
	if os.IsNotExist(err) {
		t.Skip("no /proc on this system")
	}
	require.NoError(t, err)
	fd2, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", pid))
	require.NoError(t, err)
	assert.Equal(t, fd2, fd1, "fd 1 must point at stderr")
}
