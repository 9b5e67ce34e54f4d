package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/codemode-host/codemode-host/launch"
	"github.com/codemode-host/codemode-host/protocol"
)

// Config configures Start. Executor is required; every other zero field
// takes the default its doc names.
type Config struct {
	// HostPath is the codemode-host binary. Default: "codemode-host" found
	// in PATH.
	HostPath string
	// HostArgs are extra arguments for the host. Default none.
	HostArgs []string
	// Env is added to the host's environment (which otherwise is this
	// process's). Default none.
	Env []string
	// HostLimits configure the host's own limits (sessions and cells can
	// only tighten them). Default: protocol.DefaultLimits.
	HostLimits *protocol.Limits
	// Executor runs the scripts' tool calls. Required.
	Executor ToolExecutor
	// Capabilities are asked for in hello. Default: stream_output and
	// store (the bridge mirrors each session's store to restore it when a
	// host is replaced).
	Capabilities []string
	// StartTimeout bounds launching the host and the handshake, and the
	// re-opening of each session on a new host. Default 10s.
	StartTimeout time.Duration
	// TerminateGrace is how long an Exec whose ctx ended waits for the
	// host after telling it to stop the cell; then the host is killed and
	// Exec fails with a *HostUnresponsiveError (see ConnConfig). Default
	// DefaultTerminateGrace (10s).
	TerminateGrace time.Duration
	// StderrLines is how many of the host's last stderr lines a
	// HostDiedError keeps. Default 20.
	StderrLines int
	// Logger receives the bridge's logs and, through go-plugin, the host's
	// own log lines at their level. Default: discard.
	Logger hclog.Logger
}

// Client runs a codemode-host process and talks to it. When the host
// dies, everything pending fails at once with a *HostDiedError and the next
// call starts a new host, re-opening every session (with the store mirrored
// from earlier results). Its methods are safe from any goroutine.
type Client struct {
	cfg Config
	log hclog.Logger

	mu     sync.Mutex
	host   *hostProcess // nil before the first start and after Close
	closed bool
	gen    int            // hosts launched so far; the current one is number gen
	deaths map[int]string // how host number n ended, once it died

	smu      sync.Mutex // guards sessions; never held while waiting for the host
	sessions map[string]*Session
}

// hostProcess is one launched host.
type hostProcess struct {
	gen    int // 1 for the first host, then 2, 3, ...
	plugin *plugin.Client
	cmd    *exec.Cmd
	conn   *Conn
	stderr *tailWriter
}

