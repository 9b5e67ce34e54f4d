package hostserver

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/internal/wellformed"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// ErrRejected is returned by Serve when the handshake was rejected (the
// parent was told why in hello.rejected). The host should exit with status 2.
var ErrRejected = errors.New("hostserver: the handshake was rejected; the parent must send a hello this host supports")

// Config configures Serve. The zero value is ready to use.
type Config struct {
	// Limits are the host's limits, reported in hello.ok; zero fields take
	// protocol.DefaultLimits. Sessions and cells can only tighten them.
	Limits protocol.Limits
	// Capabilities are what the host offers; the parent gets the
	// intersection with what it asks for. Default: stream_output,
	// typescript and store.
	Capabilities []string
	// CellPrefix is put before every cell id ("c1" becomes CellPrefix+"c1").
	// A parent that restarts hosts sets it so a new host's cell ids never
	// collide with a dead one's. Default none.
	CellPrefix string
	// HostVersion is reported in hello.ok. Default "dev".
	HostVersion string
	// Runtime configures the runtime Serve creates (and closes). Its
	// PollBeforeSleep defaults to 30µs here when the output is a
	// protocol.TryWriter (see transport.go), else to none; negative turns
	// polling off. Its Input and OnStuck are the server's own.
	Runtime runtime.Config
	// Logger receives the host's logs. Default: discard.
	Logger hclog.Logger
	// OnStuck, when set, is called on its own goroutine after a cell that
	// was stopped but did not end within Runtime.StuckAfter (it is stuck
	// inside one V8 builtin and its thread cannot be reclaimed) has been
	// reported to the parent: its pending requests got a cell.result with
	// the stop's status (terminated, timed_out or out_of_memory) and an
	// error named StuckError, and the output was flushed (for up to a
	// second). The host process should then exit non-zero so its parent
	// starts a new one. Unset: the cell is reported the same way and
	// logged, and the host serves on (its thread stays busy until the
	// builtin ends, and closing the runtime does not wait for it).
	OnStuck func(session, cell string, reason protocol.ErrorInfo)
	// OnReady, when set, is called once after a successful handshake, on
	// Serve's goroutine before it reads on: the runtime is up and its
	// first isolate warm. It must not block.
	OnReady func()
	// OnShutdown, when set, is called once when the parent sends shutdown
	// (not at end of input), on the reader goroutine. It must not block.
	OnShutdown func()
}

// Serve speaks the protocol with one parent: it reads frames from r and
// writes frames to w until the input ends (io.EOF at a frame boundary) or
// the parent sends shutdown, then terminates every cell, closes the
// runtime, flushes w and, if w is an io.Closer, closes it.
//
// It returns nil after a clean end, ErrRejected after a rejected
// handshake, and a *protocol.ProtocolError (Fatal) or an I/O error when
// the input's framing broke. After shutdown Serve returns without waiting
// for its reader goroutine, which may still be blocked reading r: close r
// to release it. Call Serve from any goroutine; it blocks until the end.
func Serve(r io.Reader, w io.Writer, cfg Config) error {
	s := newServer(w, cfg)
	err := s.serve(r)
	s.stop()
	return err
}

// server is the state of one connection. Its fields are guarded by mu
// unless noted.
type server struct {
	cfg    Config
	log    hclog.Logger
	out    *protocol.Sender // safe from any goroutine
	w      io.Writer
	rt     *runtime.Runtime // created once the handshake succeeds
	limits protocol.Limits  // host limits, defaults filled in
	caps   []string         // negotiated capabilities, set by the reader before any cell exists

	mu         sync.Mutex
	sessions   map[string]*session
	cellCounts map[string]uint64 // cells started per session id, for the host's lifetime (see exec)
	shutdown   bool

	tools toolTable // tool calls waiting for their tool.result

	tr *transport // set by serve, before the handshake

	reqMu    sync.Mutex
	inflight map[uint64]inflightReq // requests not yet answered: exec, wait, terminate, session.close

	shutdownDone chan struct{} // closed when a shutdown has drained everything

	stuckCells atomic.Int32 // cells reported stuck: closing the runtime would wait for them forever
}

func newServer(w io.Writer, cfg Config) *server {
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if cfg.Capabilities == nil {
		cfg.Capabilities = []string{protocol.CapStreamOutput, protocol.CapTypeScript, protocol.CapStore}
	}
	if cfg.HostVersion == "" {
		cfg.HostVersion = "dev"
	}
	return &server{
		cfg:          cfg,
		log:          log,
		out:          protocol.NewSender(w, protocol.DefaultMaxFrame),
		w:            w,
		limits:       cfg.Limits.WithDefaults(),
		sessions:     map[string]*session{},
		cellCounts:   map[string]uint64{},
		tools:        toolTable{calls: map[uint64]sentCall{}},
		inflight:     map[uint64]inflightReq{},
		shutdownDone: make(chan struct{}),
	}
}

