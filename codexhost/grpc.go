package codexhost

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/codemode-host/codemode-host/codexhost/codexpb"
	"github.com/codemode-host/codemode-host/protocol"
)

// ServeGRPC serves Codex's gRPC service codex.code_mode.v1.CodeModeHost
// (what `codex-code-mode-host --listen grpc+stdio://` and `grpc://`
// serve) on l until l fails; a listener from OneConn fails once its one
// connection closed, and ServeGRPC then returns nil. The sessions, cells
// and their rules are v1's (server.go, cell.go); grpcOut turns what they
// report into stream messages.
func ServeGRPC(l net.Listener, cfg Config) error {
	s := newServer(cfg)
	g := &grpcOut{s: s, invocations: map[int64]string{}, byInvocation: map[string]invocationRef{}}
	s.out = g
	defer s.closeRuntime()
	gs := grpc.NewServer(grpc.MaxRecvMsgSize(MaxFrame), grpc.MaxSendMsgSize(MaxFrame), grpc.StatsHandler(afterRPCs{}))
	codexpb.RegisterCodeModeHostServer(gs, &grpcService{s: s, g: g})
	err := gs.Serve(l)
	gs.Stop()
	s.mu.Lock()
	for _, sess := range s.sessions {
		g.closeSession(sess)
	}
	s.mu.Unlock()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// OneConn is a listener that accepts c once; the next Accept waits for
// c to close, then fails with net.ErrClosed. It is how grpc+stdio://
// serves exactly the one connection of the stdin/stdout pipe pair and
// ends when it drops.
func OneConn(c net.Conn) net.Listener {
	return &oneConn{c: c, closed: make(chan struct{})}
}

type oneConn struct {
	c      net.Conn
	once   sync.Once
	given  bool
	mu     sync.Mutex
	closed chan struct{}
}

// Accept implements net.Listener.
func (l *oneConn) Accept() (net.Conn, error) {
	l.mu.Lock()
	given := l.given
	l.given = true
	l.mu.Unlock()
	if !given {
		return &watchedConn{Conn: l.c, l: l}, nil
	}
	<-l.closed
	return nil, net.ErrClosed
}

// Close implements net.Listener.
func (l *oneConn) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr implements net.Listener.
func (l *oneConn) Addr() net.Addr { return l.c.LocalAddr() }

// watchedConn closes its listener when it closes.
type watchedConn struct {
	net.Conn
	l *oneConn
}

func (c *watchedConn) Close() error {
	err := c.Conn.Close()
	c.l.Close()
	return err
}

// observed is a gRPC observer's answer: a runtime response, or the
// status that ends its call.
type observed struct {
	variant string
	body    any
	err     error
}

// obsKey names a gRPC observer: an Execute by its execution_id, a Wait
// by its wait_id.
type obsKey struct {
	session, kind, id string
}

// grpcSession is a session's gRPC side.
type grpcSession struct {
	events  *queue[sessionItem] // the OpenSession stream
	subs    []*subscription
	execIDs map[string]bool // execution ids used so far
	// maxPending is OpenSession's max_pending_delegate_calls (0: no
	// such limit); pending counts the tool calls not yet answered.
	maxPending uint32
	pending    int
	ended      chan struct{} // closed when the OpenSession call returned
}

// sessionItem is an event for the session stream; after runs once it
// was sent (or dropped with the stream).
type sessionItem struct {
	ev    *codexpb.SessionEvent
	after func()
}

// subscription is one SubscribeToToolCalls stream.
type subscription struct {
	names []*codexpb.ToolName // empty: every tool
	calls *queue[*codexpb.ToolCall]
}

// matches reports whether the subscription takes calls of the tool.
func (sub *subscription) matches(n toolName) bool {
	if len(sub.names) == 0 {
		return true
	}
	for _, want := range sub.names {
		if want.GetName() == n.Name && (want.Namespace == nil) == (n.Namespace == nil) && (n.Namespace == nil || *want.Namespace == *n.Namespace) {
			return true
		}
	}
	return false
}

// grpcOut sends what cells report on the session's gRPC streams; its
// maps are guarded by s.mu.
type grpcOut struct {
	s            *server
	invocations  map[int64]string // delegate id → invocation_id
	byInvocation map[string]invocationRef
}

// invocationRef is what an invocation_id names: a delegate of a session.
type invocationRef struct {
	id      int64
	session *session
}

func (g *grpcOut) reply(o *observer, variant string, body any) {
	o.ch <- observed{variant: variant, body: body} // buffered: one answer per observer
}

// result sends cell_closed on the session stream, then the outcome
// (Codex's host's order: codex waits for both).
func (g *grpcOut) result(o *observer, body resultBody) {
	c := o.c
	c.sess.g.events.push(sessionItem{ev: cellClosed(c), after: func() { g.reply(o, "Result", body) }})
}

func (g *grpcOut) closed(c *cell) {
	c.sess.g.events.push(sessionItem{ev: cellClosed(c)})
}

func cellClosed(c *cell) *codexpb.SessionEvent {
	return &codexpb.SessionEvent{Event: &codexpb.SessionEvent_CellClosed{CellClosed: &codexpb.CellClosed{
		ExecutionId: c.execID, CellId: c.id, FinalToolCallSequence: uint64(c.calls)}}}
}

// toolCall routes the call to the first subscription that matches its
// tool, as a ToolCall with a new invocation_id.
func (g *grpcOut) toolCall(c *cell, id int64, inv invocation) *protocol.ToolError {
	if sg := c.sess.g; sg.maxPending > 0 && sg.pending >= int(sg.maxPending) {
		return &protocol.ToolError{Code: protocol.CodeLimitExceeded, Message: "code-mode session has too many pending delegate calls"}
	}
	for _, sub := range c.sess.g.subs {
		if !sub.matches(inv.ToolName) {
			continue
		}
		inID := newUUID()
		g.invocations[id] = inID
		g.byInvocation[inID] = invocationRef{id, c.sess}
		c.sess.g.pending++
		kind := codexpb.ToolKind_TOOL_KIND_FUNCTION
		if inv.ToolKind == string(protocol.KindFreeform) {
			kind = codexpb.ToolKind_TOOL_KIND_FREEFORM
		}
		sub.calls.push(&codexpb.ToolCall{SessionId: c.sess.id, ExecutionId: c.execID, CellId: c.id, InvocationId: inID,
			RuntimeToolCallId: inv.RuntimeToolCallID, ToolName: &codexpb.ToolName{Name: inv.ToolName.Name, Namespace: inv.ToolName.Namespace},
			ToolKind: kind, InputJson: inv.Input, Sequence: uint64(c.calls)})
		return nil
	}
	return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: "no code-mode tool subscription matches the requested tool"}
}

