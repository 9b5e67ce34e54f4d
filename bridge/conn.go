package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/protocol"
)

// ConnConfig configures a Conn. Executor is required; every other zero
// field takes the default its doc names.
type ConnConfig struct {
	// Executor runs the tool calls scripts make, one goroutine per call.
	// Required.
	Executor ToolExecutor
	// Capabilities are asked for in hello. Default: stream_output.
	Capabilities []string
	// MaxFrame is the frame cap asked for in hello. Default 8 MiB.
	MaxFrame uint32
	// Client names the parent in the host's logs. Default
	// "codemode-bridge".
	Client string
	// HandshakeTimeout bounds the wait for hello.ok. Default 10s.
	HandshakeTimeout time.Duration
	// TerminateGrace is how long Exec waits for the host's answer after
	// its ctx ended and it told the host to stop the cell. When it passes,
	// Exec gives up: it returns a *HostUnresponsiveError (wrapped in the
	// connection's *HostDiedError) and the connection ends, as if the host
	// had died. Default DefaultTerminateGrace, twice the host's default
	// stuck deadline: a cell that does not stop is reported stuck before
	// that.
	TerminateGrace time.Duration
	// Logger receives the bridge's diagnostics. Default: discard.
	Logger hclog.Logger

	// onDeath, when set, turns the reader's final error into the error
	// every pending request fails with (the Client adds exit status and
	// stderr).
	onDeath func(error) error
	// onAbandon, when set, is called when the bridge gives up on the host
	// (TerminateGrace passed, or a broken frame): the Client kills the
	// process. Any goroutine; it must not block for long.
	onAbandon func()
	// onStore, when set, receives the store writes of every cell.result,
	// whichever request it answers (exec, wait, terminate, or one whose
	// caller stopped waiting), in the order the host sent them. Reader
	// goroutine; it must not block.
	onStore func(session string, writes []protocol.StoreEntry)
}

// DefaultTerminateGrace is ConnConfig.TerminateGrace's and
// Config.TerminateGrace's default.
const DefaultTerminateGrace = 10 * time.Second

// EventKind says what an Event carries.
type EventKind string

// Event kinds.
const (
	// EventOutput carries output items as the script makes them (only for
	// an exec with Stream set).
	EventOutput EventKind = "output"
	// EventNotify carries a script's notify(text).
	EventNotify EventKind = "notify"
)

// Event is something a running cell reported before its result.
type Event struct {
	// Kind is EventOutput or EventNotify.
	Kind EventKind
	// Session and Cell name the cell.
	Session, Cell string
	// Items are the new output items (EventOutput).
	Items []protocol.Item
	// Text is the notification (EventNotify).
	Text string
}

// ExecRequest is one cell to run.
type ExecRequest struct {
	// Source is the script. Required.
	Source string
	// Language is protocol.LangJS (default) or protocol.LangTS.
	Language protocol.Language
	// Filename names the source in stack traces. Default "cell.js".
	Filename string
	// Tools are the tools the script may call; the Executor answers them.
	Tools []protocol.ToolDef
	// Yield is how long Exec waits before it returns status yielded while
	// the cell keeps running. Default 10s.
	Yield time.Duration
	// MaxOutputTokens is the output budget of each result. Default: the
	// session's.
	MaxOutputTokens uint32
	// Limits tighten the session's limits for this cell.
	Limits *protocol.Limits
	// Stream asks for EventOutput events as output appears.
	Stream bool
	// OnEvent, when set, receives the cell's events until it closes. It is
	// called on the connection's reader goroutine and must not block.
	OnEvent func(Event)
}

// Conn is one protocol connection to a host, after a successful
// handshake. Its methods are safe from any goroutine; many requests may
// be in flight at once. When the host goes away every pending request
// fails with the connection's error (a *HostDiedError) and Done closes.
type Conn struct {
	cfg   ConnConfig
	log   hclog.Logger
	out   *protocol.Sender
	r     io.Reader // as given to NewConn: closed when the bridge gives up on the host
	w     io.Writer
	hello *protocol.HelloOK

	nextID  atomic.Uint64
	closing atomic.Bool // Close sent shutdown: the end of output is expected

	ctx    context.Context // cancelled when the connection ends: tool calls stop
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done closes

	gaveUp atomic.Pointer[error] // why abandon gave up on the host: the reader's end reports it

	mu      sync.Mutex
	pending map[uint64]*request
	cells   map[cellKey]func(Event)
	calls   map[uint64]*toolCall

	rd readerRole
}