// send queues m; a failure is logged (the connection is going away or the
// message was refused by the encoder). A reply the encoder refuses still
// answers its request: a cell.result is replaced by a smaller one (see
// refusedResult), any other reply by an error reply (too_large, say) whose
// failed_t is the request's type (protocol.AnsweredType).
func (s *server) send(m protocol.Message) {
	s.sendReply(m, protocol.AnsweredType(m.Type()))
}

// sendReply is send for a reply to a request of type reqType (a
// cell.result's exec, wait or terminate), which names the failed request
// in the error that replaces a reply the encoder refuses.
func (s *server) sendReply(m protocol.Message, reqType string) {
	err := s.out.Send(m)
	if err == nil {
		return
	}
	var pe *protocol.ProtocolError
	id := requestIDOf(m)
	if !errors.As(err, &pe) || id == 0 {
		s.log.Debug("frame not sent", "t", m.Type(), "error", err)
		return
	}
	s.log.Warn("the encoder refused a reply; sending a smaller one", "t", m.Type(), "id", id, "error", err)
	if res, ok := m.(*protocol.CellResult); ok {
		if err := s.out.Send(refusedResult(res, pe, true)); err == nil {
			return
		}
		if err := s.out.Send(refusedResult(res, pe, false)); err == nil {
			return
		}
	}
	if reqType == "" {
		reqType = m.Type()
	}
	msg := fmt.Sprintf("the host could not send its %s to this request: %s", m.Type(), pe.Message)
	if err := s.out.Send(&protocol.ErrorReply{ID: id, Code: pe.Code, Message: msg, FailedType: reqType}); err != nil {
		s.log.Error("a reply could not be sent", "t", m.Type(), "id", id, "error", err)
	}
}

// refusedNoteBudget bounds the error a refused cell.result keeps.
var refusedNoteBudget = runtime.Budget{Bytes: 16 << 10}

// refusedResult is what answers a request whose cell.result the encoder
// refused: the same status and stats, the error cut short, and one text
// item in place of the output saying why. keepStore keeps the result's
// store writes (they are committed in the host either way).
func refusedResult(res *protocol.CellResult, pe *protocol.ProtocolError, keepStore bool) *protocol.CellResult {
	_, errInfo, _ := (&runtime.Output{}).Take(nil, res.Error, refusedNoteBudget)
	if errInfo != nil {
		fixed := *errInfo
		fixed.Name, fixed.Message, fixed.Stack = wellformed.String(fixed.Name), wellformed.String(fixed.Message), wellformed.String(fixed.Stack)
		errInfo = &fixed
	}
	note := fmt.Sprintf("[the output of this result was dropped: the host could not encode it (%s: %s)]", pe.Code, pe.Message)
	out := &protocol.CellResult{ID: res.ID, Session: res.Session, Cell: res.Cell, Status: res.Status,
		Items: []protocol.Item{{Type: protocol.ItemText, Text: wellformed.String(note)}}, Truncated: true, Error: errInfo, Stats: res.Stats}
	if keepStore {
		out.Store = res.Store
	} else if len(res.Store) > 0 {
		out.Items[0].Text += fmt.Sprintf(" [its %d store writes were committed in the host but could not be sent]", len(res.Store))
	}
	return out
}

func requestIDOf(m protocol.Message) uint64 {
	if r, ok := m.(protocol.Reply); ok {
		return r.ReplyTo()
	}
	return 0
}

func (s *server) replyError(id uint64, t string, code protocol.ErrorCode, format string, args ...any) {
	s.send(&protocol.ErrorReply{ID: id, Code: code, Message: fmt.Sprintf(format, args...), FailedType: t})
}

// serve runs the handshake and the read loop. It returns when the input
// ends or a shutdown has drained.
func (s *server) serve(r io.Reader) error {
	s.tr = newTransport(r, s.w)
	if err := s.handshake(s.tr.fr); err != nil {
		return err
	}
	readErr := make(chan error, 1)
	go func() { readErr <- s.readLoop() }()
	select {
	case err := <-readErr:
		return err
	case <-s.shutdownDone:
		return nil
	}
}