// answered forgets the delegate id; its invocation_id stays known, so
// that a late CompleteToolCall for it is OK, as with Codex's host.
func (g *grpcOut) answered(id int64) {
	if inID, ok := g.invocations[id]; ok {
		g.byInvocation[inID].session.g.pending--
		delete(g.invocations, id)
	}
}

func (g *grpcOut) cancel(c *cell, id int64) {
	inID := g.invocations[id]
	g.answered(id)
	c.sess.g.events.push(sessionItem{ev: &codexpb.SessionEvent{Event: &codexpb.SessionEvent_ToolCallCancelled{
		ToolCallCancelled: &codexpb.ToolCallCancelled{InvocationId: inID}}}})
}

// notify sends a notification event; unlike v1, nothing waits for its
// acknowledgement (codex 0.169 sends none).
func (g *grpcOut) notify(c *cell, text string) {
	c.sess.g.events.push(sessionItem{ev: &codexpb.SessionEvent{Event: &codexpb.SessionEvent_Notification{Notification: &codexpb.Notification{
		NotificationId: newUUID(), ExecutionId: c.execID, CellId: c.id, CallId: c.toolCallID, Text: text}}}})
}

// closeSession ends the session (CloseSession, a dropped lease, the
// connection gone) as Codex's host does: its cells stop with no
// tool_call_cancelled or cell_closed, an Execute or Wait observing one
// fails with UNKNOWN "EOF" (what a grpc-go client reads from Codex's
// host), and its streams end. Caller holds s.mu.
func (g *grpcOut) closeSession(sess *session) {
	for _, c := range sess.cells {
		if o := c.obs; o != nil {
			o.end()
			o.ch <- observed{err: status.Error(codes.Unknown, "EOF")}
		}
		for id, d := range g.s.delegates {
			if d.c == c {
				delete(g.s.delegates, id)
				g.answered(id)
			}
		}
		c.remove()
		if c.rc != nil {
			c.rc.Terminate()
		}
	}
	for inID, ref := range g.byInvocation {
		if ref.session == sess {
			delete(g.byInvocation, inID)
		}
	}
	delete(g.s.sessions, sess.id)
	sess.g.events.close()
	for _, sub := range sess.g.subs {
		sub.calls.close()
	}
	sess.g.subs = nil
}

