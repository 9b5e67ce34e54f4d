package codexhost

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// Capabilities are the v1 capabilities this host supports, sorted (the
// ones Codex's 0.169.0 host offers).
var Capabilities = []string{"bounded-output-v1", "delegate-capacity-4096", "session-cell-execution-resource-limits", "yield-observation"}

// DefaultYield is how long an execute observes its cell when it names
// no yield_time_ms (Codex's host: 10 s).
const DefaultYield = 10 * time.Second

// Config configures Serve.
type Config struct {
	// Runtime runs the cells; nil starts one from RuntimeConfig, closed
	// when Serve returns.
	Runtime *runtime.Runtime
	// RuntimeConfig configures the runtime Serve starts.
	RuntimeConfig runtime.Config
	// Limits bound every cell (zero fields take protocol.DefaultLimits);
	// a session's cellExecutionLimits can only lower HeapMiB.
	Limits protocol.Limits
	// Logger receives diagnostics (never stdout). Default: discard.
	Logger hclog.Logger
}

// FatalError ends the connection: the client sent what Codex's host
// treats as fatal. Report is the text for stderr, in Codex's form.
type FatalError struct {
	// Context is the first line ("failed to read code-mode client message").
	Context string
	// Cause is the reason under it; empty for a one-line error.
	Cause string
}

// Error returns the context and cause on one line.
func (e *FatalError) Error() string {
	if e.Cause == "" {
		return e.Context
	}
	return e.Context + ": " + e.Cause
}

// Report is the error as Codex's host prints it on stderr.
func (e *FatalError) Report() string {
	if e.Cause == "" {
		return "Error: " + e.Context + "\n"
	}
	return "Error: " + e.Context + "\n\nCaused by:\n    " + e.Cause + "\n"
}

// server is one connection's state; mu guards everything below it.
type server struct {
	cfg     Config
	rt      *runtime.Runtime // set once rtReady is closed
	rtReady chan struct{}
	w       *writer // v1
	out     output
	log     hclog.Logger

	mu        sync.Mutex
	seen      map[int64]bool // every request id so far
	sessions  map[string]*session
	used      map[string]bool // session ids opened before
	delegates map[int64]*delegate
	nextDel   int64
	observers map[any]*observer // by observer key
}

// session is one open session.
type session struct {
	id         string
	maxYield   *uint64
	heapMiB    uint32
	truncation string
	cells      map[string]*cell
	nextCell   int
	store      map[string]json.RawMessage
	g          *grpcSession // gRPC only
}

// delegate is a delegate/request awaiting its delegate/response.
type delegate struct {
	c    *cell
	call *runtime.ToolCall // nil for a notification
}

// Serve speaks protocol v1 on in and out until in ends (nil) or a fatal
// frame arrives (a *FatalError). A rejected handshake returns nil.
func Serve(in io.Reader, out io.Writer, cfg Config) error {
	s := newServer(cfg)
	s.w = newWriter(out)
	s.out = v1out{s}
	defer func() {
		s.w.close() // first: nothing the cells report while they stop is sent
		s.closeRuntime()
	}()
	r := bufio.NewReaderSize(in, 64<<10)
	if err := s.handshake(r); err != nil {
		if errors.Is(err, errRejected) || errors.Is(err, errCleanEOF) {
			return nil
		}
		return err
	}
	for {
		frame, err := readFrame(r)
		if errors.Is(err, errCleanEOF) {
			return nil
		}
		if err != nil {
			return &FatalError{Context: "failed to read code-mode client message", Cause: err.Error()}
		}
		m, err := decode(frame)
		if err != nil {
			return &FatalError{Context: "failed to read code-mode client message", Cause: "failed to decode code-mode IPC frame: " + err.Error()}
		}
		if err := s.dispatch(m); err != nil {
			return err
		}
	}
}

// newServer returns a server with no output yet, its runtime starting.
func newServer(cfg Config) *server {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	s := &server{cfg: cfg, rt: cfg.Runtime, log: cfg.Logger,
		seen: map[int64]bool{}, sessions: map[string]*session{}, used: map[string]bool{},
		delegates: map[int64]*delegate{}, observers: map[any]*observer{}}
	s.rtReady = make(chan struct{})
	if s.rt == nil {
		// Started while the handshake and the session's open go by, so
		// the first execute finds an isolate warm.
		go func() {
			s.rt = runtime.New(cfg.RuntimeConfig)
			close(s.rtReady)
		}()
	} else {
		close(s.rtReady)
	}
	return s
}

// closeRuntime closes the runtime the server started, which terminates
// the cells still running, as Codex's host drops them when its input
// ends.
func (s *server) closeRuntime() {
	if s.cfg.Runtime == nil {
		<-s.rtReady
		s.rt.Close()
	}
}

var errRejected = errors.New("handshake rejected")

