package bridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// Fault tests of the parent side: a host that misbehaves (the fake host
// of fakehost_test.go, or the real one made to abort) never hangs the
// caller, never loses a store write the bridge saw, and never breaks
// another session.

// bound is how long any call below may take: far more than any of them
// needs, far less than a hang.
const bound = 30 * time.Second

func fakeExec(t *testing.T, s *Session, ctx context.Context, source string) (res *protocol.CellResult, err error) {
	t.Helper()
	within(t, bound, "Exec("+source+")", func() {
		res, err = s.Exec(ctx, ExecRequest{Source: source, Yield: time.Minute})
	})
	return res, err
}

// requireText runs source on s and checks it completes with text.
func requireText(t *testing.T, s *Session, source, text string) {
	t.Helper()
	res, err := fakeExec(t, s, context.Background(), source)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status)
	require.Len(t, res.Items, 1)
	assert.Equal(t, text, res.Items[0].Text)
}

func TestAReplyThatCannotBeDecodedFailsTheRequestItAnswers(t *testing.T) {
	c := startFakeClient(t, Config{})
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	pid := c.Pid()
	_, err = fakeExec(t, s, context.Background(), "badutf8")
	require.ErrorIs(t, err, ErrBadReply)
	var bad *BadReplyError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, protocol.TypeCellResult, bad.Type)
	assert.ErrorIs(t, err, &protocol.ProtocolError{Code: protocol.ErrCodeBadFrame})
	assert.Contains(t, err.Error(), "bridge: the host's cell.result to request")
	assert.Contains(t, err.Error(), "could not be decoded")
	assert.NotErrorIs(t, err, ErrHostDied)

	requireText(t, s, "ok still serving", "still serving")
	assert.Equal(t, pid, c.Pid(), "the host was kept")
}

func TestAToolCallThatCannotBeDecodedRejectsTheScriptsCall(t *testing.T) {
	c := startFakeClient(t, Config{})
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	res, err := fakeExec(t, s, context.Background(), "badcall")
	require.NoError(t, err)
	require.Len(t, res.Items, 1)
	assert.True(t, strings.HasPrefix(res.Items[0].Text, "error internal: bridge: the parent could not decode this tool call (protocol: bad_frame: "),
		"the host got a tool error for the call: %q", res.Items[0].Text)
	requireText(t, s, "ok next", "next")
}

func TestAFrameOverTheCapFailsEverythingPendingAndTheNextCallGetsANewHost(t *testing.T) {
	c := startFakeClient(t, Config{})
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	other, err := c.OpenSession(ctx, "s2", nil)
	require.NoError(t, err)
	pid := c.Pid()
	started := make(chan struct{})
	otherErr := make(chan error, 1)
	go func() {
		_, err := other.Exec(ctx, ExecRequest{Source: "silent", Yield: time.Minute, OnEvent: func(Event) {}})
		otherErr <- err
	}()
	go func() { // the silent exec is pending once its exec.started came
		for {
			conn, _ := c.Conn(ctx)
			conn.mu.Lock()
			n := len(conn.cells)
			conn.mu.Unlock()
			if n > 0 {
				close(started)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	<-started
	_, err = fakeExec(t, s, ctx, "huge")
	require.ErrorIs(t, err, ErrHostDied)
	assert.ErrorIs(t, err, &protocol.ProtocolError{Code: protocol.ErrCodeTooLarge})
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "signal: killed", died.Exit, "the host was treated as dead")
	select {
	case err := <-otherErr:
		assert.ErrorIs(t, err, ErrHostDied, "the other pending exec failed too")
	case <-time.After(bound):
		t.Fatal("the other pending exec did not fail")
	}
	requireText(t, s, "ok new host", "new host")
	assert.NotEqual(t, pid, c.Pid())
}

func TestAnExecWhoseHostIgnoresTerminateReturnsAfterTheGraceAndTheHostIsReplaced(t *testing.T) {
	c := startFakeClient(t, Config{TerminateGrace: 300 * time.Millisecond})
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	pid := c.Pid()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = fakeExec(t, s, ctx, "silent")
	require.ErrorIs(t, err, ErrHostUnresponsive)
	assert.ErrorIs(t, err, ErrHostDied)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "signal: killed", died.Exit)
	assert.Contains(t, err.Error(), "bridge: the host did not answer exec within 300ms after its context ended (context deadline exceeded)")

	requireText(t, s, "ok replaced", "replaced")
	assert.NotEqual(t, pid, c.Pid())
}

func TestDuplicateAndUnmatchedRepliesDoNotBlockTheReader(t *testing.T) {
	c := startFakeClient(t, Config{})
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	pid := c.Pid()
	requireText(t, s, "dup", "first")
	for _, w := range []string{"a", "b", "c"} {
		requireText(t, s, "ok "+w, w)
	}
	conn, err := c.Conn(context.Background())
	require.NoError(t, err)
	require.NoError(t, conn.Ping(context.Background()))
	assert.Equal(t, pid, c.Pid())
}

func TestAHostExitingMidExecIsAHostDiedErrorAndTheNextCallWorks(t *testing.T) {
	c := startFakeClient(t, Config{})
	s, err := c.OpenSession(context.Background(), "s1", nil)
	require.NoError(t, err)
	_, err = fakeExec(t, s, context.Background(), "exit 3")
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "exit status 3", died.Exit)
	requireText(t, s, "ok after", "after")
}