// grpcService implements codexpb.CodeModeHostServer.
type grpcService struct {
	codexpb.UnimplementedCodeModeHostServer
	s *server
	g *grpcOut
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

// newUUID is a random (version 4) UUID, the form of the ids Codex's host
// chooses.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// lockSession locks s.mu and finds the open gRPC session id names, with
// Codex's statuses; when it returns an error, the lock is released
// again.
func (svc *grpcService) lockSession(id string) (*session, error) {
	if !uuidRE.MatchString(id) {
		return nil, status.Error(codes.InvalidArgument, "code-mode session ID must be a UUID")
	}
	svc.s.mu.Lock()
	sess := svc.s.sessions[id]
	if sess == nil || sess.g == nil {
		svc.s.mu.Unlock()
		return nil, status.Error(codes.NotFound, "unknown code-mode session "+id)
	}
	return sess, nil
}

// GetProcessMetrics is refused, as by Codex's 0.169.0 host.
func (svc *grpcService) GetProcessMetrics(context.Context, *codexpb.GetProcessMetricsRequest) (*codexpb.GetProcessMetricsResponse, error) {
	return nil, status.Error(codes.Unimplemented, "process metrics are unsupported")
}

// OpenSession opens a session; the stream is its lease: its first event
// names the session, later ones are its notifications, cancelled tool
// calls and closed cells. Dropping it closes the session.
func (svc *grpcService) OpenSession(req *codexpb.OpenSessionRequest, stream codexpb.CodeModeHost_OpenSessionServer) error {
	truncation := "client"
	switch req.GetOutputTruncation() {
	case codexpb.OutputTruncation_OUTPUT_TRUNCATION_UNSPECIFIED, codexpb.OutputTruncation_OUTPUT_TRUNCATION_CLIENT:
	case codexpb.OutputTruncation_OUTPUT_TRUNCATION_SERVER:
		truncation = "server"
	default:
		return status.Error(codes.InvalidArgument, "unknown code-mode output truncation mode")
	}
	if req.MaxPendingDelegateCalls != nil && *req.MaxPendingDelegateCalls == 0 {
		return status.Error(codes.InvalidArgument, "callback capacity must be positive")
	}
	var limits *limitsWire
	if l := req.GetCellExecutionLimits(); l != nil {
		limits = &limitsWire{MaxYieldTimeMS: l.MaxYieldTimeMs, MaxHeapSizeBytes: l.MaxHeapSizeBytes}
	}
	s := svc.s
	s.mu.Lock()
	if msg := s.sessionLimit(); msg != "" {
		s.mu.Unlock()
		return status.Error(codes.ResourceExhausted, msg)
	}
	sess := newSession(newUUID(), truncation, limits)
	sess.g = &grpcSession{events: newQueue[sessionItem](), execIDs: map[string]bool{}, ended: make(chan struct{}), maxPending: req.GetMaxPendingDelegateCalls()}
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	defer close(sess.g.ended)

	opened := &codexpb.SessionOpened{SessionId: sess.id}
	if truncation == "server" {
		opened.OutputTruncation = codexpb.OutputTruncation_OUTPUT_TRUNCATION_SERVER
	}
	err := stream.Send(&codexpb.SessionEvent{Event: &codexpb.SessionEvent_Opened{Opened: opened}})
	for err == nil {
		it, more := sess.g.events.pop(stream.Context())
		if !more {
			break
		}
		err = stream.Send(it.ev)
		if it.after != nil {
			it.after()
		}
	}
	if err == nil && sess.g.events.isClosed() {
		return nil // CloseSession
	}
	// The lease dropped: the session closes.
	s.mu.Lock()
	if s.sessions[sess.id] == sess {
		svc.g.closeSession(sess)
	}
	s.mu.Unlock()
	for _, it := range sess.g.events.drain() {
		if it.after != nil {
			it.after()
		}
	}
	if err == nil {
		err = stream.Context().Err()
	}
	return err
}

// CloseSession stops the session's cells, ends its streams with OK, then
// answers.
func (svc *grpcService) CloseSession(ctx context.Context, req *codexpb.CloseSessionRequest) (*codexpb.CloseSessionResponse, error) {
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	svc.g.closeSession(sess)
	svc.s.mu.Unlock()
	// The lease stream ends first (it sends what is queued, then OK).
	select {
	case <-sess.g.ended:
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
	return &codexpb.CloseSessionResponse{}, nil
}

// SubscribeToToolCalls streams the session's tool calls whose tool the
// filter names (all when it names none). Its response headers go at
// once: codex waits for them before it executes.
func (svc *grpcService) SubscribeToToolCalls(req *codexpb.SubscribeToToolCallsRequest, stream codexpb.CodeModeHost_SubscribeToToolCallsServer) error {
	s := svc.s
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return err
	}
	sub := &subscription{names: req.GetToolNames(), calls: newQueue[*codexpb.ToolCall]()}
	sess.g.subs = append(sess.g.subs, sub)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		sess.g.subs = slices.DeleteFunc(sess.g.subs, func(x *subscription) bool { return x == sub })
		s.mu.Unlock()
	}()
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	for {
		call, more := sub.calls.pop(stream.Context())
		if !more {
			if sub.calls.isClosed() {
				return nil
			}
			return stream.Context().Err()
		}
		if err := stream.Send(call); err != nil {
			return err
		}
	}
}