type cellKey struct{ session, cell string }

// request is a request awaiting its reply. ch has room for every answer
// the request can get: one final reply, and for an exec one exec.started
// before it.
type request struct {
	ch      chan answer
	exec    bool        // an exec: exec.started, then cell.result
	started bool        // exec.started was delivered; guarded by Conn.mu
	onEvent func(Event) // exec only
}

// answer is what a request gets: a reply, or the error of a reply that
// could not be decoded.
type answer struct {
	m   protocol.Message
	err error
}

type toolCall struct {
	cell   cellKey
	cancel context.CancelFunc
}

// NewConn speaks the protocol over r (frames from the host) and w (frames
// to the host): it sends hello, waits for hello.ok and starts the reader
// goroutine. Use it with in-memory pipes in tests, or with any byte
// streams a host serves; Start launches a real host process. When the
// connection ends (Close, or the host's output ends) the Conn closes w if
// it is an io.Closer.
func NewConn(r io.Reader, w io.Writer, cfg ConnConfig) (*Conn, error) {
	if cfg.Executor == nil {
		return nil, errors.New("bridge: ConnConfig.Executor is required: pass the ToolExecutor that runs your tools")
	}
	if cfg.Capabilities == nil {
		cfg.Capabilities = []string{protocol.CapStreamOutput}
	}
	if cfg.Client == "" {
		cfg.Client = "codemode-bridge"
	}
	if cfg.HandshakeTimeout == 0 {
		cfg.HandshakeTimeout = 10 * time.Second
	}
	if cfg.TerminateGrace == 0 {
		cfg.TerminateGrace = DefaultTerminateGrace
	}
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{cfg: cfg, log: log, out: protocol.NewSender(w, 0), r: r, w: w, ctx: ctx, cancel: cancel,
		done: make(chan struct{}), pending: map[uint64]*request{}, cells: map[cellKey]func(Event){},
		calls: map[uint64]*toolCall{}}
	if pr := newPollingReader(r); pr != nil {
		c.rd.poller, r = pr, pr
	}
	fr := protocol.NewFrameReader(r, 0)
	if err := c.handshake(fr); err != nil {
		cancel()
		if wc, ok := w.(io.Closer); ok {
			_ = wc.Close()
		}
		_ = c.out.Close()
		return nil, err
	}
	c.rd.fr, c.rd.watchEvery = fr, inlineWatchPeriod
	go c.readLoop()
	return c, nil
}

// handshake sends hello and reads the answer on the caller's goroutine.
func (c *Conn) handshake(fr *protocol.FrameReader) error {
	id := c.nextID.Add(1)
	if err := c.out.Send(&protocol.Hello{ID: id, Versions: protocol.SupportedVersions,
		Capabilities: c.cfg.Capabilities, MaxFrame: c.cfg.MaxFrame, Client: c.cfg.Client}); err != nil {
		return fmt.Errorf("bridge: sending hello: %w", err)
	}
	type answer struct {
		m   protocol.Message
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		m, err := fr.ReadMessage()
		ch <- answer{m, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-time.After(c.cfg.HandshakeTimeout):
		return fmt.Errorf("bridge: the host did not answer hello within %s; is it a codemode-host serving the protocol?", c.cfg.HandshakeTimeout)
	}
	if a.err != nil {
		return c.died(fmt.Errorf("reading hello.ok: %w", a.err))
	}
	switch m := a.m.(type) {
	case *protocol.HelloOK:
		c.hello = m
		c.out.SetMaxFrame(int(m.Limits.FrameBytes))
		fr.SetMaxFrame(int(m.Limits.FrameBytes))
		return nil
	case *protocol.HelloRejected:
		return fmt.Errorf("bridge: the host rejected the handshake (%s): %s", m.Reason, m.Message)
	default:
		return fmt.Errorf("bridge: the host answered hello with %s; it does not speak this protocol", a.m.Type())
	}
}

// Hello returns the host's handshake answer: version, capabilities,
// limits, V8 version.
func (c *Conn) Hello() *protocol.HelloOK { return c.hello }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (nil while it is up).
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// died builds the error a dead connection reports.
func (c *Conn) died(err error) error {
	if c.cfg.onDeath != nil {
		return c.cfg.onDeath(err)
	}
	return &HostDiedError{Err: err}
}

// shutdown marks the connection dead with err and fails what is pending.
func (c *Conn) shutdown(err error) {
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return
	default:
	}
	c.err = err
	close(c.done)
	calls := c.calls
	c.calls = map[uint64]*toolCall{}
	c.pending = map[uint64]*request{}
	c.mu.Unlock()
	c.cancel()
	for _, tc := range calls {
		tc.cancel()
	}
	// Nothing more will be read: release the writer (closing w first so a
	// write stuck on a peer that stopped reading returns).
	if wc, ok := c.w.(io.Closer); ok {
		_ = wc.Close()
	}
	_ = c.out.Close()
	c.log.Debug("connection ended", "error", err)
}

