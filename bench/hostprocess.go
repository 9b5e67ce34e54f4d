package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
)

// hostSession is the session Run uses.
const hostSession = "bench"

// startTimeout bounds a host's launch and handshake.
const startTimeout = 10 * time.Second

// StdioHost runs cells in a `codemode-host stdio` child (frames on its
// stdin and stdout, the transport of parents in any language), spoken to by
// a bridge.Conn that serves the echo tool. Next to BridgeHost, which uses
// the same client over go-plugin's fd 3/4 pipes, it isolates what the
// host's stdio mode costs. Safe from any goroutine.
type StdioHost struct {
	cmd    *exec.Cmd
	conn   *bridge.Conn
	stderr *tailBuffer
}

// StartStdio launches `bin stdio`, shakes hands and opens the session Run
// uses.
func StartStdio(ctx context.Context, bin string) (*StdioHost, error) {
	cmd := exec.Command(bin, "stdio")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	h := &StdioHost{cmd: cmd, stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = h.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting %s: %w (run `make build` first)", bin, err)
	}
	h.conn, err = bridge.NewConn(stdout, stdin, bridge.ConnConfig{Executor: echoExecutor,
		Capabilities: []string{protocol.CapStore}, Client: "codemode-bench", HandshakeTimeout: startTimeout})
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("bench: handshake with %s stdio: %w; stderr: %s", bin, err, h.stderr)
	}
	if err := h.OpenSession(ctx, hostSession); err != nil {
		_ = h.Close()
		return nil, err
	}
	return h, nil
}

// echoExecutor serves echo to a bridge.
var echoExecutor = bridge.ToolExecutorFunc(func(_ context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	return echo(call)
})

// Name implements System.
func (*StdioHost) Name() string { return "host via stdio" }

// Run implements System: it runs source in the session StartStdio opened.
func (h *StdioHost) Run(ctx context.Context, source string) (string, error) {
	res, err := h.Exec(ctx, hostSession, source)
	if err != nil {
		return "", err
	}
	return returnValue(res.Status, res.Error, res.Items)
}

// OpenSession implements hostSystem.
func (h *StdioHost) OpenSession(ctx context.Context, id string) error {
	if _, err := h.conn.OpenSession(ctx, id, nil, nil); err != nil {
		return fmt.Errorf("bench: opening session %s: %w", id, err)
	}
	return nil
}

// Exec implements hostSystem.
func (h *StdioHost) Exec(ctx context.Context, session, source string) (*protocol.CellResult, error) {
	return execToEnd(ctx, session, source, h.conn.Exec, h.conn.Wait)
}

// RSS implements hostSystem.
func (h *StdioHost) RSS() (uint64, error) { return processRSS(h.cmd.Process.Pid) }

// Close implements System: it shuts the host down and waits up to 5 s for
// it to exit, then kills it.
func (h *StdioHost) Close() error {
	cerr := h.conn.Close(time.Second)
	exited := make(chan error, 1)
	go func() { exited <- h.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("bench: host exited: %w; stderr: %s", err, h.stderr)
		}
		return cerr
	case <-time.After(5 * time.Second):
		_ = h.cmd.Process.Kill()
		<-exited
		return errors.New("bench: the host did not exit within 5s of shutdown; killed it")
	}
}

// execToEnd runs source in session with exec and waits while the cell
// yields. exec and wait have the shapes of bridge.Conn's methods.
func execToEnd(ctx context.Context, session, source string,
	exec func(ctx context.Context, session string, req bridge.ExecRequest) (*protocol.CellResult, error),
	wait func(ctx context.Context, session, cell string, yield time.Duration) (*protocol.CellResult, error),
) (*protocol.CellResult, error) {
	res, err := exec(ctx, session, bridge.ExecRequest{Source: source, Tools: []protocol.ToolDef{echoTool}})
	for err == nil && res.Status == protocol.StatusYielded {
		res, err = wait(ctx, session, res.Cell, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("bench: exec: %w", err)
	}
	return res, nil
}

// processRSS reads VmRSS of pid from /proc (Linux only).
func processRSS(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 && string(f[1]) == "kB" {
				kb, err := strconv.ParseUint(string(f[0]), 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("bench: no VmRSS in /proc/%d/status", pid)
}

// tailBuffer keeps the last max bytes written to it. Safe from any
// goroutine.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.b))
}
