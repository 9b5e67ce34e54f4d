package codexhost_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/codemode-host/codemode-host/codexhost/codexpb"
	"github.com/codemode-host/codemode-host/internal/codexbin"
	"github.com/codemode-host/codemode-host/internal/pipeconn"
	"github.com/codemode-host/codemode-host/internal/testhost"
)

// grpcDeadline bounds one scripted exchange; each call takes
// milliseconds.
const grpcDeadline = 15 * time.Second

// startGRPCHost runs bin with args (its --listen grpc+stdio://) and
// returns a client over its stdin and stdout, and a function that closes
// the connection and returns the host's exit error and stderr.
func startGRPCHost(t testing.TB, ctx context.Context, bin string, args ...string) (codexpb.CodeModeHostClient, func() (string, error)) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dialed atomic.Bool
	conn, err := grpc.NewClient("passthrough:///code-mode-host",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) {
			if dialed.Swap(true) {
				return nil, errors.New("the host's stdio was dialed already")
			}
			return pipeconn.New(stdout, stdin), nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	var waitErr error
	stop := func() (string, error) {
		if !stopped {
			stopped = true
			conn.Close()
			waitErr = cmd.Wait()
		}
		return stderr.String(), waitErr
	}
	t.Cleanup(func() { stop() })
	return codexpb.NewCodeModeHostClient(conn), stop
}

var uuidText = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
var durationText = regexp.MustCompile(`"code_mode_host_duration_ns":"?\d+"?,?`)

// transcript is what a host answered in a scripted exchange, one line
// per message or status, normalised: host-chosen UUIDs and durations
// aside.
type transcript struct {
	t     *testing.T
	start time.Time
	lines []string
}

func (tr *transcript) add(what string, m proto.Message, err error) {
	tr.t.Helper()
	var line string
	switch {
	case err != nil:
		s := status.Convert(err)
		line = fmt.Sprintf("%s: %s: %s", what, s.Code(), s.Message())
	default:
		b, merr := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if merr != nil {
			tr.t.Fatal(merr)
		}
		line = what + ": " + string(b)
	}
	line = uuidText.ReplaceAllString(line, "<uuid>")
	line = durationText.ReplaceAllString(line, "")
	line = strings.ReplaceAll(line, ",}", "}")
	// protojson's spacing is deliberately unstable; drop it.
	line = strings.ReplaceAll(line, " ", "")
	tr.lines = append(tr.lines, line)
	tr.t.Logf("%v %s", time.Since(tr.start).Round(time.Millisecond), what)
}