// handshake reads the hello and answers it.
func (s *server) handshake(r *bufio.Reader) error {
	frame, err := readFrame(r)
	if errors.Is(err, errCleanEOF) {
		return err
	}
	if err != nil {
		return &FatalError{Context: "failed to read code-mode client hello", Cause: err.Error()}
	}
	m, err := decode(frame)
	if err != nil {
		return &FatalError{Context: "failed to read code-mode client hello", Cause: "failed to decode code-mode IPC frame: " + err.Error()}
	}
	if m.Type != "connection/hello" {
		s.send(rejectedMsg{Type: "connection/rejected", Reason: rejectHello{Type: "invalidHello", Message: "first message must be connection/hello"}})
		return errRejected
	}
	if !slices.Contains(m.Hello.SupportedVersions, "1") {
		s.send(rejectedMsg{Type: "connection/rejected", Reason: rejectVersion{Type: "noCompatibleVersion", SupportedVersions: []int{1}}})
		return errRejected
	}
	for _, c := range m.Hello.RequiredCapabilities {
		if !slices.Contains(Capabilities, c) {
			s.send(rejectedMsg{Type: "connection/rejected", Reason: rejectCapability{Type: "missingRequiredCapability", Capability: c}})
			return errRejected
		}
	}
	caps := []string{}
	for _, c := range Capabilities {
		if slices.Contains(m.Hello.RequiredCapabilities, c) || slices.Contains(m.Hello.OptionalCapabilities, c) {
			caps = append(caps, c)
		}
	}
	s.send(readyMsg{Type: "connection/ready", SelectedVersion: 1, Capabilities: caps})
	return nil
}

// send queues a frame; one over the cap is logged and dropped (callers
// that can answer in its place call s.w.send and check its error).
func (s *server) send(m any) {
	if err := s.w.send(m); err != nil {
		s.log.Error("frame not sent", "error", err)
	}
}

// respond sends an operation/response.
func (s *server) respond(id int64, result any) {
	s.send(idMsg{Type: "operation/response", ID: id, Result: result})
}

// dispatch handles one message after the handshake.
func (s *server) dispatch(m *message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch m.Type {
	case "connection/hello":
		return &FatalError{Context: "received a second code-mode client hello"}
	case "operation/request":
		r := m.Request
		if s.seen[r.ID] {
			return &FatalError{Context: fmt.Sprintf("duplicate code-mode request ID RequestId(%d)", r.ID)}
		}
		s.seen[r.ID] = true
		s.request(r)
	case "operation/cancel":
		if o := s.observers[m.ID]; o != nil && !o.execute {
			o.end()
			s.respond(m.ID, fail("code-mode request cancelled"))
		}
	case "operation/yield":
		if o := s.observers[m.ID]; o != nil {
			o.c.yieldLocked()
		}
	case "delegate/response":
		s.delegateResponse(m.Delegate)
	}
	return nil
}

// request answers one operation/request. Caller holds s.mu.
func (s *server) request(r *request) {
	if r.Method == "session/open" {
		s.open(r)
		return
	}
	sess := s.sessions[r.SessionID]
	if sess == nil {
		s.respond(r.ID, fail("unknown code-mode session "+r.SessionID))
		return
	}
	switch r.Method {
	case "session/execute":
		o := &observer{key: r.ID, execute: true}
		if msg := s.execute(sess, r.Execute, "", o, func(c *cell) {
			s.respond(r.ID, ok(startedValue{Type: "execution/started", CellID: c.id}))
		}); msg != "" {
			s.respond(r.ID, fail(msg))
		}
	case "session/wait":
		c := sess.cells[r.Wait.CellID]
		if c == nil {
			s.respond(r.ID, ok(waitValue{Type: "wait/completed", Outcome: map[string]any{"MissingCell": map[string]any{"Result": missing(sess, r.Wait.CellID)}}}))
			return
		}
		if c.obs != nil {
			s.respond(r.ID, fail(fmt.Sprintf("exec cell %s already has an active observer", c.id)))
			return
		}
		c.observe(&observer{key: r.ID, maxTokens: r.MaxOutputTokens}, sess.yieldFor(&r.Wait.YieldTimeMS))
	case "session/terminate":
		c := sess.cells[r.CellID]
		if c == nil {
			s.respond(r.ID, ok(waitValue{Type: "wait/completed", Outcome: map[string]any{"MissingCell": map[string]any{"Result": missing(sess, r.CellID)}}}))
			return
		}
		start := time.Now()
		c.stopLocked()
		s.respond(r.ID, ok(waitValue{Type: "wait/completed", Outcome: map[string]any{"LiveCell": map[string]any{
			"Terminated": liveBody{CellID: c.id, ContentItems: []contentItem{}, DurationNS: int64(time.Since(start))}}}}))
		s.send(closedMsg{Type: "cell/closed", SessionID: sess.id, CellID: c.id})
	case "session/shutdown":
		ids := make([]string, 0, len(sess.cells))
		for id := range sess.cells {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			c := sess.cells[id]
			c.stopLocked()
			s.send(closedMsg{Type: "cell/closed", SessionID: sess.id, CellID: c.id})
		}
		delete(s.sessions, sess.id)
		s.respond(r.ID, ok(sessionValue{Type: "session/closed", SessionID: sess.id}))
	}
}