// cancelCall cancels and forgets the tool call the host numbered id.
func (c *Conn) cancelCall(id uint64) {
	c.mu.Lock()
	tc := c.calls[id]
	delete(c.calls, id)
	c.mu.Unlock()
	if tc != nil {
		tc.cancel()
	}
}

// dispatch routes one message. Reader goroutine only.
func (c *Conn) dispatch(m protocol.Message) {
	switch m := m.(type) {
	case *protocol.ToolCancelled:
		c.cancelCall(m.ID)
	case *protocol.Output:
		c.event(Event{Kind: EventOutput, Session: m.Session, Cell: m.Cell, Items: m.Items})
	case *protocol.Notify:
		c.event(Event{Kind: EventNotify, Session: m.Session, Cell: m.Cell, Text: m.Text})
	case *protocol.CellClosed:
		c.cellClosed(cellKey{m.Session, m.Cell})
	case *protocol.Ping:
		c.send(&protocol.Pong{ID: m.ID})
	case *protocol.ExecStarted:
		c.reply(m.ID, answer{m: m})
	case *protocol.ErrorReply:
		if m.ID == 0 {
			c.log.Warn("error from the host", "code", m.Code, "message", m.Message)
			return
		}
		c.reply(m.ID, answer{m: m})
	case *protocol.CellResult:
		if len(m.Store) > 0 && c.cfg.onStore != nil {
			c.cfg.onStore(m.Session, m.Store)
		}
		c.reply(m.ID, answer{m: m})
	case protocol.Reply:
		c.reply(m.ReplyTo(), answer{m: m})
	default:
		c.log.Warn("unexpected message from the host", "t", m.Type())
	}
}