// grpcExchange drives a host through what codex does (open, subscribe,
// execute with a tool call, a notification and an error; yield, wait;
// terminate; close) plus the error statuses codex can meet, and returns
// the transcript.
func grpcExchange(t *testing.T, host codexpb.CodeModeHostClient, ctx context.Context) []string {
	t.Helper()
	tr := &transcript{t: t, start: time.Now()}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%v\nthe steps that answered:\n%s", err, strings.Join(tr.lines, "\n"))
		}
	}
	for _, bad := range []*codexpb.OpenSessionRequest{{OutputTruncation: 7}, {MaxPendingDelegateCalls: proto.Uint32(0)}} {
		ev, err := host.OpenSession(ctx, bad)
		must(err)
		_, err = ev.Recv()
		tr.add("OpenSession bad", nil, err)
	}
	events, err := host.OpenSession(ctx, &codexpb.OpenSessionRequest{
		OutputTruncation: codexpb.OutputTruncation_OUTPUT_TRUNCATION_SERVER, MaxPendingDelegateCalls: proto.Uint32(4096)})
	must(err)
	first, err := events.Recv()
	must(err)
	tr.add("OpenSession", first, nil)
	session := first.GetOpened().GetSessionId()
	sessionEvents := make(chan *codexpb.SessionEvent, 64)
	var endErr error // read after sessionEvents closed
	go func() {
		defer close(sessionEvents)
		for {
			ev, err := events.Recv()
			if err != nil {
				endErr = err
				return
			}
			sessionEvents <- ev
		}
	}()
	nextEvent := func(what string) {
		t.Helper()
		select {
		case ev, ok := <-sessionEvents:
			if !ok {
				t.Fatalf("%s: the session stream ended", what)
			}
			tr.add("session "+what, ev, nil)
		case <-time.After(5 * time.Second):
			t.Fatalf("no session event: %s", what)
		}
	}

	subCtx, cancelSub := context.WithCancel(ctx)
	defer cancelSub()
	calls, err := host.SubscribeToToolCalls(subCtx, &codexpb.SubscribeToToolCallsRequest{SessionId: session})
	must(err)
	_, err = calls.Header() // codex waits for these before it executes
	must(err)

	echo := []*codexpb.ToolDefinition{{Name: "echo", ToolName: &codexpb.ToolName{Name: "echo"}, Description: "echo it",
		Kind: codexpb.ToolKind_TOOL_KIND_FUNCTION, InputSchemaJson: []byte(`{"type":"object"}`)}}
	execute := func(what string, req *codexpb.ExecuteRequest) codexpb.CodeModeHost_ExecuteClient {
		t.Helper()
		req.SessionId = session
		run, err := host.Execute(ctx, req)
		must(err)
		ev, err := run.Recv()
		tr.add(what+" started", ev, err)
		return run
	}
	outcome := func(what string, run codexpb.CodeModeHost_ExecuteClient) {
		t.Helper()
		ev, err := run.Recv()
		tr.add(what+" outcome", ev, err)
		_, err = run.Recv()
		if err != io.EOF {
			tr.add(what+" end", nil, err)
		}
	}

	// 1. A tool call, a notification, an error at the end.
	run := execute("exec1", &codexpb.ExecuteRequest{ExecutionId: "00000000-0000-4000-8000-000000000001", ToolCallId: "call-1",
		EnabledTools: echo, Source: `text("hi"); const r = await tools.echo({x: 1}); text(JSON.stringify(r)); notify("note!"); ` +
			`image("data:image/png;base64,AAAA"); throw new Error("boom")`})
	call, err := calls.Recv()
	must(err)
	tr.add("ToolCall", call, nil)
	_, err = host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session, InvocationId: call.GetInvocationId(),
		Outcome: &codexpb.CompleteToolCallRequest_Succeeded{Succeeded: &codexpb.ToolCallSucceeded{OutputJson: []byte(`{"echoed":1}`)}}})
	tr.add("CompleteToolCall", &codexpb.CompleteToolCallResponse{}, err)
	nextEvent("notification")
	nextEvent("cell_closed 1")
	outcome("exec1", run)
	_, err = host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session, InvocationId: call.GetInvocationId(),
		Outcome: &codexpb.CompleteToolCallRequest_Failed{Failed: &codexpb.ToolCallFailed{Message: "late"}}})
	tr.add("CompleteToolCall again", &codexpb.CompleteToolCallResponse{}, err)

	// 2. A failed tool call, then yield and wait.
	run = execute("exec2", &codexpb.ExecuteRequest{ExecutionId: "00000000-0000-4000-8000-000000000002", ToolCallId: "call-2",
		EnabledTools: echo, YieldTimeMs: proto.Uint64(100), Source: `try { await tools.echo({}) } catch (e) { text(String(e)) }; ` +
			`text("a"); await new Promise(r => setTimeout(r, 400)); text("b")`})
	call, err = calls.Recv()
	must(err)
	tr.add("ToolCall", call, nil)
	_, err = host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session, InvocationId: call.GetInvocationId(),
		Outcome: &codexpb.CompleteToolCallRequest_Failed{Failed: &codexpb.ToolCallFailed{Message: "tool exploded"}}})
	tr.add("CompleteToolCall", &codexpb.CompleteToolCallResponse{}, err)
	outcome("exec2", run)
	var header metadata.MD
	w, err := host.Wait(ctx, &codexpb.WaitRequest{SessionId: session, CellId: "2", WaitId: "wait-1", YieldTimeMs: 5000}, grpc.Header(&header))
	nextEvent("cell_closed 2")
	tr.add("Wait", w, err)
	tr.lines = append(tr.lines, "Wait header buffered-for-ns: "+strings.Join(header.Get("codex-code-mode-result-buffered-for-ns"), ","))

	// 2b. Promise.all: three calls at once, answered in reverse; a second
	// observer of a live cell.
	run = execute("exec2b", &codexpb.ExecuteRequest{ExecutionId: "00000000-0000-4000-8000-00000000002b", ToolCallId: "call-2b",
		EnabledTools: echo, YieldTimeMs: proto.Uint64(5000), Source: `const a = await Promise.all([tools.echo({n: 1}), tools.echo({n: 2}), tools.echo({n: 3})]); ` +
			`text(JSON.stringify(a)); await new Promise(r => setTimeout(r, 300)); text("done")`})
	var three []*codexpb.ToolCall
	for i := 0; i < 3; i++ {
		call, err := calls.Recv()
		must(err)
		three = append(three, call)
	}
	slices.SortFunc(three, func(a, b *codexpb.ToolCall) int { return int(a.GetSequence()) - int(b.GetSequence()) })
	for _, call := range three {
		tr.add("ToolCall", call, nil)
	}
	for i := 2; i >= 0; i-- {
		_, err = host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session, InvocationId: three[i].GetInvocationId(),
			Outcome: &codexpb.CompleteToolCallRequest_Succeeded{Succeeded: &codexpb.ToolCallSucceeded{OutputJson: three[i].GetInputJson()}}})
		tr.add("CompleteToolCall", &codexpb.CompleteToolCallResponse{}, err)
	}
	_, err = host.Wait(ctx, &codexpb.WaitRequest{SessionId: session, CellId: "3", WaitId: "wait-x", YieldTimeMs: 10})
	tr.add("Wait while the execute observes", nil, err)
	nextEvent("cell_closed 3")
	outcome("exec2b", run)
	tm, err := host.Terminate(ctx, &codexpb.TerminateRequest{SessionId: session, CellId: "3"})
	tr.add("Terminate a closed cell", tm, err)

	// 3. Terminate a cell with a pending tool call.
	run = execute("exec3", &codexpb.ExecuteRequest{ExecutionId: "00000000-0000-4000-8000-000000000003", ToolCallId: "call-3",
		EnabledTools: echo, YieldTimeMs: proto.Uint64(100), Source: `text("t"); await tools.echo({y: 2})`})
	call, err = calls.Recv()
	must(err)
	tr.add("ToolCall", call, nil)
	outcome("exec3", run)
	tm, err = host.Terminate(ctx, &codexpb.TerminateRequest{SessionId: session, CellId: "4"})
	tr.add("Terminate", tm, err)
	nextEvent("tool_call_cancelled")
	nextEvent("cell_closed 4")

	// 4. YieldObservation ends an Execute now; CancelWait ends a Wait.
	run = execute("exec4", &codexpb.ExecuteRequest{ExecutionId: "00000000-0000-4000-8000-000000000004", ToolCallId: "call-4",
		Source: `text("w"); await new Promise(r => setTimeout(r, 60000))`})
	time.Sleep(100 * time.Millisecond) // the Execute is observing
	_, err = host.YieldObservation(ctx, &codexpb.YieldObservationRequest{SessionId: session,
		Observation: &codexpb.YieldObservationRequest_ExecutionId{ExecutionId: "00000000-0000-4000-8000-000000000004"}})
	tr.add("YieldObservation", &codexpb.YieldObservationResponse{}, err)
	outcome("exec4", run)
	waited := make(chan error, 1)
	go func() {
		_, err := host.Wait(ctx, &codexpb.WaitRequest{SessionId: session, CellId: "5", WaitId: "wait-3", YieldTimeMs: 10000})
		waited <- err
	}()
	time.Sleep(100 * time.Millisecond) // the Wait is observing
	_, err = host.CancelWait(ctx, &codexpb.CancelWaitRequest{SessionId: session, WaitId: "wait-3"})
	tr.add("CancelWait", &codexpb.CancelWaitResponse{}, err)
	tr.add("Wait cancelled", nil, <-waited)
	tm, err = host.Terminate(ctx, &codexpb.TerminateRequest{SessionId: session, CellId: "5"})
	tr.add("Terminate", tm, err)
	nextEvent("cell_closed 5")

	// 5. Errors codex can meet.
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session, ExecutionId: "00000000-0000-4000-8000-000000000003", ToolCallId: "c", Source: "1"})
	must(err)
	_, err = run.Recv()
	tr.add("Execute reused id", nil, err)
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session, ExecutionId: "00000000-0000-4000-8000-000000000009", Source: "1"})
	must(err)
	_, err = run.Recv()
	tr.add("Execute without tool call id", nil, err)
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session, ExecutionId: "00000000-0000-4000-8000-00000000000a", ToolCallId: "c",
		EnabledTools: []*codexpb.ToolDefinition{{Name: "x"}}, Source: "1"})
	must(err)
	_, err = run.Recv()
	tr.add("Execute tool without tool_name", nil, err)
	w, err = host.Wait(ctx, &codexpb.WaitRequest{SessionId: session, CellId: "nope", WaitId: "wait-2", YieldTimeMs: 10})
	tr.add("Wait missing cell", w, err)
	_, err = host.Wait(ctx, &codexpb.WaitRequest{SessionId: "55ef8026-0000-4000-8000-000000000000", CellId: "1"})
	tr.add("Wait unknown session", nil, err)
	_, err = host.CloseSession(ctx, &codexpb.CloseSessionRequest{SessionId: "not-a-uuid"})
	tr.add("CloseSession not a UUID", nil, err)
	_, err = host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session, InvocationId: "92ae0000-0000-4000-8000-000000000000",
		Outcome: &codexpb.CompleteToolCallRequest_Failed{Failed: &codexpb.ToolCallFailed{Message: "x"}}})
	tr.add("CompleteToolCall unknown", nil, err)
	_, err = host.YieldObservation(ctx, &codexpb.YieldObservationRequest{SessionId: session})
	tr.add("YieldObservation without id", nil, err)
	_, err = host.GetProcessMetrics(ctx, &codexpb.GetProcessMetricsRequest{})
	tr.add("GetProcessMetrics", nil, err)
	_, err = host.AcknowledgeNotification(ctx, &codexpb.AcknowledgeNotificationRequest{SessionId: session, NotificationId: "whatever"})
	tr.add("AcknowledgeNotification not a UUID", &codexpb.AcknowledgeNotificationResponse{}, err)
	_, err = host.AcknowledgeNotification(ctx, &codexpb.AcknowledgeNotificationRequest{SessionId: session, NotificationId: "92ae0000-0000-4000-8000-000000000001"})
	tr.add("AcknowledgeNotification unknown", &codexpb.AcknowledgeNotificationResponse{}, err)
	_, err = host.CancelWait(ctx, &codexpb.CancelWaitRequest{SessionId: session, WaitId: "no-such-wait"})
	tr.add("CancelWait unknown", &codexpb.CancelWaitResponse{}, err)

	// 6. A second session: a subscription that names another tool gets
	// no call (the cell's call fails), then its lease drops while a cell
	// runs.
	leaseCtx, dropLease := context.WithCancel(ctx)
	events2, err := host.OpenSession(leaseCtx, &codexpb.OpenSessionRequest{})
	must(err)
	first2, err := events2.Recv()
	must(err)
	tr.add("OpenSession 2", first2, nil)
	session2 := first2.GetOpened().GetSessionId()
	calls2, err := host.SubscribeToToolCalls(leaseCtx, &codexpb.SubscribeToToolCallsRequest{SessionId: session2,
		ToolNames: []*codexpb.ToolName{{Name: "other"}}})
	must(err)
	_, err = calls2.Header()
	must(err)
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session2, ExecutionId: "00000000-0000-4000-8000-000000000005", ToolCallId: "c",
		EnabledTools: echo, Source: `try { await tools.echo({}) } catch (e) { text(String(e)) }`})
	must(err)
	for i := 0; i < 2; i++ {
		ev, err := run.Recv()
		tr.add("session 2 exec", ev, err)
	}
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session2, ExecutionId: "00000000-0000-4000-8000-000000000006", ToolCallId: "c",
		Source: `text("long"); await new Promise(r => setTimeout(r, 60000))`})
	must(err)
	ev, err := run.Recv()
	tr.add("session 2 long exec", ev, err)
	dropLease()
	ev, err = run.Recv()
	tr.add("session 2 long exec after the lease dropped", ev, err)
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err = host.Wait(ctx, &codexpb.WaitRequest{SessionId: session2, CellId: "2", WaitId: "w", YieldTimeMs: 10})
		if status.Code(err) == codes.NotFound || time.Now().After(deadline) {
			break
		}
	}
	tr.add("Wait after the lease dropped", nil, err)

	// 6b. A session whose capacity is one pending tool call: a call past
	// it fails at once. The first call is answered only once the cell has
	// yielded with the second one's failure: answered sooner, it would
	// free the slot the second one takes.
	events3, err := host.OpenSession(ctx, &codexpb.OpenSessionRequest{MaxPendingDelegateCalls: proto.Uint32(1)})
	must(err)
	first3, err := events3.Recv()
	must(err)
	session3 := first3.GetOpened().GetSessionId()
	calls3, err := host.SubscribeToToolCalls(ctx, &codexpb.SubscribeToToolCallsRequest{SessionId: session3})
	must(err)
	_, err = calls3.Header()
	must(err)
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session3, ExecutionId: "00000000-0000-4000-8000-000000000008", ToolCallId: "c",
		EnabledTools: echo, YieldTimeMs: proto.Uint64(30000), Source: `const one = tools.echo({n: 1}); ` +
			`text(await tools.echo({n: 2}).then(String, e => "rejected: " + String(e))); yield_control(); text(String(await one))`})
	must(err)
	ev, err = run.Recv()
	tr.add("capacity exec", ev, err)
	call, err = calls3.Recv()
	must(err)
	tr.add("capacity ToolCall", call, nil)
	ev, err = run.Recv()
	tr.add("capacity exec", ev, err)
	_, err = host.CompleteToolCall(ctx, &codexpb.CompleteToolCallRequest{SessionId: session3, InvocationId: call.GetInvocationId(),
		Outcome: &codexpb.CompleteToolCallRequest_Succeeded{Succeeded: &codexpb.ToolCallSucceeded{OutputJson: []byte(`"one"`)}}})
	tr.add("capacity CompleteToolCall", &codexpb.CompleteToolCallResponse{}, err)
	w, err = host.Wait(ctx, &codexpb.WaitRequest{SessionId: session3, CellId: "1", WaitId: "wait-c", YieldTimeMs: 30000})
	tr.add("capacity Wait", w, err)
	_, err = host.CloseSession(ctx, &codexpb.CloseSessionRequest{SessionId: session3})
	tr.add("CloseSession 3", &codexpb.CloseSessionResponse{}, err)

	// 7. CloseSession ends the lease with OK, and a running cell; the
	// session is gone.
	run, err = host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: session, ExecutionId: "00000000-0000-4000-8000-000000000007", ToolCallId: "c",
		Source: `text("long"); await new Promise(r => setTimeout(r, 60000))`})
	must(err)
	ev, err = run.Recv()
	tr.add("long exec", ev, err)
	_, err = host.CloseSession(ctx, &codexpb.CloseSessionRequest{SessionId: session})
	tr.add("CloseSession", &codexpb.CloseSessionResponse{}, err)
	ev, err = run.Recv()
	tr.add("long exec after CloseSession", ev, err)
	for ev := range sessionEvents {
		t.Errorf("a session event after CloseSession: %v", ev)
	}
	tr.lines = append(tr.lines, fmt.Sprintf("OpenSession end: %v", endErr))
	_, err = host.CloseSession(ctx, &codexpb.CloseSessionRequest{SessionId: session})
	tr.add("CloseSession again", nil, err)
	return tr.lines
}