// Start launches a host through go-plugin (frames on a pipe pair passed as
// fds 3 and 4) and shakes hands with it. ctx bounds the launch only.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Executor == nil {
		return nil, errors.New("bridge: Config.Executor is required: pass the ToolExecutor that runs your tools")
	}
	if cfg.HostPath == "" {
		p, err := exec.LookPath("codemode-host")
		if err != nil {
			return nil, fmt.Errorf("bridge: no Config.HostPath and no codemode-host in PATH: %w", err)
		}
		cfg.HostPath = p
	}
	if cfg.Capabilities == nil {
		cfg.Capabilities = []string{protocol.CapStreamOutput, protocol.CapStore}
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.StderrLines == 0 {
		cfg.StderrLines = 20
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	c := &Client{cfg: cfg, log: cfg.Logger, sessions: map[string]*Session{}, deaths: map[int]string{}}
	if _, err := c.conn(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// conn returns the live connection, starting a new host (and re-opening
// the sessions) when there is none or the last one died.
func (c *Client) conn(ctx context.Context) (*Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.host != nil {
		if c.host.conn.Err() == nil {
			return c.host.conn, nil
		}
		old := c.host
		c.host = nil
		c.deaths[old.gen] = deathSummary(old.conn.Err())
		go old.plugin.Kill()
	}
	h, err := c.launch(ctx, c.gen+1)
	if err != nil {
		return nil, err
	}
	if err := c.restore(ctx, h); err != nil {
		h.stop(0)
		return nil, err
	}
	c.host = h
	c.gen = h.gen
	return h.conn, nil
}

// restore re-opens every session on a new host with its mirrored store.
// A session the host refuses (or that cannot be sent) is lost alone: its
// calls fail with a *SessionLostError and the others keep working. The
// new host's death, or a session.open it does not answer within
// StartTimeout, fails the restore instead and loses no session (the next
// call tries again with another host). The caller's
// ctx ending does not cut it short: the sessions belong to every caller.
func (c *Client) restore(ctx context.Context, h *hostProcess) error {
	c.smu.Lock()
	sessions := slices.SortedFunc(maps.Values(c.sessions), func(a, b *Session) int { return strings.Compare(a.id, b.id) })
	c.smu.Unlock()
	ctx = context.WithoutCancel(ctx)
	for _, s := range sessions {
		octx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
		_, err := h.conn.OpenSession(octx, s.id, s.limits, s.storeEntries())
		cancel()
		if err == nil {
			continue
		}
		if h.conn.Err() != nil {
			return fmt.Errorf("bridge: re-opening session %q on a new host: %w", s.id, err)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			// Not answered: the new host is at fault, not the session. Give
			// this host up (the caller stops it) and lose no session; the
			// next call starts another host.
			return fmt.Errorf("bridge: the new host did not answer session.open of %q within %s; it was given up: %w", s.id, c.cfg.StartTimeout, err)
		}
		c.log.Warn("session not restored on the new host", "session", s.id, "error", err)
		s.lost.Store(&SessionLostError{Session: s.id, Err: err})
		c.smu.Lock()
		if c.sessions[s.id] == s {
			delete(c.sessions, s.id)
		}
		c.smu.Unlock()
	}
	return nil
}

// mirrorStore keeps the store writes a cell result reports in its
// session's mirror. Reader goroutine of the host's Conn.
func (c *Client) mirrorStore(session string, writes []protocol.StoreEntry) {
	c.smu.Lock()
	s := c.sessions[session]
	c.smu.Unlock()
	if s != nil {
		s.mirror(writes)
	}
}

// StuckErrorName is the error name of a cell result whose cell was
// stopped but stuck inside V8: its host exits right after sending it.
const StuckErrorName = protocol.ErrorNameStuck

// stuckExitWait is how long the bridge waits for a host that reported a
// stuck cell to exit before it kills it.
const stuckExitWait = 3 * time.Second

// retireIfStuck waits, after a result that reports a stuck cell, until
// that cell's host is gone (killing it if it lingers), so the next call
// starts a new host instead of failing on the dying one.
func (c *Client) retireIfStuck(conn *Conn, res *protocol.CellResult) {
	if res == nil || res.Error == nil || res.Error.Name != StuckErrorName {
		return
	}
	select {
	case <-conn.Done():
		return
	case <-time.After(stuckExitWait):
	}
	c.mu.Lock()
	var h *hostProcess
	if c.host != nil && c.host.conn == conn {
		h = c.host
	}
	c.mu.Unlock()
	if h != nil {
		h.kill()
	}
	select {
	case <-conn.Done():
	case <-time.After(stuckExitWait):
		conn.abandon(errors.New("bridge: the host reported a stuck cell and did not exit when killed"))
	}
}

// deathSummary is how a dead host ended, for CellLostError.
func deathSummary(err error) string {
	var died *HostDiedError
	if errors.As(err, &died) && died.Exit != "" {
		return died.Exit
	}
	return "connection lost"
}

// cellGen returns the number of the host a cell id came from: "r<n>."
// prefixes the ids of host n > 1 (see launch.CellPrefixEnv).
func cellGen(cell string) int {
	rest, ok := strings.CutPrefix(cell, "r")
	if !ok {
		return 1
	}
	num, _, ok := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 2 {
		return 1
	}
	return n
}

// checkCell refuses a cell id of a host that died and was replaced.
// Caller has the live connection (so a restart already happened).
func (c *Client) checkCell(session, cell string) error {
	g := cellGen(cell)
	c.mu.Lock()
	defer c.mu.Unlock()
	if g >= c.gen {
		return nil
	}
	exit, ok := c.deaths[g]
	if !ok {
		exit = "replaced"
	}
	return &CellLostError{Session: session, Cell: cell, Exit: exit}
}

// launch starts one host process and connects to it.
func (c *Client) launch(ctx context.Context, gen int) (*hostProcess, error) {
	toHostR, toHostW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("bridge: creating the frame pipes: %w", err)
	}
	fromHostR, fromHostW, err := os.Pipe()
	if err != nil {
		toHostR.Close()
		toHostW.Close()
		return nil, fmt.Errorf("bridge: creating the frame pipes: %w", err)
	}
	cmd := exec.Command(c.cfg.HostPath, c.cfg.HostArgs...)
	cmd.Env = append(cmd.Env, c.cfg.Env...)
	if c.cfg.HostLimits != nil {
		b, _ := json.Marshal(c.cfg.HostLimits)
		cmd.Env = append(cmd.Env, launch.LimitsEnv+"="+string(b))
	}
	if gen > 1 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=r%d.", launch.CellPrefixEnv, gen))
	}
	cmd.ExtraFiles = []*os.File{toHostR, fromHostW} // fd 3, fd 4 in the host
	setParentDeathSignal(cmd)
	h := &hostProcess{gen: gen, cmd: cmd, stderr: newTailWriter(c.cfg.StderrLines)}
	h.plugin = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  launch.Handshake,
		VersionedPlugins: launch.PluginSets(""),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolNetRPC},
		StartTimeout:     c.cfg.StartTimeout,
		Stderr:           h.stderr,
		Logger:           c.log.Named("host"),
	})
	hostVersion, err := dispenseVersion(h.plugin) // starts the process
	toHostR.Close()                               // the host holds its own copies now
	fromHostW.Close()
	if err != nil {
		h.plugin.Kill()
		toHostW.Close()
		fromHostR.Close()
		return nil, fmt.Errorf("bridge: starting the host %s: %w%s", c.cfg.HostPath, err, h.stderr.suffix())
	}
	connected := make(chan struct{})
	defer close(connected)
	go func() { // ctx bounds the handshake too
		select {
		case <-ctx.Done():
			fromHostR.Close()
		case <-connected:
		}
	}()
	h.conn, err = NewConn(fromHostR, toHostW, ConnConfig{
		Executor:         c.cfg.Executor,
		Capabilities:     c.cfg.Capabilities,
		HandshakeTimeout: c.cfg.StartTimeout,
		TerminateGrace:   c.cfg.TerminateGrace,
		Logger:           c.log,
		onDeath:          h.deathError,
		onAbandon:        h.kill,
		onStore:          c.mirrorStore,
	})
	if err != nil {
		h.plugin.Kill()
		toHostW.Close()
		fromHostR.Close()
		return nil, fmt.Errorf("%w%s", err, h.stderr.suffix())
	}
	c.log.Debug("host started", "pid", cmd.Process.Pid, "protocol", h.plugin.NegotiatedVersion(),
		"host_version", hostVersion, "v8", h.conn.Hello().V8Version)
	return h, nil
}