// CompleteToolCall answers a tool call by its invocation_id.
func (svc *grpcService) CompleteToolCall(_ context.Context, req *codexpb.CompleteToolCallRequest) (*codexpb.CompleteToolCallResponse, error) {
	s := svc.s
	if _, err := svc.lockSession(req.GetSessionId()); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ref, found := svc.g.byInvocation[req.GetInvocationId()]
	if !found || ref.session.id != req.GetSessionId() {
		return nil, status.Error(codes.NotFound, "unknown code-mode tool invocation "+req.GetInvocationId())
	}
	id := ref.id
	del := s.delegates[id]
	if del == nil {
		return &codexpb.CompleteToolCallResponse{}, nil // answered, cancelled or its cell gone
	}
	var d delegateResp
	switch o := req.GetOutcome().(type) {
	case *codexpb.CompleteToolCallRequest_Succeeded:
		d = delegateResp{OK: true, Kind: "tool/result", Result: json.RawMessage(o.Succeeded.GetOutputJson())}
		if len(d.Result) == 0 {
			d.Result = json.RawMessage("null")
		}
		if !json.Valid(d.Result) {
			return nil, status.Error(codes.InvalidArgument, "tool call output_json is not JSON")
		}
	case *codexpb.CompleteToolCallRequest_Failed:
		d = delegateResp{Error: o.Failed.GetMessage()}
	default:
		return nil, status.Error(codes.InvalidArgument, "missing code-mode tool call outcome")
	}
	delete(s.delegates, id)
	svc.g.answered(id)
	answerCall(del.call, &d)
	return &codexpb.CompleteToolCallResponse{}, nil
}

