package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/protocol"
)

// hostBin is the codemode-host binary built once for the suite: every case
// runs the real binary, as a parent would.
var hostBin string

func TestMain(m *testing.M) {
	os.Exit(testhost.Run(func() int {
		hostBin, _ = testhost.Path()
		return m.Run()
	}))
}

// stuckAfter is the host's stuck deadline in the suite
// (CODEMODE_HOST_STUCK_AFTER), short so that stuck cases end quickly.
const stuckAfter = "1s"

// replyWithin bounds every wait for the host: no case may take longer, and
// a host that says nothing for this long has hung its parent.
const replyWithin = 30 * time.Second

// hostEnv is the environment of every host the suite starts.
func hostEnv() []string {
	return append(os.Environ(), "CODEMODE_HOST_STUCK_AFTER="+stuckAfter)
}

// driver runs cells on a host through one of its three front doors.
type driver interface {
	// exec runs one cell in the driver's session and returns its final
	// result (after any yields) and the notify texts it sent.
	exec(t *testing.T, c cell) (*protocol.CellResult, []string)
	// restart kills the host; the next exec must run on a new one with the
	// session (and its store) restored.
	restart(t *testing.T)
	// sessions reports whether cells share a session (false for run).
	sessions() bool
	// newSession makes the following cells run in a fresh session, so
	// that no case's store affects another's.
	newSession(t *testing.T, id string)
}

// cell is one exec.
type cell struct {
	source string
	lang   protocol.Language
	tools  []string
	limits *protocol.Limits
}

func toolDefs(names []string) []protocol.ToolDef {
	defs := make([]protocol.ToolDef, len(names))
	for i, n := range names {
		defs[i] = protocol.ToolDef{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)}
	}
	return defs
}

// ---- run --json ----

type runDriver struct{ dir string }

func (d *runDriver) sessions() bool                     { return false }
func (d *runDriver) restart(t *testing.T)               {}
func (d *runDriver) newSession(t *testing.T, id string) {}

func (d *runDriver) exec(t *testing.T, c cell) (*protocol.CellResult, []string) {
	t.Helper()
	ext := ".js"
	if c.lang == protocol.LangTS {
		ext = ".ts"
	}
	script := filepath.Join(d.dir, strconv.FormatInt(time.Now().UnixNano(), 36)+ext)
	require.NoError(t, os.WriteFile(script, []byte(c.source), 0o600))
	args := []string{"run", script, "--json"}
	if len(c.tools) > 0 {
		var fx struct {
			Tools []map[string]any `json:"tools"`
		}
		for _, n := range c.tools {
			fx.Tools = append(fx.Tools, map[string]any{"name": n, "input_schema": map[string]any{"type": "object"}, "result": map[string]any{"tool": n}})
		}
		b, err := json.Marshal(fx)
		require.NoError(t, err)
		file := script + ".tools.json"
		require.NoError(t, os.WriteFile(file, b, 0o600))
		args = append(args, "--tools", file)
	}
	if c.limits != nil && c.limits.WallTimeMS != 0 {
		args = append(args, "--timeout", (time.Duration(c.limits.WallTimeMS) * time.Millisecond).String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), replyWithin)
	defer cancel()
	cmd := exec.CommandContext(ctx, hostBin, args...)
	cmd.Env = hostEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "run did not end within %s: it hangs its user; stderr: %s", replyWithin, tail(stderr.String()))
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	var res protocol.CellResult
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res), "run --json printed no result (exit %v); stderr: %s", err, tail(stderr.String()))
	var notes []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if s, ok := strings.CutPrefix(line, "[notify] "); ok {
			notes = append(notes, s)
		}
	}
	return &res, notes
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// ---- the stdio protocol, through a minimal frame client ----

// stdioDriver is a parent of its own over `codemode-host stdio`: it encodes
// with protocol.Encode, decodes every frame the host sends with
// protocol.Decode (a frame that fails fails the test), answers tool calls
// with their input, mirrors the session store, and waits at most
// replyWithin for any frame.
type stdioDriver struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	frames  chan frameOrErr
	stderr  *testhost.Buffer
	nextID  uint64
	session string
	store   map[string]json.RawMessage // the session's store as its results committed it
}

type frameOrErr struct {
	m   protocol.Message
	err error
}

func newStdioDriver(t *testing.T) *stdioDriver {
	d := &stdioDriver{t: t, session: "s0", store: map[string]json.RawMessage{}}
	d.start(t)
	t.Cleanup(d.stop)
	return d
}