// dispenseVersion starts the host through go-plugin (handshake line,
// version negotiation, RPC connection) and asks its plugin for the host
// version, which proves the control channel works.
func dispenseVersion(pc *plugin.Client) (string, error) {
	rpc, err := pc.Client()
	if err != nil {
		return "", err
	}
	raw, err := rpc.Dispense(launch.PluginName)
	if err != nil {
		return "", err
	}
	info, ok := raw.(*launch.HostInfoClient)
	if !ok {
		return "", fmt.Errorf("plugin %q is a %T, not the codemode-host plugin", launch.PluginName, raw)
	}
	return info.Version()
}

// deathError describes the host's end: it waits briefly for the process
// to exit so the error can say how.
func (h *hostProcess) deathError(readErr error) error {
	deadline := time.Now().Add(2 * time.Second)
	for !h.plugin.Exited() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cause := h.stderr.cause()
	e := &HostDiedError{Err: readErr, Stderr: h.stderr.lines(), Cause: cause, Explanation: explainCause(cause)}
	if h.plugin.Exited() && h.cmd.ProcessState != nil {
		e.Exit = h.cmd.ProcessState.String()
	}
	return e
}

// kill ends the host process at once (SIGKILL); go-plugin reaps it. Any
// goroutine.
func (h *hostProcess) kill() {
	if h.cmd.Process != nil {
		_ = h.cmd.Process.Kill()
	}
}

