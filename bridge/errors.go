package bridge

import (
	"errors"
	"fmt"
	"strings"
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
	// Cause is the first line of stderr that says why a crashing host
	// died ("# Fatal javascript OOM in CALL_AND_RETRY_LAST", "panic: ...",
	// "fatal error: ..."), which a crash dump usually pushes out of
	// Stderr; empty when there is none.
	Cause string
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