// stop terminates every cell, closes the runtime and flushes the output.
func (s *server) stop() {
	s.drain(0)
	if s.rt != nil {
		closed := make(chan struct{})
		go func() {
			s.rt.Close()
			close(closed)
		}()
		if s.stuckCells.Load() == 0 {
			<-closed
		} else {
			select { // a stuck cell's builtin may never end
			case <-closed:
			case <-time.After(stuckCloseWait):
				s.log.Warn("the runtime did not close: a stuck cell still holds its thread")
			}
		}
	}
	if err := s.out.Close(); err != nil {
		s.log.Debug("output closed with an error", "error", err)
	}
	if c, ok := s.w.(io.Closer); ok {
		_ = c.Close()
	}
}

// handshake reads frames until a valid hello arrives.
func (s *server) handshake(fr *protocol.FrameReader) error {
	for {
		frame, err := fr.ReadFrame()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return s.fatal(err)
		}
		m, err := protocol.Decode(frame)
		if err != nil {
			var pe *protocol.ProtocolError
			errors.As(err, &pe)
			s.send(&protocol.HelloRejected{ID: pe.ID, Reason: protocol.RejectBadHello,
				Message: "the first frame must be a valid hello: " + err.Error(), Versions: protocol.SupportedVersions})
			return ErrRejected
		}
		hello, ok := m.(*protocol.Hello)
		if !ok {
			if req, ok := m.(protocol.Request); ok {
				s.replyError(req.RequestID(), m.Type(), protocol.ErrCodeHandshakeRequired, "send hello first; %s is refused until the handshake is done", m.Type())
			}
			continue
		}
		return s.greet(fr, hello)
	}
}

// greet answers a hello with hello.ok or hello.rejected.
func (s *server) greet(fr *protocol.FrameReader, h *protocol.Hello) error {
	var version uint32
	for _, v := range h.Versions {
		if slices.Contains(protocol.SupportedVersions, v) && v > version {
			version = v
		}
	}
	if version == 0 {
		s.send(&protocol.HelloRejected{ID: h.ID, Reason: protocol.RejectNoCommonVersion,
			Message:  fmt.Sprintf("no protocol version in common: the parent speaks %v, this host %v; update one side", h.Versions, protocol.SupportedVersions),
			Versions: protocol.SupportedVersions})
		return ErrRejected
	}
	for _, c := range h.Require {
		if !slices.Contains(s.cfg.Capabilities, c) {
			s.send(&protocol.HelloRejected{ID: h.ID, Reason: protocol.RejectMissingCapability,
				Message:  fmt.Sprintf("this host does not offer capability %q (it offers %v); drop it from require or use a newer host", c, s.cfg.Capabilities),
				Versions: protocol.SupportedVersions, Capability: c})
			return ErrRejected
		}
	}
	for _, c := range h.Capabilities {
		if slices.Contains(s.cfg.Capabilities, c) && !slices.Contains(s.caps, c) {
			s.caps = append(s.caps, c)
		}
	}
	frameCap := protocol.NegotiateMaxFrame(h.MaxFrame, s.limits.FrameBytes)
	s.limits.FrameBytes = frameCap
	s.limits.StoreBytes = min(s.limits.StoreBytes, protocol.MaxStoreBytes(frameCap))
	rcfg := s.tr.runtimeConfig(s, s.cfg.Runtime)
	rcfg.OnStuck = s.stuck // always: a stuck cell's requests must be answered
	s.rt = runtime.New(rcfg)
	s.send(&protocol.HelloOK{ID: h.ID, Version: version, Capabilities: s.caps, Limits: s.limits,
		V8Version: v8.Version(), HostVersion: s.cfg.HostVersion})
	s.out.SetMaxFrame(int(frameCap))
	fr.SetMaxFrame(int(frameCap))
	s.log.Info("handshake done", "client", h.Client, "version", version, "capabilities", s.caps, "frame_bytes", frameCap)
	if s.cfg.OnReady != nil {
		s.cfg.OnReady()
	}
	return nil
}

// fatal reports a broken input stream to the parent (once, without an id)
// and returns the error.
func (s *server) fatal(err error) error {
	var pe *protocol.ProtocolError
	if errors.As(err, &pe) {
		s.send(pe.Reply())
	}
	s.log.Error("input framing broke; closing the connection", "error", err)
	return err
}

// readLoop reads and dispatches frames until the input ends.
func (s *server) readLoop() error {
	for {
		res := s.tr.read()
		switch {
		case errors.Is(res.err, io.EOF):
			s.log.Info("input ended; stopping")
			return nil
		case res.err != nil:
			return s.fatal(res.err)
		case res.bad != nil:
			s.badMessage(res.bad)
			continue
		}
		s.tr.dispatch(s, res.m)
	}
}