// AcknowledgeNotification is accepted for any notification id: nothing
// waits for it.
func (svc *grpcService) AcknowledgeNotification(_ context.Context, req *codexpb.AcknowledgeNotificationRequest) (*codexpb.AcknowledgeNotificationResponse, error) {
	s := svc.s
	if _, err := svc.lockSession(req.GetSessionId()); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if !uuidRE.MatchString(req.GetNotificationId()) {
		return nil, status.Error(codes.InvalidArgument, "code-mode notification ID must be a UUID")
	}
	return &codexpb.AcknowledgeNotificationResponse{}, nil
}

// Execute runs a cell: ExecutionStarted at once, then its one outcome.
func (svc *grpcService) Execute(req *codexpb.ExecuteRequest, stream codexpb.CodeModeHost_ExecuteServer) error {
	if req.GetToolCallId() == "" {
		return status.Error(codes.InvalidArgument, "code-mode tool call ID must not be empty")
	}
	e := executeReq{ToolCallID: req.GetToolCallId(), Source: req.GetSource(), YieldTimeMS: req.YieldTimeMs, MaxOutputTokens: req.MaxOutputTokens}
	for _, t := range req.GetEnabledTools() {
		if t.GetToolName() == nil {
			return status.Error(codes.InvalidArgument, "tool definition is missing its tool name")
		}
		kind := string(protocol.KindFunction)
		if t.GetKind() == codexpb.ToolKind_TOOL_KIND_FREEFORM {
			kind = string(protocol.KindFreeform)
		}
		e.EnabledTools = append(e.EnabledTools, toolDef{Name: t.GetName(), ToolName: toolName{Name: t.GetToolName().GetName(), Namespace: t.GetToolName().Namespace},
			Description: t.GetDescription(), Kind: kind, InputSchema: t.InputSchemaJson, OutputSchema: t.OutputSchemaJson})
	}
	s := svc.s
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return err
	}
	if sess.g.execIDs[req.GetExecutionId()] {
		s.mu.Unlock()
		return status.Errorf(codes.AlreadyExists, "code-mode execution ID `%s` was reused", req.GetExecutionId())
	}
	sess.g.execIDs[req.GetExecutionId()] = true
	o := &observer{key: obsKey{sess.id, "execution", req.GetExecutionId()}, execute: true, ch: make(chan observed, 1)}
	var cellID string
	msg := s.execute(sess, e, req.GetExecutionId(), o, func(c *cell) { cellID = c.id })
	s.mu.Unlock()
	if msg != "" {
		return status.Error(codes.ResourceExhausted, msg)
	}
	if err := stream.Send(&codexpb.ExecuteEvent{Event: &codexpb.ExecuteEvent_Started{Started: &codexpb.ExecutionStarted{
		ExecutionId: req.GetExecutionId(), CellId: cellID}}}); err != nil {
		svc.abandon(o)
		return err
	}
	out, err := svc.await(stream.Context(), o)
	if err != nil {
		return err
	}
	return stream.Send(&codexpb.ExecuteEvent{Event: &codexpb.ExecuteEvent_Outcome{Outcome: out}})
}

// await is the observer's answer, as an outcome.
func (svc *grpcService) await(ctx context.Context, o *observer) (*codexpb.ExecutionOutcome, error) {
	select {
	case a := <-o.ch:
		if a.err != nil {
			return nil, a.err
		}
		return outcome(a.variant, a.body), nil
	case <-ctx.Done():
		svc.abandon(o)
		return nil, ctx.Err()
	}
}

// abandon detaches an observer whose call ended; the cell goes on.
func (svc *grpcService) abandon(o *observer) {
	svc.s.mu.Lock()
	if svc.s.observers[o.key] == o {
		o.end()
	}
	svc.s.mu.Unlock()
}

