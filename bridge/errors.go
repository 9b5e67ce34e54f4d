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
	// Err is what the bridge saw: io.EOF, a broken frame, a read error.
	Err error
}

// Error describes the death and what happens next.
func (e *HostDiedError) Error() string {
	var b strings.Builder
	b.WriteString("bridge: the host died")
	if e.Exit != "" {
		fmt.Fprintf(&b, " (%s)", e.Exit)
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