// toolResult hands a tool call's answer to the call. Any goroutine.
func (s *server) toolResult(m *protocol.ToolResult) {
	var err error
	if m.Error != nil {
		err = m.Error
	}
	s.tools.answer(m.ID, m.Value, err)
}

// badMessage answers a frame that did not decode.
func (s *server) badMessage(err error) {
	var pe *protocol.ProtocolError
	if !errors.As(err, &pe) {
		s.log.Error("decode failed", "error", err)
		return
	}
	s.log.Warn("bad message", "error", err)
	switch {
	case pe.Type == protocol.TypeToolResult && pe.ID != 0:
		// The id is in the host's id space: fail that call rather than
		// send an error the parent would match against its own requests.
		s.tools.answer(pe.ID, nil, &protocol.ToolError{Code: protocol.CodeInternal,
			Message: "the parent sent a malformed tool.result: " + pe.Message})
		return
	case pe.Type == protocol.TypeError:
		return // an error is never answered with an error
	case pe.Code == protocol.ErrCodeUnknownType && pe.ID == 0:
		return // an event of a later version: ignored
	}
	// Without a readable id the error answers no request: it is a notice
	// for the parent's log, and the connection stays up.
	s.send(pe.Reply())
}

// dispatch handles one decoded message. Reader goroutine only; it never
// blocks on a cell.
func (s *server) dispatch(m protocol.Message) {
	if req, ok := m.(protocol.Request); ok {
		if t, busy := s.inFlight(req.RequestID()); busy {
			s.replyError(req.RequestID(), m.Type(), protocol.ErrCodeDuplicateID,
				"request id %d is still in flight (%s, not answered yet); this error answers only this %s: send it again with a fresh id",
				req.RequestID(), t, m.Type())
			return
		}
	}
	if protocol.SentBy(m.Type())&protocol.FromParent == 0 {
		if req, ok := m.(protocol.Request); ok {
			s.replyError(req.RequestID(), m.Type(), protocol.ErrCodeUnexpected, "%s is sent by the host, not the parent", m.Type())
		}
		return
	}
	switch m := m.(type) {
	case *protocol.ToolResult:
		s.toolResult(m)
		return
	case *protocol.ErrorReply:
		if !s.tools.answer(m.ID, nil, &protocol.ToolError{Code: protocol.CodeInternal,
			Message: "the parent refused the tool call: " + m.Message}) {
			s.log.Warn("error from the parent", "id", m.ID, "code", m.Code, "message", m.Message)
		}
		return
	case *protocol.Pong:
		return
	case *protocol.Ping:
		s.send(&protocol.Pong{ID: m.ID})
		return
	case *protocol.Hello:
		s.replyError(m.ID, m.Type(), protocol.ErrCodeUnexpected, "the handshake is already done; send hello only once")
		return
	case *protocol.Cancel:
		s.cancel(m.Target)
		return
	case *protocol.Shutdown:
		s.beginShutdown(time.Duration(m.GraceMS) * time.Millisecond)
		return
	}
	if s.isShuttingDown() {
		if req, ok := m.(protocol.Request); ok {
			s.replyError(req.RequestID(), m.Type(), protocol.ErrCodeShuttingDown, "the host is shutting down; start a new one")
		}
		return
	}
	switch m := m.(type) {
	case *protocol.OpenSession:
		s.openSession(m)
	case *protocol.CloseSession:
		s.closeSession(m)
	case *protocol.Exec:
		s.exec(m)
	case *protocol.Wait:
		s.wait(m)
	case *protocol.Terminate:
		s.terminate(m)
	default:
		if req, ok := m.(protocol.Request); ok {
			s.replyError(req.RequestID(), m.Type(), protocol.ErrCodeUnexpected, "the host does not handle %s", m.Type())
		}
	}
}

func (s *server) isShuttingDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutdown
}

// beginShutdown stops taking work and drains in the background; Serve
// returns when the drain is done.
func (s *server) beginShutdown(grace time.Duration) {
	s.mu.Lock()
	already := s.shutdown
	s.shutdown = true
	s.mu.Unlock()
	if already {
		return
	}
	s.log.Info("shutdown requested", "grace", grace)
	if s.cfg.OnShutdown != nil {
		s.cfg.OnShutdown()
	}
	go func() {
		s.drain(grace)
		close(s.shutdownDone)
	}()
}