// open opens a session. Caller holds s.mu.
func (s *server) open(r *request) {
	if s.sessions[r.SessionID] != nil {
		s.respond(r.ID, fail(fmt.Sprintf("code-mode session ID `%s` is already open", r.SessionID)))
		return
	}
	if s.used[r.SessionID] {
		s.respond(r.ID, fail(fmt.Sprintf("code-mode session ID `%s` was reused", r.SessionID)))
		return
	}
	sess := newSession(r.SessionID, r.Truncation, r.Limits)
	if msg := s.sessionLimit(); msg != "" {
		s.respond(r.ID, fail(msg))
		return
	}
	s.used[r.SessionID] = true
	s.sessions[r.SessionID] = sess
	s.respond(r.ID, ok(sessionValue{Type: "session/ready", SessionID: sess.id}))
}

// newSession is a session with the limits session/open or OpenSession
// asked for.
func newSession(id, truncation string, limits *limitsWire) *session {
	sess := &session{id: id, truncation: truncation, cells: map[string]*cell{}, store: map[string]json.RawMessage{}}
	if limits != nil {
		sess.maxYield = limits.MaxYieldTimeMS
		if b := limits.MaxHeapSizeBytes; b != nil {
			mib := (*b + 1<<20 - 1) >> 20
			sess.heapMiB = uint32(max(1, min(mib, 1<<31)))
		}
	}
	return sess
}

// sessionLimit is why no other session may open now, or "". Caller
// holds s.mu.
func (s *server) sessionLimit() string {
	if n := len(s.sessions); n >= int(s.cfg.Limits.WithDefaults().SessionsPerHost) {
		return fmt.Sprintf("the host already has %d open sessions (its limit); close one first", n)
	}
	return ""
}

// yieldFor is how long an observation with the asked yield time lasts:
// the session's maxYieldTimeMs caps it.
func (sess *session) yieldFor(ms *uint64) time.Duration {
	d := DefaultYield
	if ms != nil {
		d = time.Duration(min(*ms, 1<<40)) * time.Millisecond
	}
	if sess.maxYield != nil {
		d = min(d, time.Duration(min(*sess.maxYield, 1<<40))*time.Millisecond)
	}
	return d
}

// missing is the MissingCell result for a cell id of sess, on either
// transport; in server output mode it carries the "Script error:" item,
// as a Result does.
func missing(sess *session, id string) resultBody {
	text := "exec cell " + id + " not found"
	var items []protocol.Item
	if sess.truncation == "server" {
		items = append(items, scriptError(text))
	}
	return resultBody{CellID: id, ContentItems: contentItems(items), ErrorText: &text}
}

// scriptError is the item server output mode adds for a cell's
// error_text.
func scriptError(text string) protocol.Item {
	return protocol.Item{Type: "text", Text: "Script error:\n" + text}
}

// delegateResponse delivers a delegate/response; unknown ids are
// ignored (Codex's host: silently). Caller holds s.mu.
func (s *server) delegateResponse(d *delegateResp) {
	del := s.delegates[d.ID]
	if del == nil {
		return
	}
	delete(s.delegates, d.ID)
	c := del.c
	if del.call == nil {
		c.unacked--
		c.finishLocked()
		return
	}
	s.out.answered(d.ID)
	answerCall(del.call, d)
}

// answerCall settles a tool call with the client's answer.
func answerCall(call *runtime.ToolCall, d *delegateResp) {
	switch {
	case !d.OK:
		call.Answer(nil, &protocol.ToolError{Code: protocol.CodeToolFailed, Tool: call.QualifiedName(), Message: d.Error})
	case d.Kind != "tool/result":
		// Codex's host's words for a notification/delivered answer.
		call.Answer(nil, &protocol.ToolError{Code: protocol.CodeToolFailed, Tool: call.QualifiedName(),
			Message: "code-mode client returned an invalid tool result"})
	default:
		call.Answer(d.Result, nil)
	}
}

// newDelegate allocates a delegate id. Caller holds s.mu.
func (s *server) newDelegate(c *cell, call *runtime.ToolCall) int64 {
	s.nextDel++
	s.delegates[s.nextDel] = &delegate{c: c, call: call}
	return s.nextDel
}

// cancelDelegates sends delegate/cancel for the cell's pending tool
// calls, oldest first. Caller holds s.mu.
func (s *server) cancelDelegates(c *cell) {
	var ids []int64
	for id, d := range s.delegates {
		if d.c == c && d.call != nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		delete(s.delegates, id)
		s.out.cancel(c, id)
	}
}