// stop shuts the host down: shutdown frame, grace, then go-plugin's Kill.
func (h *hostProcess) stop(grace time.Duration) {
	_ = h.conn.Close(grace)
	h.plugin.Kill()
}

// Conn returns the current connection to the host, starting one if the
// last host died.
func (c *Client) Conn(ctx context.Context) (*Conn, error) { return c.conn(ctx) }

// Pid returns the host's process id, or 0 when no host runs.
func (c *Client) Pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.host == nil || c.host.cmd.Process == nil {
		return 0
	}
	return c.host.cmd.Process.Pid
}

// Close shuts the host down (running cells get grace to finish) and
// releases everything. Later calls return ErrClosed.
func (c *Client) Close(grace time.Duration) error {
	c.mu.Lock()
	h := c.host
	c.host = nil
	c.closed = true
	c.mu.Unlock()
	if h != nil {
		h.stop(grace)
	}
	return nil
}

// Session is a session on the host, kept across host restarts. Its methods
// are safe from any goroutine.
type Session struct {
	c      *Client
	id     string
	limits *protocol.Limits

	lost atomic.Pointer[SessionLostError] // set when a new host refused to restore it

	mu    sync.Mutex
	store map[string]json.RawMessage // mirrored from cell results
}

// live returns the connection for a call of s: the Client's (starting a
// new host if needed), or s's *SessionLostError once a new host could
// not restore it.
func (s *Session) live(ctx context.Context) (*Conn, error) {
	if e := s.lost.Load(); e != nil {
		return nil, e
	}
	conn, err := s.c.conn(ctx)
	if err != nil {
		return nil, err
	}
	if e := s.lost.Load(); e != nil {
		return nil, e
	}
	return conn, nil
}

