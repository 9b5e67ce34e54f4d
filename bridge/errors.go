package bridge

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrHostDied matches (with errors.Is) every error caused by the host
// process going away: the requests pending at that moment and the tool
// calls in flight fail with a *HostDiedError.
var ErrHostDied = errors.New("bridge: the host died")

// ErrClosed is returned by a Client or Conn used after Close.
var ErrClosed = errors.New("bridge: closed; start a new client")

// HostDiedError says why the connection to the host ended: how the
// process exited and the last lines it wrote to stderr.
type HostDiedError struct {
	// Exit is how the process ended ("exit status 3", "signal: killed"),
	// or empty when unknown (for example a Conn over in-memory pipes).
	Exit string
	// Stderr holds the last lines the host wrote to stderr.
	Stderr []string
	// Cause is the line of stderr that says why a crashing host died
	// ("Fatal javascript OOM in CALL_AND_RETRY_LAST", "Fatal JavaScript
	// invalid size error 134217738", "panic: ...", "fatal error: ..."),
	// which a crash dump usually pushes out of Stderr; empty when there is
	// none.
	Cause string
	// Explanation says in plain words what Cause means and what to do
	// ("the script built a string, array or table larger than V8 can
	// hold, which aborts V8: build it in smaller pieces"); empty when the
	// bridge does not know the cause.
	Explanation string
	// Err is what the bridge saw: io.EOF, a broken frame, a read error.
	Err error
}