func TestAFailedRestoreLosesOnlyThatSession(t *testing.T) {
	c := startFakeClient(t, Config{})
	ctx := context.Background()
	doomed, err := c.OpenSession(ctx, "refuse-me", nil)
	require.NoError(t, err)
	kept, err := c.OpenSession(ctx, "kept", nil)
	require.NoError(t, err)
	requireText(t, doomed, `store d 1`, "stored")
	requireText(t, kept, `store k "v"`, "stored")
	_, err = fakeExec(t, kept, ctx, "exit 3")
	require.ErrorIs(t, err, ErrHostDied)

	// The next call restarts the host; the restore of refuse-me fails.
	requireText(t, kept, "dump", `k="v";`)
	_, err = fakeExec(t, doomed, ctx, "ok never")
	require.ErrorIs(t, err, ErrSessionLost)
	var lost *SessionLostError
	require.ErrorAs(t, err, &lost)
	assert.Equal(t, "refuse-me", lost.Session)
	assert.ErrorIs(t, err, &protocol.ProtocolError{Code: protocol.ErrCodeLimitExceeded})
	assert.Contains(t, err.Error(), `bridge: session "refuse-me" could not be restored on a new host after its host died`)
	assert.Contains(t, err.Error(), "open a new session")
	_, err = doomed.Wait(ctx, "c1", time.Second)
	assert.ErrorIs(t, err, ErrSessionLost)
	assert.NoError(t, doomed.Close(ctx))

	fresh, err := c.OpenSession(ctx, "fresh", nil)
	require.NoError(t, err, "new sessions open")
	requireText(t, fresh, "ok fresh", "fresh")
	// Another restart does not try the lost session again.
	_, err = fakeExec(t, fresh, ctx, "exit 4")
	require.ErrorIs(t, err, ErrHostDied)
	requireText(t, kept, "dump", `k="v";`)
}