// OpenSession opens a session; limits (optional) can only tighten the
// host's.
func (c *Client) OpenSession(ctx context.Context, id string, limits *protocol.Limits) (*Session, error) {
	conn, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.OpenSession(ctx, id, limits, nil); err != nil {
		return nil, err
	}
	s := &Session{c: c, id: id, limits: limits, store: map[string]json.RawMessage{}}
	c.smu.Lock()
	c.sessions[id] = s
	c.smu.Unlock()
	return s, nil
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Exec runs a cell; see Conn.Exec. A host that dies meanwhile fails it
// with a *HostDiedError; the next call starts a new host. A session a new
// host could not restore fails with a *SessionLostError.
//
// The store writes of every result of the session's cells are mirrored
// (from Exec, Wait, Terminate, or a result whose caller stopped waiting),
// and a new host gets them when it re-opens the session.
func (s *Session) Exec(ctx context.Context, req ExecRequest) (*protocol.CellResult, error) {
	conn, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	res, err := conn.Exec(ctx, s.id, req)
	if err == nil {
		s.c.retireIfStuck(conn, res)
	}
	return res, err
}

// Wait waits for a yielded cell; see Conn.Wait. A cell of a host that
// died and was replaced is refused with a *CellLostError.
func (s *Session) Wait(ctx context.Context, cell string, yield time.Duration) (*protocol.CellResult, error) {
	return s.WaitFor(ctx, WaitRequest{Cell: cell, Yield: yield})
}

// WaitFor is Wait with every option of a wait request (a quiet wait, say).
func (s *Session) WaitFor(ctx context.Context, w WaitRequest) (*protocol.CellResult, error) {
	conn, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.c.checkCell(s.id, w.Cell); err != nil {
		return nil, err
	}
	res, err := conn.WaitFor(ctx, s.id, w)
	if err == nil {
		s.c.retireIfStuck(conn, res)
	}
	return res, err
}

// Terminate stops a cell; see Conn.Terminate. A cell of a host that died
// and was replaced is refused with a *CellLostError.
func (s *Session) Terminate(ctx context.Context, cell string) (*protocol.CellResult, error) {
	conn, err := s.live(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.c.checkCell(s.id, cell); err != nil {
		return nil, err
	}
	res, err := conn.Terminate(ctx, s.id, cell)
	if err == nil {
		s.c.retireIfStuck(conn, res)
	}
	return res, err
}

// Close closes the session on the host (terminating its cells) and
// forgets it. A session whose host died is already gone: Close then
// starts no new host.
func (s *Session) Close(ctx context.Context) error {
	s.c.smu.Lock()
	if s.c.sessions[s.id] == s {
		delete(s.c.sessions, s.id)
	}
	s.c.smu.Unlock()
	if s.lost.Load() != nil {
		return nil // not on the host
	}
	s.c.mu.Lock()
	var conn *Conn
	if s.c.host != nil && s.c.host.conn.Err() == nil {
		conn = s.c.host.conn
	}
	s.c.mu.Unlock()
	if conn == nil {
		return nil
	}
	err := conn.CloseSession(ctx, s.id)
	if errors.Is(err, ErrHostDied) || errors.Is(err, &protocol.ProtocolError{Code: protocol.ErrCodeUnknownSession}) {
		return nil
	}
	return err
}

// mirror keeps the store writes a result reports: a value replaces the
// key's, an absent value deletes the key.
func (s *Session) mirror(writes []protocol.StoreEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range writes {
		if len(e.Value) == 0 {
			delete(s.store, e.Key)
		} else {
			s.store[e.Key] = e.Value
		}
	}
}

// storeEntries returns the mirrored store sorted by key.
func (s *Session) storeEntries() []protocol.StoreEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []protocol.StoreEntry
	for _, k := range slices.Sorted(maps.Keys(s.store)) {
		out = append(out, protocol.StoreEntry{Key: k, Value: s.store[k]})
	}
	return out
}

// tailWriter keeps the last lines written to it, and the first line that
// says why a crashing process dies. Safe from any goroutine.
type tailWriter struct {
	mu      sync.Mutex
	max     int
	partial []byte
	tail    []string
	fatal   string
	generic bool // fatal is V8's "# Fatal error in , line 0": a later "# Fatal ..." line says more
}

// genericFatalPrefix starts V8's fatal line that names no cause; the next
// "# Fatal " line ("# Fatal JavaScript invalid size error 134217738") does.
const genericFatalPrefix = "# Fatal error in "

// fatalPrefixes start the stderr lines that say why a process crashed:
// V8's fatal errors, Go's panics and fatal errors, and signals.
var fatalPrefixes = []string{"# Fatal ", "# Check failed", "panic: ", "fatal error: ", "SIGSEGV", "SIGABRT", "SIGTRAP", "SIGBUS", "SIGILL"}

// cause returns the first fatal line seen, trimmed of V8's "# ".
func (t *tailWriter) cause() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimPrefix(t.fatal, "# ")
}

func newTailWriter(n int) *tailWriter { return &tailWriter{max: n} }

// Write implements io.Writer.
func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := strings.IndexByte(string(t.partial), '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimRight(string(t.partial[:i]), "\r"); line != "" {
			if (t.fatal == "" || t.generic && strings.HasPrefix(line, "# Fatal ")) &&
				slices.ContainsFunc(fatalPrefixes, func(p string) bool { return strings.HasPrefix(line, p) }) {
				t.fatal = line
				t.generic = strings.HasPrefix(line, genericFatalPrefix)
			}
			t.tail = append(t.tail, line)
			if len(t.tail) > t.max {
				t.tail = t.tail[len(t.tail)-t.max:]
			}
		}
		t.partial = t.partial[i+1:]
	}
	return len(p), nil
}

func (t *tailWriter) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.tail)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
	}
	return out
}

// suffix formats the tail for an error message.
func (t *tailWriter) suffix() string {
	l := t.lines()
	if len(l) == 0 {
		return ""
	}
	return "; its last stderr lines:\n  " + strings.Join(l, "\n  ")
}