// Error describes the death and what happens next.
func (e *HostDiedError) Error() string {
	var b strings.Builder
	b.WriteString("bridge: the host died")
	switch {
	case e.Exit != "" && e.Cause != "":
		fmt.Fprintf(&b, " (%s: %s)", e.Exit, e.Cause)
	case e.Exit != "":
		fmt.Fprintf(&b, " (%s)", e.Exit)
	case e.Cause != "":
		fmt.Fprintf(&b, " (%s)", e.Cause)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Explanation != "" {
		fmt.Fprintf(&b, "; %s", e.Explanation)
	}
	if len(e.Stderr) > 0 {
		fmt.Fprintf(&b, "; its last stderr lines:\n  %s\n", strings.Join(e.Stderr, "\n  "))
	} else {
		b.WriteString("; ")
	}
	b.WriteString("the next call starts a new host; cells of the old one are gone")
	return b.String()
}

// Is makes errors.Is(err, ErrHostDied) true.
func (e *HostDiedError) Is(target error) bool { return target == ErrHostDied }

// Unwrap returns the underlying cause.
func (e *HostDiedError) Unwrap() error { return e.Err }

// ErrCellLost matches (with errors.Is) a *CellLostError.
var ErrCellLost = errors.New("bridge: the cell belonged to a host that died")

// CellLostError refuses a cell id of a host that died and was replaced:
// the cell and its result are gone (its committed store writes were
// restored on the new host).
type CellLostError struct {
	// Session and Cell name the cell.
	Session, Cell string
	// Exit is how its host ended ("signal: killed", "exit status 3").
	Exit string
}

// Error names the cell, the host's end and the restart.
func (e *CellLostError) Error() string {
	return fmt.Sprintf("bridge: cell %s of session %q belonged to a host that died (%s) and was restarted; its result is lost", e.Cell, e.Session, e.Exit)
}

// Is makes errors.Is(err, ErrCellLost) true.
func (e *CellLostError) Is(target error) bool { return target == ErrCellLost }

// ErrHostUnresponsive matches (with errors.Is) a *HostUnresponsiveError.
var ErrHostUnresponsive = errors.New("bridge: the host did not answer in time")

// HostUnresponsiveError ends a request whose context ended and whose host
// then did not answer within the grace (ConnConfig.TerminateGrace,
// Config.TerminateGrace) after the bridge asked it to stop the cell. The
// bridge then treats the host as dead: the Client kills the process and
// the next call starts a new host. It wraps the context's error, so
// errors.Is(err, context.DeadlineExceeded) (or context.Canceled) holds,
// and errors.Is(err, ErrHostDied) holds too.
type HostUnresponsiveError struct {
	// Request is the type of the request left unanswered ("exec").
	Request string
	// Grace is how long the bridge waited after the context ended.
	Grace time.Duration
	// Err is the context's error.
	Err error
}

// Error says what was not answered, how long the bridge waited and what
// it did.
func (e *HostUnresponsiveError) Error() string {
	return fmt.Sprintf("bridge: the host did not answer %s within %s after its context ended (%v) and the cell was told to stop; the host was treated as dead and killed",
		e.Request, e.Grace, e.Err)
}

// Is makes errors.Is(err, ErrHostUnresponsive) and errors.Is(err,
// ErrHostDied) true.
func (e *HostUnresponsiveError) Is(target error) bool {
	return target == ErrHostUnresponsive || target == ErrHostDied
}

// Unwrap returns the context's error.
func (e *HostUnresponsiveError) Unwrap() error { return e.Err }

// ErrBadReply matches (with errors.Is) a *BadReplyError.
var ErrBadReply = errors.New("bridge: the host's reply could not be decoded")

// BadReplyError fails a request whose reply arrived but could not be
// decoded (invalid UTF-8, too many values, a wrong field type: a bug in
// the host). The connection stays up; only this request fails.
type BadReplyError struct {
	// Type is the reply's "t" ("cell.result"), when it could be read.
	Type string
	// ID is the request's id.
	ID uint64
	// Err is the decoder's error, a *protocol.ProtocolError.
	Err error
}

// Error says which reply could not be decoded and why.
func (e *BadReplyError) Error() string {
	t := e.Type
	if t == "" {
		t = "reply"
	}
	return fmt.Sprintf("bridge: the host's %s to request %d could not be decoded (%v); the request failed and the host keeps running: this is a bug in the host, report it", t, e.ID, e.Err)
}

// Is makes errors.Is(err, ErrBadReply) true.
func (e *BadReplyError) Is(target error) bool { return target == ErrBadReply }

// Unwrap returns the decoder's error.
func (e *BadReplyError) Unwrap() error { return e.Err }

// ErrSessionLost matches (with errors.Is) a *SessionLostError.
var ErrSessionLost = errors.New("bridge: the session could not be restored on a new host")

// SessionLostError fails every call of a session that could not be
// re-opened on a new host after its host died (the host refused the
// session.open, for example because its store is over the new host's
// store_bytes, or it did not answer). The other sessions and new ones
// keep working; this one is gone.
type SessionLostError struct {
	// Session is the session's id.
	Session string
	// Err is why the restore failed.
	Err error
}

// Error names the session, the failure and what to do.
func (e *SessionLostError) Error() string {
	return fmt.Sprintf("bridge: session %q could not be restored on a new host after its host died (%v); its store and cells are gone: open a new session", e.Session, e.Err)
}

// Is makes errors.Is(err, ErrSessionLost) true.
func (e *SessionLostError) Is(target error) bool { return target == ErrSessionLost }

// Unwrap returns why the restore failed.
func (e *SessionLostError) Unwrap() error { return e.Err }

// causeExplanations turn a crash's cause line into plain words, first
// match wins (matched case-insensitively on a substring).
var causeExplanations = []struct{ match, explanation string }{
	{"invalid size error", "the script built a string, array or table larger than V8 can hold, which aborts V8: build it in smaller pieces"},
	{"invalid array length", "the script built an array larger than V8 can hold, which aborts V8: build it in smaller pieces"},
	{"invalid table size", "the script built a Map, Set or object with more entries than V8 can hold, which aborts V8: build it in smaller pieces"},
	{"oom", "the script made an allocation too large for the memory limit to stop in time, which aborts V8: allocate in smaller pieces"},
	{"out of memory", "the script made an allocation too large for the memory limit to stop in time, which aborts V8: allocate in smaller pieces"},
	{"check failed", "V8 failed an internal check and aborted (a bug in V8 or codemode-host): report it with the stderr lines"},
	{"panic: ", "the host crashed on a Go panic (a bug in codemode-host): report it with the stderr lines"},
	{"fatal error: ", "the Go runtime stopped the host (a bug in codemode-host, or the machine is out of memory): report it with the stderr lines"},
}

// explainCause returns the plain explanation of a crash's cause line, or
// "" when there is none.
func explainCause(cause string) string {
	if cause == "" {
		return ""
	}
	lower := strings.ToLower(cause)
	for _, c := range causeExplanations {
		if strings.Contains(lower, c.match) {
			return c.explanation
		}
	}
	return ""
}