func TestARestoreTheNewHostDoesNotAnswerLosesNoSession(t *testing.T) {
	c := startFakeClient(t, Config{StartTimeout: 2 * time.Second})
	ctx := context.Background()
	muted, err := c.OpenSession(ctx, "mute-me", nil)
	require.NoError(t, err)
	kept, err := c.OpenSession(ctx, "kept", nil)
	require.NoError(t, err)
	_, err = fakeExec(t, kept, ctx, "exit 3")
	require.ErrorIs(t, err, ErrHostDied)

	// Every new host leaves mute-me's session.open unanswered: the call
	// fails within one StartTimeout (and the stop of that host), and no
	// session is marked lost, since the host was at fault.
	within(t, 10*time.Second, "a call during a restore the host does not answer", func() {
		_, err = fakeExec(t, kept, ctx, "ok x")
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the new host did not answer session.open of "mute-me" within 2s`)
	assert.NotErrorIs(t, err, ErrSessionLost)
	assert.Nil(t, muted.lost.Load(), "the session is not lost")
	assert.Nil(t, kept.lost.Load())
}

func TestStoreWritesAreMirroredFromWaitTerminateAndAnAbandonedExec(t *testing.T) {
	c := startFakeClient(t, Config{})
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)

	res, err := fakeExec(t, s, ctx, "yield a 1")
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, res.Status)
	final, err := s.Wait(ctx, res.Cell, time.Minute)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, final.Status)

	res, err = fakeExec(t, s, ctx, "yield b 2")
	require.NoError(t, err)
	require.Equal(t, protocol.StatusYielded, res.Status)
	final, err = s.Terminate(ctx, res.Cell)
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, final.Status)

	// The exec's ctx ends: its own reply says terminated, the write comes
	// on the reply to the terminate the bridge sent, which nobody reads.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	res, err = fakeExec(t, s, short, "late c 3")
	require.NoError(t, err)
	require.Equal(t, protocol.StatusTerminated, res.Status)
	requireText(t, s, `store d "four"`, "stored")

	_, err = fakeExec(t, s, ctx, "exit 3")
	require.ErrorIs(t, err, ErrHostDied)
	requireText(t, s, "dump", `a=1;b=2;c=3;d="four";`)
}

// TestAV8FatalAbortIsExplainedAndTheNextCellRunsOnANewHost makes V8 abort
// the real host with "Fatal JavaScript invalid size error" (an array of
// more elements than a FixedArray holds, made at once by split).
func TestAV8FatalAbortIsExplainedAndTheNextCellRunsOnANewHost(t *testing.T) {
	c := startFaultClient(t, newFaultTools())
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	pid := c.Pid()
	_, err = fakeExec(t, s, ctx, `return "x".repeat(2**27 + 10).split("").length`)
	require.ErrorIs(t, err, ErrHostDied)
	var died *HostDiedError
	require.ErrorAs(t, err, &died)
	assert.Equal(t, "exit status 2", died.Exit)
	assert.Contains(t, died.Cause, "Fatal JavaScript invalid size error")
	assert.Equal(t, "the script built a string, array or table larger than V8 can hold, which aborts V8: build it in smaller pieces", died.Explanation)
	assert.Contains(t, err.Error(), "bridge: the host died (exit status 2: Fatal JavaScript invalid size error")
	assert.Contains(t, err.Error(), "larger than V8 can hold")

	res, err := fakeExec(t, s, ctx, `return 41 + 1`)
	require.NoError(t, err)
	assert.Equal(t, "42", res.Items[0].Text)
	assert.NotEqual(t, pid, c.Pid())
}

func TestExplainCauseNamesWhatTheScriptDid(t *testing.T) {
	for cause, want := range map[string]string{
		"Fatal JavaScript invalid size error 134217738":   "larger than V8 can hold",
		"Fatal javascript OOM in CALL_AND_RETRY_LAST":     "allocation too large",
		"Fatal javascript OOM in invalid table size":      "Map, Set or object",
		"Fatal process out of memory: Zone":               "allocation too large",
		"panic: runtime error: index out of range":        "Go panic",
		"fatal error: stack overflow":                     "Go runtime",
		"Check failed: !isolate->has_scheduled_exception": "internal check",
	} {
		assert.Contains(t, explainCause(cause), want, cause)
	}
	assert.Empty(t, explainCause("SIGSEGV: segmentation violation"))
	assert.Empty(t, explainCause(""))
}

func TestTailWriterPrefersV8sSpecificFatalLine(t *testing.T) {
	w := newTailWriter(3)
	_, _ = w.Write([]byte("#\n# Fatal error in , line 0\n# Fatal JavaScript invalid size error 134217738\n#\n# Fatal something later\n"))
	assert.Equal(t, "Fatal JavaScript invalid size error 134217738", w.cause())
}