// reply hands a to the request it answers. An exec's first exec.started
// leaves the request pending; anything else ends it. It never blocks: an
// answer for no pending request (late, duplicate, or for an id never
// used) is dropped with a log.
func (c *Conn) reply(id uint64, a answer) {
	c.mu.Lock()
	r := c.pending[id]
	started, isStarted := a.m.(*protocol.ExecStarted)
	switch {
	case r == nil:
	case isStarted && r.exec && r.started:
		r = nil // a second exec.started: the request keeps its slot for the result
	case isStarted && r.exec:
		r.started = true
		if r.onEvent != nil {
			c.cells[cellKey{started.Session, started.Cell}] = r.onEvent
		}
	default:
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if r == nil {
		if a.m != nil {
			c.log.Debug("reply to no pending request dropped", "t", a.m.Type(), "id", id)
		}
		return
	}
	select {
	case r.ch <- a:
	default: // cannot happen (a slot per answer), but never block the reader
		c.log.Warn("extra reply dropped", "id", id)
	}
}

// badMessage handles a frame from the host that did not decode. A reply
// with a readable id fails the request it answers; a tool.call (the host's
// id space) is answered with a tool error, so the script's call rejects;
// anything else is logged. Reader goroutine only.
func (c *Conn) badMessage(err error) {
	var pe *protocol.ProtocolError
	if !errors.As(err, &pe) || pe.ID == 0 {
		c.log.Warn("bad frame from the host", "error", err)
		return
	}
	switch {
	case pe.Type == protocol.TypeToolCall:
		c.log.Warn("bad tool.call from the host", "id", pe.ID, "error", err)
		c.send(&protocol.ToolResult{ID: pe.ID, Error: &protocol.ToolError{Code: protocol.CodeInternal,
			Message: "bridge: the parent could not decode this tool call (" + pe.Error() + "); it was not run: this is a bug in the host, report it"}})
	case pe.Type == protocol.TypeToolCancelled: // the host's id space: cancel that call
		c.cancelCall(pe.ID)
	case pe.Type == protocol.TypePing:
		c.send(&protocol.Pong{ID: pe.ID})
	case protocol.SentBy(pe.Type) == protocol.FromParent:
		c.log.Warn("bad frame from the host", "error", err)
	default: // a reply, or a type we do not know that names one of our requests
		c.log.Warn("bad reply from the host", "t", pe.Type, "id", pe.ID, "error", err)
		c.reply(pe.ID, answer{err: &BadReplyError{Type: pe.Type, ID: pe.ID, Err: err}})
	}
}

func (c *Conn) event(e Event) {
	c.mu.Lock()
	f := c.cells[cellKey{e.Session, e.Cell}]
	c.mu.Unlock()
	if f != nil {
		f(e)
	}
}

// cellClosed forgets a cell and cancels its tool calls still running.
func (c *Conn) cellClosed(k cellKey) {
	c.mu.Lock()
	delete(c.cells, k)
	var stale []*toolCall
	for id, tc := range c.calls {
		if tc.cell == k {
			stale = append(stale, tc)
			delete(c.calls, id)
		}
	}
	c.mu.Unlock()
	for _, tc := range stale {
		tc.cancel()
	}
}

func (c *Conn) send(m protocol.Message) {
	if err := c.out.Send(m); err != nil {
		c.log.Debug("frame not sent", "t", m.Type(), "error", err)
	}
}

// runToolCall runs the executor and answers the call, unless the host
// cancelled it meanwhile.
func (c *Conn) runToolCall(ctx context.Context, cancel context.CancelFunc, m *protocol.ToolCallRequest) {
	defer cancel()
	value, err := protocol.Guard("the tool executor", func() (json.RawMessage, error) { return c.cfg.Executor.CallTool(ctx, m.ToolCall) })
	c.mu.Lock()
	_, live := c.calls[m.ID]
	delete(c.calls, m.ID)
	c.mu.Unlock()
	if !live {
		return // cancelled: the host no longer wants it
	}
	res := &protocol.ToolResult{ID: m.ID}
	switch {
	case err != nil:
		res.Error = protocol.AsToolError(err, m.QualifiedName())
	case len(value) > 0 && !protocol.ValidJSON(value):
		res.Error = &protocol.ToolError{Code: protocol.CodeInternal, Tool: m.QualifiedName(),
			Message: "the tool returned invalid JSON; fix the tool's executor"}
	default:
		res.Value = value
	}
	if err := c.out.SendInline(res); err != nil {
		c.log.Warn("tool result not sent", "tool", m.QualifiedName(), "error", err)
		c.send(&protocol.ToolResult{ID: m.ID, Error: &protocol.ToolError{Code: protocol.CodeInternal,
			Tool: m.QualifiedName(), Message: "bridge: the tool's result could not be sent: " + err.Error()}})
	}
}

// start registers a request and sends it.
func (c *Conn) start(m protocol.Request, onEvent func(Event)) (*request, error) {
	_, isExec := m.(*protocol.Exec)
	slots := 1
	if isExec {
		slots = 2
	}
	r := &request{ch: make(chan answer, slots), exec: isExec, onEvent: onEvent}
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return nil, c.err
	default:
	}
	c.pending[m.RequestID()] = r
	c.mu.Unlock()
	// The reply needs a reader: when the executor itself makes this
	// request, the reader is the goroutine now waiting for it.
	c.rd.handOff(c)
	if err := c.out.Send(m); err != nil {
		c.mu.Lock()
		delete(c.pending, m.RequestID())
		c.mu.Unlock()
		select {
		case <-c.done:
			return nil, c.err
		default:
		}
		if errors.Is(err, protocol.ErrSenderClosed) {
			return nil, ErrClosed
		}
		return nil, fmt.Errorf("bridge: sending %s: %w", m.Type(), err)
	}
	return r, nil
}

// errGaveUp is await's error when its giveUp channel fired.
var errGaveUp = errors.New("bridge: gave up waiting")