// outcome converts a runtime response to an ExecutionOutcome.
func outcome(variant string, body any) *codexpb.ExecutionOutcome {
	var out codexpb.ExecutionOutcome
	var items []contentItem
	switch b := body.(type) {
	case liveBody:
		out.CellId, items, out.CodeModeHostDurationNs = b.CellID, b.ContentItems, uint64(max(0, b.DurationNS))
	case resultBody:
		out.CellId, items, out.CodeModeHostDurationNs = b.CellID, b.ContentItems, uint64(max(0, b.DurationNS))
		out.Outcome = &codexpb.ExecutionOutcome_Completed{Completed: &codexpb.ExecutionCompleted{ErrorText: b.ErrorText}}
	}
	switch variant {
	case "Yielded":
		out.Outcome = &codexpb.ExecutionOutcome_Yielded{Yielded: &codexpb.ExecutionYielded{}}
	case "Terminated":
		out.Outcome = &codexpb.ExecutionOutcome_Terminated{Terminated: &codexpb.ExecutionTerminated{}}
	}
	out.ContentItems = make([]*codexpb.ContentItem, 0, len(items))
	for _, it := range items {
		if it.Type == "input_image" {
			d := codexpb.ImageDetail(codexpb.ImageDetail_value["IMAGE_DETAIL_"+upper(it.Detail)])
			out.ContentItems = append(out.ContentItems, &codexpb.ContentItem{Item: &codexpb.ContentItem_Image{Image: &codexpb.ImageContent{ImageUrl: it.ImageURL, Detail: &d}}})
			continue
		}
		out.ContentItems = append(out.ContentItems, &codexpb.ContentItem{Item: &codexpb.ContentItem_Text{Text: &codexpb.TextContent{Text: it.Text}}})
	}
	return &out
}

// upper is ASCII upper case.
func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// missingCell is the Wait and Terminate answer for a cell that is not
// live; in server output mode it carries the "Script error:" item too.
func missingCell(sess *session, id string) *codexpb.WaitResponse {
	out := outcome("Result", missing(sess, id))
	out.CodeModeHostDurationNs = 0
	return &codexpb.WaitResponse{State: &codexpb.WaitResponse_MissingCell{MissingCell: out}}
}

// Wait observes a live cell for yield_time_ms.
func (svc *grpcService) Wait(ctx context.Context, req *codexpb.WaitRequest) (*codexpb.WaitResponse, error) {
	s := svc.s
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	c := sess.cells[req.GetCellId()]
	if c == nil {
		s.mu.Unlock()
		return missingCell(sess, req.GetCellId()), nil
	}
	if c.obs != nil {
		s.mu.Unlock()
		return nil, status.Errorf(codes.FailedPrecondition, "exec cell %s already has an active observer", c.id)
	}
	o := &observer{key: obsKey{sess.id, "wait", req.GetWaitId()}, ch: make(chan observed, 1)}
	ms := req.GetYieldTimeMs()
	c.observe(o, sess.yieldFor(&ms))
	s.mu.Unlock()
	out, err := svc.await(ctx, o)
	if err != nil {
		return nil, err
	}
	if out.GetCompleted() != nil {
		_ = grpc.SetHeader(ctx, metadata.Pairs("codex-code-mode-result-buffered-for-ns", "0"))
	}
	return &codexpb.WaitResponse{State: &codexpb.WaitResponse_LiveCell{LiveCell: out}}, nil
}

// YieldObservation makes an Execute or Wait answer Yielded now.
func (svc *grpcService) YieldObservation(_ context.Context, req *codexpb.YieldObservationRequest) (*codexpb.YieldObservationResponse, error) {
	s := svc.s
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var key obsKey
	switch o := req.GetObservation().(type) {
	case *codexpb.YieldObservationRequest_ExecutionId:
		key = obsKey{sess.id, "execution", o.ExecutionId}
	case *codexpb.YieldObservationRequest_WaitId:
		key = obsKey{sess.id, "wait", o.WaitId}
	default:
		return nil, status.Error(codes.InvalidArgument, "missing code-mode observation ID")
	}
	if o := s.observers[key]; o != nil {
		o.c.yieldLocked()
	}
	return &codexpb.YieldObservationResponse{}, nil
}