// drain lets live cells run for up to grace, terminates the rest and
// waits until every cell has sent its last frames.
func (s *server) drain(grace time.Duration) {
	s.mu.Lock()
	s.shutdown = true
	var cells []*cell
	for _, ss := range s.sessions {
		cells = append(cells, ss.liveCells()...)
	}
	s.mu.Unlock()
	if grace > 0 {
		deadline := time.NewTimer(grace)
		defer deadline.Stop()
	wait:
		for _, c := range cells {
			select {
			case <-c.ended:
			case <-deadline.C:
				break wait
			}
		}
	}
	for _, c := range cells {
		c.release()
		c.terminate()
	}
	for _, c := range cells {
		<-c.closed
	}
}

// inflightReq is a request the host has not answered yet: its type and,
// for exec, wait and terminate, its cell (nil for session.close).
type inflightReq struct {
	t    string
	cell *cell
}

// trackRequest records a request of type t that is answered later (exec,
// wait, terminate: by c's cell.result; session.close: by session.closed).
// Reader goroutine only: dispatch has already refused an id in flight
// with duplicate_id, and only the reader adds ids, so id is free.
func (s *server) trackRequest(id uint64, t string, c *cell) {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	s.inflight[id] = inflightReq{t: t, cell: c}
}

// inFlight returns the type of the request id that is still in flight.
func (s *server) inFlight(id uint64) (string, bool) {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	r, ok := s.inflight[id]
	return r.t, ok
}

func (s *server) forgetRequest(id uint64) {
	s.reqMu.Lock()
	delete(s.inflight, id)
	s.reqMu.Unlock()
}

// cancel answers the pending exec or wait target now.
func (s *server) cancel(target uint64) {
	s.reqMu.Lock()
	c := s.inflight[target].cell
	s.reqMu.Unlock()
	if c != nil {
		c.answerNow(target)
	}
}

func (s *server) capable(c string) bool { return slices.Contains(s.caps, c) }

// notNegotiated is the bad_field message for a request that uses
// capability c (what says how) when the handshake did not select it: the
// parent did not ask for it in hello, or this host does not offer it.
func (s *server) notNegotiated(what, c string) string {
	if slices.Contains(s.cfg.Capabilities, c) {
		return fmt.Sprintf("%s, which needs capability %q, but the parent did not negotiate it: ask for it in hello", what, c)
	}
	return fmt.Sprintf("%s, which needs capability %q, but this host does not offer it (it offers %v): do without it, or use a host that offers it", what, c, s.cfg.Capabilities)
}

// stuckFlushWait bounds how long stuck waits for its frames to be written.
const stuckFlushWait = time.Second

// stuckCloseWait bounds how long Serve waits at its end for the runtime to
// close after a cell was reported stuck.
const stuckCloseWait = 10 * time.Second

// stuck reports a cell the runtime could not stop (runtime.Config.OnStuck)
// to the parent, flushes the output and hands over to Config.OnStuck.
func (s *server) stuck(rc *runtime.Cell, status protocol.Status, reason protocol.ErrorInfo) {
	var cells []*cell
	s.mu.Lock()
	for _, ss := range s.sessions {
		cells = append(cells, ss.liveCells()...)
	}
	s.mu.Unlock()
	var found *cell
	for _, c := range cells { // c.mu is taken after server.mu, never inside it
		c.mu.Lock()
		if c.rc == rc {
			found = c
		}
		c.mu.Unlock()
	}
	session, cellID := "", rc.ID()
	if found != nil {
		session = found.session
		found.mu.Lock()
		stats := found.statsLocked()
		found.mu.Unlock()
		found.release()
		// The output is the cell's own (found.out); the isolate cannot be
		// asked for anything more, store writes included.
		found.finish(runtime.Result{CellID: found.id, Status: status, Stats: stats,
			Error: &protocol.ErrorInfo{Name: protocol.ErrorNameStuck, Message: "hostserver: the cell was stopped (" + reason.Message +
				") but is stuck inside V8 and cannot be reclaimed; the host exits and the parent must start a new one"}})
	}
	s.stuckCells.Add(1)
	if s.cfg.OnStuck == nil {
		s.log.Error("a stopped cell is stuck inside V8 and its thread cannot be reclaimed", "session", session, "cell", cellID, "reason", reason.Message)
		return
	}
	s.log.Error("a stopped cell is stuck inside V8; the host exits", "session", session, "cell", cellID, "reason", reason.Message)
	flushed := make(chan struct{})
	go func() {
		_ = s.out.Close()
		close(flushed)
	}()
	select {
	case <-flushed:
	case <-time.After(stuckFlushWait):
	}
	s.cfg.OnStuck(session, cellID, reason)
}