func (d *stdioDriver) sessions() bool { return true }

func (d *stdioDriver) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(hostBin, "stdio")
	cmd.Env = hostEnv()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	d.stderr = &testhost.Buffer{}
	cmd.Stderr = d.stderr
	require.NoError(t, cmd.Start())
	d.cmd, d.stdin = cmd, stdin
	frames := make(chan frameOrErr, 1024)
	d.frames = frames
	go func() {
		defer close(frames)
		fr := protocol.NewFrameReader(stdout, 0)
		for {
			body, err := fr.ReadFrame()
			if err != nil {
				frames <- frameOrErr{err: err}
				return
			}
			m, err := protocol.Decode(body)
			if err != nil {
				err = fmt.Errorf("the host sent a frame protocol.Decode refuses: %w", err)
			}
			frames <- frameOrErr{m: m, err: err}
		}
	}()
	d.send(&protocol.Hello{ID: d.id(), Versions: []uint32{protocol.Version1}, Capabilities: []string{protocol.CapStore, protocol.CapTypeScript}, Client: "hostile_test"})
	_, ok := d.recv(t).(*protocol.HelloOK)
	require.True(t, ok, "no hello.ok")
	d.open(t)
}

// open opens d.session with the mirrored store.
func (d *stdioDriver) open(t *testing.T) {
	t.Helper()
	open := &protocol.OpenSession{ID: d.id(), Session: d.session}
	for k, v := range d.store {
		open.Store = append(open.Store, protocol.StoreEntry{Key: k, Value: v})
	}
	sortStore(open.Store)
	d.send(open)
	for {
		switch m := d.recv(t).(type) {
		case *protocol.SessionOpened:
			return
		case *protocol.CellClosed, *protocol.ToolCancelled, *protocol.Notify:
			continue // the end of the previous case's cell
		default:
			t.Fatalf("session.open with the mirrored store (%d entries) was answered %T %+v; a session must always be restorable", len(open.Store), m, m)
		}
	}
}

func (d *stdioDriver) newSession(t *testing.T, id string) {
	t.Helper()
	d.session, d.store = id, map[string]json.RawMessage{}
	if d.cmd != nil {
		d.open(t)
	}
}

func (d *stdioDriver) stop() {
	if d.cmd == nil {
		return
	}
	d.stdin.Close()
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
	d.cmd = nil
}

func (d *stdioDriver) restart(t *testing.T) {
	t.Helper()
	if d.cmd != nil {
		_ = d.cmd.Process.Kill()
		_ = d.cmd.Wait()
		d.cmd = nil
	}
	d.start(t)
}

func (d *stdioDriver) id() uint64 { d.nextID++; return d.nextID }

func (d *stdioDriver) send(m protocol.Message) {
	d.t.Helper()
	frame, err := protocol.AppendFrame(nil, m)
	require.NoError(d.t, err)
	_, err = d.stdin.Write(frame)
	require.NoError(d.t, err, "writing %s; stderr: %s", m.Type(), tail(d.stderr.String()))
}

// recv returns the next frame, failing the test on a frame Decode refuses,
// on the end of the host's output and after replyWithin without a frame.
func (d *stdioDriver) recv(t *testing.T) protocol.Message {
	t.Helper()
	m, err := d.recvOrEOF(t)
	require.NoError(t, err, "stderr: %s", tail(d.stderr.String()))
	return m
}

func (d *stdioDriver) recvOrEOF(t *testing.T) (protocol.Message, error) {
	t.Helper()
	select {
	case f, ok := <-d.frames:
		if !ok {
			return nil, io.EOF
		}
		if f.err != nil && !errors.Is(f.err, io.EOF) {
			t.Fatalf("%v", f.err)
		}
		return f.m, f.err
	case <-time.After(replyWithin):
		t.Fatalf("the host sent nothing for %s: the parent would hang; stderr: %s", replyWithin, tail(d.stderr.String()))
	}
	return nil, nil
}