// TestGRPCAgainstCodexHost runs the same exchange over grpc+stdio://
// against Codex's own host and our binary (started under Codex's host's
// name, as codex starts it) and compares the transcripts; both hosts
// then exit 0 when the connection closes.
func TestGRPCAgainstCodexHost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*grpcDeadline)
	defer cancel()
	codex, stopCodex := startGRPCHost(t, ctx, codexbin.Host(t), "--listen", "grpc+stdio://")
	want := grpcExchange(t, codex, ctx)
	if stderr, err := stopCodex(); err != nil {
		t.Fatalf("Codex's host: %v\n%s", err, stderr)
	}
	link := t.TempDir() + "/codex-code-mode-host"
	if out, err := exec.Command("ln", "-s", testhost.Bin(t), link).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ours, stopOurs := startGRPCHost(t, ctx, link, "--listen", "grpc+stdio://")
	got := grpcExchange(t, ours, ctx)
	if stderr, err := stopOurs(); err != nil {
		t.Errorf("our host: %v\n%s", err, stderr)
	}
	t.Logf("Codex's host:\n%s", strings.Join(want, "\n"))
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g && strings.ReplaceAll(g, "ToolError:", "") != w {
			// (the one difference allowed: a failed tool call rejects
			// with our ToolError, as over v1: see s05b in v1_test.go)
			t.Errorf("line %d:\n codex: %s\n ours:  %s", i, w, g)
		}
	}
}

