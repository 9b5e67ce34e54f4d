package codexhost

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"sync"
	"time"
)

// sniffTimeout bounds how long a new TCP connection may take to send the
// bytes that tell HTTP/2 from HTTP/1.x.
const sniffTimeout = 10 * time.Second

// WithHealth is what `grpc://IP:PORT` listens with: connections that
// open with the HTTP/2 preface (gRPC, prior knowledge) come out of the
// returned listener; HTTP/1.x ones get the answers of Codex's host:
// GET /healthz → 200, anything else → 505 (a method other than GET or
// HEAD on /healthz also names those two in Allow). Closing the returned listener closes l.
func WithHealth(l net.Listener) net.Listener {
	h2 := &chanListener{l: l, conns: make(chan net.Conn), done: make(chan struct{})}
	h1 := &chanListener{l: l, conns: make(chan net.Conn), done: h2.done}
	srv := &http.Server{ReadHeaderTimeout: sniffTimeout, Handler: http.HandlerFunc(health)}
	go func() { _ = srv.Serve(h1) }()
	go func() {
		defer h2.Close()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go h2.sniff(c, h1)
		}
	}()
	return h2
}

// health answers an HTTP/1.x request as Codex's host does.
func health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "0") // HEAD's answer too
	if r.URL.Path == "/healthz" {
		switch r.Method {
		case http.MethodGet:
			w.WriteHeader(http.StatusOK)
			return
		case http.MethodHead: // 505 with no Allow, as Codex's host
		default:
			w.Header().Set("Allow", "GET,HEAD")
		}
	}
	w.WriteHeader(http.StatusHTTPVersionNotSupported)
}

// chanListener hands out the connections sent on conns.
type chanListener struct {
	l     net.Listener
	conns chan net.Conn
	done  chan struct{}
}

// closeMu makes closing a listener pair's done channel happen once.
var closeMu sync.Mutex

// sniff sends c to h2 or h1 by its first bytes.
func (h2 *chanListener) sniff(c net.Conn, h1 *chanListener) {
	br := bufio.NewReaderSize(c, 64)
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	head, err := br.Peek(4)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	to := h1
	if bytes.Equal(head, []byte("PRI ")) {
		to = h2
	}
	select {
	case to.conns <- &peekedConn{Conn: c, r: br}:
	case <-h2.done:
		c.Close()
	}
}

// Accept implements net.Listener.
func (cl *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-cl.conns:
		return c, nil
	case <-cl.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener: it closes the TCP listener under both.
func (cl *chanListener) Close() error {
	closeMu.Lock()
	defer closeMu.Unlock()
	select {
	case <-cl.done:
		return nil
	default:
	}
	close(cl.done)
	return cl.l.Close()
}

// Addr implements net.Listener.
func (cl *chanListener) Addr() net.Addr { return cl.l.Addr() }

// peekedConn reads first what sniffing buffered.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }
