package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-host/codemode-host/registry"
)

// clientName is how the adapter introduces itself to servers.
const clientName = "codemode-host"

// Server is one attached MCP server: its connection and the tools it
// registered. Its methods are safe from any goroutine.
type Server struct {
	cfg ServerConfig
	reg *registry.Registry
	log hclog.Logger

	// ready is closed once the server is connected and its tools are
	// registered, or once connecting failed (err says why).
	ready chan struct{}
	// done is closed once the server is gone: it exited, failed to
	// connect, or was closed. Its tools are removed by then.
	done chan struct{}
	// life is cancelled by Close and ends every background goroutine.
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// refresh asks the refresh goroutine to list the tools again.
	refresh chan struct{}

	proc   *commandTransport // nil unless cfg.Command
	stderr *stderrTail
	// listing keeps the tools as the server listed them (JSON text).
	listing listing

	progressSeq atomic.Uint64
	// progress maps a call's progress token to its context.
	progress sync.Map

	mu        sync.Mutex
	session   *sdk.ClientSession
	err       error
	closed    bool
	readyOnce sync.Once
	doneOnce  sync.Once
	tools     map[string]*tool
	order     []string
	desc      string
	// instructions are the server's, from initialize, bounded.
	instructions string
}

// Attach starts connecting to the server cfg describes and returns at once.
// The server's tools are registered in reg, in namespace
// Namespace(cfg.Name), as soon as it lists them (cfg.Tools, if given, are
// registered before Attach returns); calls made before it is ready wait for
// it. ctx bounds connecting only, together with cfg.ConnectTimeout;
// cancelling it later does not close the server. When the server exits its
// tools are removed and calls in flight fail with a *protocol.ToolError.
// Call Close when done. Safe from any goroutine.
func Attach(ctx context.Context, reg *registry.Registry, cfg ServerConfig) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		reg:     reg,
		log:     cfg.logger(),
		ready:   make(chan struct{}),
		done:    make(chan struct{}),
		refresh: make(chan struct{}, 1),
		tools:   make(map[string]*tool),
		desc:    cfg.Description,
	}
	s.life, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	transport, proc, tail := newTransport(&s.cfg, s.log, &s.listing)
	s.proc, s.stderr = proc, tail
	if recordable(transport) {
		transport = recordingTransport{Transport: transport, listing: &s.listing}
	}
	if len(cfg.Tools) > 0 {
		s.apply(cfg.Tools)
	}
	s.wg.Add(1)
	go s.run(ctx, transport)
	return s, nil
}

// Connect is Attach that returns once the server is connected and its
// tools are registered. If connecting fails or ctx ends first, the server
// is closed and Connect returns why. Safe from any goroutine.
func Connect(ctx context.Context, reg *registry.Registry, cfg ServerConfig) (*Server, error) {
	s, err := Attach(ctx, reg, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.WaitUntilReady(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// Name is the server's name.
func (s *Server) Name() string { return s.cfg.Name }

// Namespace is the namespace of the server's tools ("mcp__<name>__").
func (s *Server) Namespace() string { return Namespace(s.cfg.Name) }

// Ready is closed once the server is connected and its tools are
// registered, or once connecting failed (see Err).
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Done is closed once the server is gone (it exited, failed to connect, or
// was closed); its tools are removed by then.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err says why the server is not usable: it failed to connect, exited, or
// was closed. It is nil while the server is connecting or connected.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// WaitUntilReady waits until the server is connected and its tools are
// registered. It returns Err if the server is gone, or ctx's error.
func (s *Server) WaitUntilReady(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.Err()
	case <-ctx.Done():
		return fmt.Errorf("mcp: server %q is not ready yet: %w", s.cfg.Name, context.Cause(ctx))
	}
}

// Tools is the server's current tool listing, in its order. The values
// must not be modified.
func (s *Server) Tools() []*sdk.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*sdk.Tool, 0, len(s.order))
	for _, name := range s.order {
		out = append(out, s.tools[name].def)
	}
	return out
}

// Instructions are the instructions the server sent when it connected,
// cut to their first 2,000 characters; "" before it connected or when it
// sent none. Unless ServerConfig.Description is set they describe the
// server's namespace (tool_search, the exec description).
func (s *Server) Instructions() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.instructions
}

// ListedTools is the server's current tool listing as JSON text, each
// tool exactly as the server sent it in tools/list (its key order kept),
// in its order. Tools registered from ServerConfig.Tools, and tools of a
// server behind a ServerConfig.Transport of the SDK's streamable HTTP
// kind, have no text and are left out.
func (s *Server) ListedTools() []json.RawMessage {
	s.mu.Lock()
	order := slices.Clone(s.order)
	s.mu.Unlock()
	return s.listing.raw(order)
}

// Lookup is the MCP definition of the server's tool registered as name
// (annotations, title, schemas as listed), if the server lists it. The
// value must not be modified.
func (s *Server) Lookup(name registry.ToolName) (*sdk.Tool, bool) {
	if name.Namespace != s.Namespace() {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tools[name.Name]; t != nil {
		return t.def, true
	}
	return nil, false
}

// Refresh lists the server's tools again and updates the registry, as the
// server's tools/list_changed notification does.
func (s *Server) Refresh(ctx context.Context) error {
	sess, err := s.liveSession(ctx)
	if err != nil {
		return err
	}
	return s.list(ctx, sess)
}

// Close removes the server's tools, fails its calls in flight, ends the
// connection and stops the server's process (waiting up to
// cfg.StopTimeout for it to exit on its own). Later calls do nothing.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.closed = true
	if s.err == nil {
		s.err = fmt.Errorf("mcp: server %q was closed", s.cfg.Name)
	}
	sess := s.session
	s.mu.Unlock()
	s.cancel()
	s.reg.RemoveServer(s.cfg.Name)
	var err error
	if sess != nil {
		err = sess.Close()
	}
	s.wg.Wait()
	s.finish()
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		s.log.Debug("closing the session", "error", err)
	}
	return nil
}

// run connects, registers the tools, then waits for the session to end.
func (s *Server) run(ctx context.Context, transport sdk.Transport) {
	defer s.wg.Done()
	cctx, stop := context.WithTimeout(ctx, s.cfg.connectTimeout())
	defer stop()
	stopOnClose := context.AfterFunc(s.life, stop)
	defer stopOnClose()

	client := sdk.NewClient(&sdk.Implementation{Name: clientName}, &sdk.ClientOptions{
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.askRefresh() },
		ProgressNotificationHandler: s.onProgress,
	})
	sess, err := client.Connect(cctx, transport, nil)
	if err != nil {
		s.fail(s.explain("could not connect", err, cctx))
		return
	}
	s.mu.Lock()
	s.session = sess
	closed := s.closed
	if init := sess.InitializeResult(); init != nil {
		s.instructions = boundInstructions(init.Instructions)
	}
	if s.desc == "" {
		s.desc = s.instructions
	}
	s.mu.Unlock()
	if closed { // Close ran while connecting and did not see the session.
		_ = sess.Close()
		return
	}
	if err := s.list(cctx, sess); err != nil {
		_ = sess.Close()
		s.fail(s.explain("could not list its tools", err, cctx))
		return
	}
	s.log.Debug("connected", "tools", len(s.Tools()))
	s.readyOnce.Do(func() { close(s.ready) })
	stop()

	s.wg.Add(1)
	go s.refreshLoop(sess)
	werr := sess.Wait()
	s.mu.Lock()
	closed = s.closed
	s.mu.Unlock()
	if closed {
		return
	}
	_ = sess.Close() // stops and reaps the process, so its exit status is known
	err = s.exitError(werr)
	s.log.Warn("server left; its tools were removed", "error", err)
	s.fail(err)
}

// explain turns a connection failure into an error that says what to fix.
func (s *Server) explain(what string, err error, ctx context.Context) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && s.life.Err() == nil {
		err = fmt.Errorf("%w (gave up waiting; for a slow server raise ServerConfig.ConnectTimeout, now %s, or the context's deadline)", err, s.cfg.connectTimeout())
	}
	if tail := s.stderr.String(); tail != "" {
		return fmt.Errorf("mcp: server %q %s: %v; its stderr ends with: %s", s.cfg.Name, what, err, tail)
	}
	return fmt.Errorf("mcp: server %q %s: %v", s.cfg.Name, what, err)
}

// exitError says why the session ended on the server's side.
func (s *Server) exitError(werr error) error {
	why := "closed the connection"
	if s.proc != nil {
		why = "exited"
		if st, ok := s.proc.exitStatus(exitGrace); ok {
			why = "exited (" + st + ")"
		}
	}
	if werr != nil && !errors.Is(werr, sdk.ErrConnectionClosed) {
		why += ": " + werr.Error()
	}
	if tail := s.stderr.String(); tail != "" {
		why += "; its stderr ends with: " + tail
	}
	return fmt.Errorf("mcp: server %q %s", s.cfg.Name, why)
}