// startTCPHost runs bin listening on grpc://127.0.0.1:0 and returns the
// address it printed.
func startTCPHost(t testing.TB, ctx context.Context, bin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, append(args, "--listen", "grpc://127.0.0.1:0")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("first stdout line %q, %v", line, err)
	}
	return strings.TrimPrefix(strings.TrimSpace(line), "http://")
}

// healthAnswers sends HTTP/1.x requests to addr and returns each
// answer's status line and Allow header.
func healthAnswers(t *testing.T, addr string) []string {
	t.Helper()
	var got []string
	for _, req := range []string{"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /other HTTP/1.1\r\nHost: x\r\n\r\n", "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "GET /healthz HTTP/1.0\r\n\r\n"} {
		c, err := net.DialTimeout("tcp", addr, grpcDeadline)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(grpcDeadline))
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		got = append(got, fmt.Sprintf("%s %s allow=%q length=%d", resp.Proto, resp.Status, resp.Header.Get("Allow"), resp.ContentLength))
	}
	return got
}

// TestGRPCOverTCP checks --listen grpc://IP:PORT: the address on
// stdout, the HTTP/1.x health answers (compared with Codex's host's),
// then the service on it.
func TestGRPCOverTCP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), grpcDeadline)
	defer cancel()
	want := healthAnswers(t, startTCPHost(t, ctx, codexbin.Host(t)))
	addr := startTCPHost(t, ctx, testhost.Bin(t), "codex-host")
	if got := healthAnswers(t, addr); !slices.Equal(got, want) {
		t.Errorf("HTTP/1.x answers:\n codex: %q\n ours:  %q", want, got)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	host := codexpb.NewCodeModeHostClient(conn)
	events, err := host.OpenSession(ctx, &codexpb.OpenSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := events.Recv()
	if err != nil || !uuidText.MatchString(first.GetOpened().GetSessionId()) {
		t.Fatalf("first session event %v, %v", first, err)
	}
	run, err := host.Execute(ctx, &codexpb.ExecuteRequest{SessionId: first.GetOpened().GetSessionId(), ExecutionId: "e1", ToolCallId: "c1", Source: `text(6*7)`})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for {
		ev, err := run.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range ev.GetOutcome().GetContentItems() {
			texts = append(texts, it.GetText().GetText())
		}
	}
	if strings.Join(texts, ",") != "42" {
		t.Errorf("outcome texts %q", texts)
	}
	if _, err := host.GetProcessMetrics(ctx, &codexpb.GetProcessMetricsRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("GetProcessMetrics: %v", err)
	}
}