// CancelWait ends a pending Wait with CANCELLED; its cell goes on.
func (svc *grpcService) CancelWait(_ context.Context, req *codexpb.CancelWaitRequest) (*codexpb.CancelWaitResponse, error) {
	s := svc.s
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if o := s.observers[obsKey{sess.id, "wait", req.GetWaitId()}]; o != nil {
		o.end()
		o.ch <- observed{err: status.Error(codes.Canceled, "code-mode wait was cancelled")}
	}
	return &codexpb.CancelWaitResponse{}, nil
}

// Terminate stops a live cell: tool_call_cancelled for its pending
// calls, Terminated to its observer, this answer, cell_closed.
func (svc *grpcService) Terminate(ctx context.Context, req *codexpb.TerminateRequest) (*codexpb.WaitResponse, error) {
	s := svc.s
	sess, err := svc.lockSession(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	c := sess.cells[req.GetCellId()]
	if c == nil {
		return missingCell(sess, req.GetCellId()), nil
	}
	start := time.Now()
	c.stopLocked()
	closed := cellClosed(c)
	events := sess.g.events
	// cell_closed follows the answer, as from Codex's host.
	if !afterRPC(ctx, func() { events.push(sessionItem{ev: closed}) }) {
		events.push(sessionItem{ev: closed})
	}
	return &codexpb.WaitResponse{State: &codexpb.WaitResponse_LiveCell{LiveCell: outcome("Terminated",
		liveBody{CellID: c.id, ContentItems: []contentItem{}, DurationNS: int64(time.Since(start))})}}, nil
}

// afterRPCs is a stats.Handler that runs what a handler left with
// afterRPC once its call's status was sent.
type afterRPCs struct{}

type afterKey struct{}

// after holds what runs once the call ended.
type after struct {
	mu sync.Mutex
	fn func()
}

// afterRPC makes fn run once the call of ctx was answered; false when
// ctx is not a call's (fn then never runs).
func afterRPC(ctx context.Context, fn func()) bool {
	a, ok := ctx.Value(afterKey{}).(*after)
	if !ok {
		return false
	}
	a.mu.Lock()
	a.fn = fn
	a.mu.Unlock()
	return true
}

// TagRPC implements stats.Handler.
func (afterRPCs) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	if strings.HasSuffix(info.FullMethodName, "/Terminate") {
		return context.WithValue(ctx, afterKey{}, &after{})
	}
	return ctx
}

// HandleRPC implements stats.Handler.
func (afterRPCs) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if _, end := s.(*stats.End); !end {
		return
	}
	if a, ok := ctx.Value(afterKey{}).(*after); ok {
		a.mu.Lock()
		fn := a.fn
		a.fn = nil
		a.mu.Unlock()
		if fn != nil {
			fn()
		}
	}
}

// TagConn implements stats.Handler.
func (afterRPCs) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

// HandleConn implements stats.Handler.
func (afterRPCs) HandleConn(context.Context, stats.ConnStats) {}

// queue is an unbounded FIFO that one goroutine drains (a stream's
// handler), so that a cell's report never waits for the network.
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
	wake   chan struct{}
}

func newQueue[T any]() *queue[T] { return &queue[T]{wake: make(chan struct{}, 1)} }

// push adds v unless the queue was closed.
func (q *queue[T]) push(v T) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, v)
	}
	q.mu.Unlock()
	q.signal()
}

// close lets pop return what is left, then false.
func (q *queue[T]) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *queue[T]) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

func (q *queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop is the oldest item; false once the queue is closed and empty, or
// ctx is done.
func (q *queue[T]) pop(ctx context.Context) (T, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			v := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return v, true
		}
		closed := q.closed
		q.mu.Unlock()
		var zero T
		if closed {
			return zero, false
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return zero, false
		}
	}
}

// drain closes the queue and returns what was left in it.
func (q *queue[T]) drain() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	items := q.items
	q.items = nil
	return items
}