// fail records why the server is gone, removes its tools and releases
// everyone waiting for it.
func (s *Server) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.tools, s.order = map[string]*tool{}, nil
	s.mu.Unlock()
	s.reg.RemoveServer(s.cfg.Name)
	s.cancel()
	s.finish()
}

// finish closes ready and done and stops what is left of the process.
func (s *Server) finish() {
	s.readyOnce.Do(func() { close(s.ready) })
	s.doneOnce.Do(func() {
		if s.proc != nil && s.proc.cmd.Process != nil {
			killProcessGroup(s.proc.cmd)
		}
		close(s.done)
	})
}

// liveSession waits until the server is ready and returns its session.
func (s *Server) liveSession(ctx context.Context) (*sdk.ClientSession, error) {
	if err := s.WaitUntilReady(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return s.session, nil
}

func (s *Server) askRefresh() {
	select {
	case s.refresh <- struct{}{}:
	default: // a refresh is already due
	}
}

// refreshLoop lists the tools again after each list-changed notification.
func (s *Server) refreshLoop(sess *sdk.ClientSession) {
	defer s.wg.Done()
	for {
		select {
		case <-s.life.Done():
			return
		case <-s.refresh:
		}
		ctx, stop := context.WithTimeout(s.life, s.cfg.connectTimeout())
		if err := s.list(ctx, sess); err != nil && s.life.Err() == nil {
			s.log.Warn("refreshing the tool list failed; keeping the old one", "error", err)
		}
		stop()
	}
}

// list fetches every page of the server's tools and applies them. A
// server that does not offer tools has none.
func (s *Server) list(ctx context.Context, sess *sdk.ClientSession) error {
	if init := sess.InitializeResult(); init != nil && init.Capabilities != nil && init.Capabilities.Tools == nil {
		s.apply(nil)
		return nil
	}
	var defs []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		defs = append(defs, t)
	}
	s.apply(defs)
	return nil
}

// apply makes the registry match defs: tools that left or changed are
// removed, new and changed ones added, unchanged ones kept as they are.
func (s *Server) apply(defs []*sdk.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	next := make(map[string]*tool, len(defs))
	order := make([]string, 0, len(defs))
	var added []registry.Tool
	for _, def := range defs {
		if def == nil || next[def.Name] != nil {
			continue
		}
		t := newTool(s, def)
		if old := s.tools[def.Name]; old != nil && old.sameAs(t) {
			t = old
		} else {
			added = append(added, t)
		}
		next[def.Name] = t
		order = append(order, def.Name)
	}
	for name, old := range s.tools {
		if next[name] != old {
			s.removeLocked(old)
		}
	}
	if len(added) > 0 {
		srv := registry.Server{Name: s.cfg.Name, Description: s.desc, Policy: s.cfg.Policy}
		if n := s.reg.AddServer(srv, added); n < len(added) {
			s.log.Warn("some tools were not registered (name taken or invalid spec)", "listed", len(added), "registered", n)
		}
	}
	s.tools, s.order = next, order
	s.log.Debug("tool list applied", "tools", len(order), "added", len(added))
	if s.cfg.OnToolsChanged != nil {
		s.cfg.OnToolsChanged(slices.Clone(order))
	}
}

// removeLocked removes t from the registry if it is the tool registered
// under its name (another server may own the name).
func (s *Server) removeLocked(t *tool) {
	if info, ok := s.reg.Lookup(t.spec.Name); ok && info.Server == s.cfg.Name {
		s.reg.Remove(t.spec.Name)
	}
}

// onProgress forwards a progress notification to the call that asked for
// it. Called from the session's notification goroutine.
func (s *Server) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	if v, ok := s.progress.Load(token); ok {
		registry.ReportProgress(v.(context.Context), registry.Progress{
			Progress: req.Params.Progress,
			Total:    req.Params.Total,
			Message:  req.Params.Message,
		})
	}
}

// trackProgress gives a call a progress token whose notifications are
// reported to ctx; untrack with the returned function.
func (s *Server) trackProgress(ctx context.Context) (string, func()) {
	token := clientName + "-" + strconv.FormatUint(s.progressSeq.Add(1), 10)
	s.progress.Store(token, ctx)
	return token, func() { s.progress.Delete(token) }
}