func (d *stdioDriver) exec(t *testing.T, c cell) (*protocol.CellResult, []string) {
	t.Helper()
	if d.cmd == nil {
		d.start(t)
	}
	id := d.id()
	d.send(&protocol.Exec{ID: id, Session: d.session, Source: c.source, Language: c.lang, Tools: toolDefs(c.tools),
		Limits: c.limits, YieldMS: uint64(replyWithin / time.Millisecond)})
	var notes []string
	for {
		m, err := d.recvOrEOF(t)
		if err != nil {
			t.Fatalf("the host's output ended before the cell's result: %v; stderr: %s", err, tail(d.stderr.String()))
		}
		switch m := m.(type) {
		case *protocol.ToolCallRequest:
			d.send(&protocol.ToolResult{ID: m.ID, Value: m.Input})
		case *protocol.Notify:
			notes = append(notes, m.Text)
		case *protocol.ErrorReply:
			require.NotEqual(t, id, m.ID, "exec refused: %+v", m)
		case *protocol.CellResult:
			if m.ID != id {
				continue
			}
			if m.Status == protocol.StatusYielded {
				id = d.id()
				d.send(&protocol.Wait{ID: id, Session: m.Session, Cell: m.Cell, YieldMS: uint64(replyWithin / time.Millisecond)})
				continue
			}
			for _, e := range m.Store {
				if len(e.Value) == 0 {
					delete(d.store, e.Key)
				} else {
					d.store[e.Key] = e.Value
				}
			}
			if m.Error != nil && m.Error.Name == protocol.ErrorNameStuck {
				// The host exits after reporting a stuck cell: a parent
				// treats it as dead and starts a new one.
				_ = d.cmd.Process.Kill()
				_ = d.cmd.Wait()
				d.cmd = nil
			}
			return m, notes
		}
	}
}

func sortStore(s []protocol.StoreEntry) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Key < s[j-1].Key; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// peakRSS is the host's peak resident set (VmHWM), in bytes; 0 when
// unknown.
func (d *stdioDriver) peakRSS() uint64 {
	if d.cmd == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// ---- the bridge ----

type bridgeDriver struct {
	client  *bridge.Client
	session *bridge.Session
	mu      sync.Mutex
	notes   []string
}

func newBridgeDriver(t *testing.T) *bridgeDriver {
	ctx, cancel := context.WithTimeout(context.Background(), replyWithin)
	defer cancel()
	d := &bridgeDriver{}
	client, err := bridge.Start(ctx, bridge.Config{HostPath: hostBin, Env: []string{"CODEMODE_HOST_STUCK_AFTER=" + stuckAfter},
		Capabilities: []string{protocol.CapStreamOutput, protocol.CapStore, protocol.CapTypeScript},
		Executor: bridge.ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
			return call.Input, nil
		})})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close(time.Second) })
	d.client = client
	d.newSession(t, "s0")
	return d
}

func (d *bridgeDriver) sessions() bool { return true }

func (d *bridgeDriver) newSession(t *testing.T, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), replyWithin)
	defer cancel()
	if d.session != nil {
		_ = d.session.Close(ctx)
	}
	var err error
	d.session, err = d.client.OpenSession(ctx, id, nil)
	require.NoError(t, err)
}

// restart kills the host and waits until the bridge has seen it go: the
// next call starts a new host and restores the session from the mirror.
func (d *bridgeDriver) restart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), replyWithin)
	defer cancel()
	conn, err := d.client.Conn(ctx)
	require.NoError(t, err)
	p, err := os.FindProcess(d.client.Pid())
	require.NoError(t, err)
	require.NoError(t, p.Kill())
	select {
	case <-conn.Done():
	case <-ctx.Done():
		t.Fatalf("the bridge did not notice its host was killed within %s", replyWithin)
	}
}

func (d *bridgeDriver) exec(t *testing.T, c cell) (*protocol.CellResult, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), replyWithin)
	defer cancel()
	d.mu.Lock()
	d.notes = nil
	d.mu.Unlock()
	req := bridge.ExecRequest{Source: c.source, Language: c.lang, Tools: toolDefs(c.tools), Limits: c.limits, Yield: replyWithin,
		OnEvent: func(e bridge.Event) {
			if e.Kind == bridge.EventNotify {
				d.mu.Lock()
				d.notes = append(d.notes, e.Text)
				d.mu.Unlock()
			}
		}}
	res, err := d.session.Exec(ctx, req)
	for err == nil && res.Status == protocol.StatusYielded {
		res, err = d.session.Wait(ctx, res.Cell, replyWithin)
	}
	require.NoError(t, ctx.Err(), "Session.Exec did not return within its ctx (%s): the parent hangs", replyWithin)
	require.NoError(t, err)
	d.mu.Lock()
	defer d.mu.Unlock()
	return res, d.notes
}
