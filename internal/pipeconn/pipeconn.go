// Package pipeconn joins a read pipe and a write pipe into one net.Conn,
// so that gRPC's HTTP/2 can run over stdio the way Codex's
// `codex-code-mode-host --listen grpc+stdio://` does: a client passes a
// child's stdout and stdin (through grpc.WithContextDialer), a server its
// own os.Stdin and os.Stdout.
package pipeconn

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Conn is a net.Conn that reads from one pipe and writes to another.
type Conn struct {
	r io.ReadCloser
	w io.WriteCloser

	once     sync.Once
	closeErr error
}

// New returns a Conn that reads from r and writes to w. Deadlines reach r
// and w when they support them (an *os.File from os.Pipe or exec's
// pipes does); otherwise setting one returns os.ErrNoDeadline.
func New(r io.ReadCloser, w io.WriteCloser) *Conn {
	return &Conn{r: r, w: w}
}

// Read reads from the read pipe. Errors other than io.EOF come as a
// *net.OpError, as from any net.Conn (a deadline's is a net.Error whose
// Timeout is true).
func (c *Conn) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	return n, c.opError("read", err)
}

// Write writes to the write pipe; its errors are a *net.OpError.
func (c *Conn) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	return n, c.opError("write", err)
}

func (c *Conn) opError(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &net.OpError{Op: op, Net: Addr{}.Network(), Source: Addr{}, Addr: Addr{}, Err: err}
}

// Close closes the write pipe, then the read pipe; later calls return the
// first call's result. For a child process, closing its stdin is what
// tells it the connection is gone.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.closeErr = errors.Join(c.w.Close(), c.r.Close())
	})
	return c.closeErr
}

// Addr is the address of either end of a Conn.
type Addr struct{}

// Network returns "pipe".
func (Addr) Network() string { return "pipe" }

// String returns "pipe".
func (Addr) String() string { return "pipe" }

// LocalAddr returns Addr{}.
func (c *Conn) LocalAddr() net.Addr { return Addr{} }

// RemoteAddr returns Addr{}.
func (c *Conn) RemoteAddr() net.Addr { return Addr{} }

type readDeadliner interface{ SetReadDeadline(time.Time) error }
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// SetDeadline sets both pipes' deadlines.
func (c *Conn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

// SetReadDeadline sets the read pipe's deadline.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if d, ok := c.r.(readDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return os.ErrNoDeadline
}

// SetWriteDeadline sets the write pipe's deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	if d, ok := c.w.(writeDeadliner); ok {
		return d.SetWriteDeadline(t)
	}
	return os.ErrNoDeadline
}