// await returns the next reply of r, or the error of a reply that could
// not be decoded, or the connection's error, or ctx's, or errGaveUp when
// giveUp fires (a nil giveUp never does).
func (c *Conn) await(ctx context.Context, r *request, giveUp <-chan time.Time) (protocol.Message, error) {
	select {
	case a := <-r.ch:
		return a.m, a.err
	case <-c.done:
		select {
		case a := <-r.ch:
			return a.m, a.err
		default:
			return nil, c.err
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-giveUp:
		return nil, errGaveUp
	}
}

// call sends a request and waits for its one reply; an error reply
// becomes a *protocol.ProtocolError.
func (c *Conn) call(ctx context.Context, m protocol.Request) (protocol.Message, error) {
	r, err := c.start(m, nil)
	if err != nil {
		return nil, err
	}
	reply, err := c.await(ctx, r, nil)
	if err != nil {
		c.forget(m.RequestID())
		return nil, err
	}
	if e, ok := reply.(*protocol.ErrorReply); ok {
		return nil, e.Err()
	}
	return reply, nil
}

func (c *Conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// OpenSession opens session id with optional limits (they can only
// tighten the host's) and an initial store (needs the store capability).
func (c *Conn) OpenSession(ctx context.Context, id string, limits *protocol.Limits, store []protocol.StoreEntry) (*protocol.SessionOpened, error) {
	reply, err := c.call(ctx, &protocol.OpenSession{ID: c.nextID.Add(1), Session: id, Limits: limits, Store: store})
	if err != nil {
		return nil, err
	}
	return expectReply[*protocol.SessionOpened](reply)
}

// CloseSession terminates the session's cells and closes it.
func (c *Conn) CloseSession(ctx context.Context, id string) error {
	reply, err := c.call(ctx, &protocol.CloseSession{ID: c.nextID.Add(1), Session: id})
	if err != nil {
		return err
	}
	_, err = expectReply[*protocol.SessionClosed](reply)
	return err
}

// Exec runs a cell in session and returns its first result: the final
// one, or status yielded when the cell outlives req.Yield (then call Wait).
// When ctx ends before a result arrives, Exec terminates the cell and
// returns the terminated result; if the host does not answer within
// ConnConfig.TerminateGrace after that, Exec gives up: the connection
// ends and Exec returns its error, a *HostDiedError wrapping a
// *HostUnresponsiveError (which wraps ctx.Err()). Other errors are a
// *protocol.ProtocolError (the host refused the request), a
// *BadReplyError (its answer could not be decoded) or the connection's
// error.
func (c *Conn) Exec(ctx context.Context, session string, req ExecRequest) (*protocol.CellResult, error) {
	m := &protocol.Exec{ID: c.nextID.Add(1), Session: session, Source: req.Source, Language: req.Language,
		Filename: req.Filename, Tools: req.Tools, YieldMS: uint64(req.Yield.Milliseconds()),
		MaxOutputTokens: req.MaxOutputTokens, Limits: req.Limits, Stream: req.Stream}
	r, err := c.start(m, req.OnEvent)
	if err != nil {
		return nil, err
	}
	var cell string
	var giveUp <-chan time.Time
	var ctxErr error // ctx's error once it ended: the cell is being stopped
	for {
		reply, err := c.await(ctx, r, giveUp)
		if err == errGaveUp {
			c.forget(m.ID)
			c.abandon(&HostUnresponsiveError{Request: m.Type(), Grace: c.cfg.TerminateGrace, Err: ctxErr})
			return nil, c.err
		}
		if err != nil {
			if ctxErr != nil || ctx.Err() == nil {
				c.forget(m.ID)
				return nil, err
			}
			// ctx ended: stop the cell (now, or once it exists); its
			// result answers this exec, within the grace.
			ctxErr = ctx.Err()
			if cell != "" {
				c.terminateAsync(session, cell)
			}
			ctx = context.WithoutCancel(ctx)
			t := time.NewTimer(c.cfg.TerminateGrace)
			defer t.Stop()
			giveUp = t.C
			continue
		}
		switch reply := reply.(type) {
		case *protocol.ExecStarted:
			cell = reply.Cell
			if ctxErr != nil {
				c.terminateAsync(session, cell)
			}
		case *protocol.CellResult:
			return reply, nil
		case *protocol.ErrorReply:
			return nil, reply.Err()
		default:
			return nil, fmt.Errorf("bridge: the host answered exec with %s", reply.Type())
		}
	}
}

// terminateAsync asks the host to stop a cell without waiting.
func (c *Conn) terminateAsync(session, cell string) {
	m := &protocol.Terminate{ID: c.nextID.Add(1), Session: session, Cell: cell}
	if _, err := c.start(m, nil); err != nil {
		c.log.Debug("terminate not sent", "error", err)
		return
	}
	// The reply lands in the request's buffered channel; drop the entry
	// when it comes (reply deletes final entries itself).
}

// Wait waits for a yielded cell: it returns the output made since the
// previous result as soon as something new happens (new output, a notify,
// the cell's end; status yielded unless it ended), or when yield passes
// (default 10s).
func (c *Conn) Wait(ctx context.Context, session, cell string, yield time.Duration) (*protocol.CellResult, error) {
	return c.WaitFor(ctx, session, WaitRequest{Cell: cell, Yield: yield})
}

// WaitRequest is a wait on a running cell.
type WaitRequest struct {
	// Cell is the cell to wait on. Required.
	Cell string
	// Yield is how long to wait before the reply says yielded; 0 means
	// protocol.DefaultYieldMS.
	Yield time.Duration
	// Quiet: new output and notify do not answer the wait; it returns at
	// the cell's end, when Yield passes, or on yield_control() (see
	// protocol.Wait.Quiet). Use it for a model's wait.
	Quiet bool
	// MaxOutputTokens is this result's output budget; 0 means the cell's
	// (which it can only tighten).
	MaxOutputTokens uint32
}

// WaitFor is Wait with every option of a wait request.
func (c *Conn) WaitFor(ctx context.Context, session string, w WaitRequest) (*protocol.CellResult, error) {
	reply, err := c.call(ctx, &protocol.Wait{ID: c.nextID.Add(1), Session: session, Cell: w.Cell,
		YieldMS: uint64(w.Yield.Milliseconds()), Quiet: w.Quiet, MaxOutputTokens: w.MaxOutputTokens})
	if err != nil {
		return nil, err
	}
	return expectReply[*protocol.CellResult](reply)
}

// Terminate stops a cell and returns its final result.
func (c *Conn) Terminate(ctx context.Context, session, cell string) (*protocol.CellResult, error) {
	reply, err := c.call(ctx, &protocol.Terminate{ID: c.nextID.Add(1), Session: session, Cell: cell})
	if err != nil {
		return nil, err
	}
	return expectReply[*protocol.CellResult](reply)
}

// Ping checks that the host answers.
func (c *Conn) Ping(ctx context.Context) error {
	reply, err := c.call(ctx, &protocol.Ping{ID: c.nextID.Add(1)})
	if err != nil {
		return err
	}
	_, err = expectReply[*protocol.Pong](reply)
	return err
}

// Close asks the host to shut down (cells get grace to finish, then are
// terminated), waits for the end of its output up to grace + 2s, then
// closes the writer and fails whatever is still pending with ErrClosed.
func (c *Conn) Close(grace time.Duration) error {
	c.closing.Store(true)
	c.rd.handOff(c)
	c.send(&protocol.Shutdown{GraceMS: uint64(grace.Milliseconds())})
	select {
	case <-c.done:
	case <-time.After(grace + 2*time.Second):
	}
	c.shutdown(ErrClosed)
	return nil
}

// abandon gives up on the host: the connection ends with err (through
// onDeath, so the Client adds how the process ended), the Client kills
// the process, and the reader is released by closing its input. Any
// goroutine.
func (c *Conn) abandon(err error) {
	c.log.Warn("giving up on the host", "error", err)
	c.gaveUp.CompareAndSwap(nil, &err)
	if c.cfg.onAbandon != nil {
		c.cfg.onAbandon()
	}
	c.shutdown(c.died(err))
	if rc, ok := c.r.(io.Closer); ok {
		_ = rc.Close()
	}
}

func expectReply[T protocol.Message](m protocol.Message) (T, error) {
	v, ok := m.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("bridge: the host answered with %s, expected %T", m.Type(), zero)
	}
	return v, nil
}
