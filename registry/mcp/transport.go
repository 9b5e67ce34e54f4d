package mcp

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrTailBytes is how much of a command server's stderr is kept to
// explain why it failed.
const stderrTailBytes = 2048

// newTransport builds the transport cfg names, recording tools/list
// results in l where the transport is its own (a URL). For a command it
// also returns the transport itself (to explain the exit) and the writer
// that keeps its stderr.
func newTransport(cfg *ServerConfig, log hclog.Logger, l *listing) (sdk.Transport, *commandTransport, *stderrTail) {
	switch {
	case cfg.Transport != nil:
		return cfg.Transport, nil, nil
	case cfg.URL != "":
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: recordingClient(httpClient(cfg), l)}, nil, nil
	}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Dir
	if len(cfg.Env) > 0 {
		cmd.Env = append(os.Environ(), cfg.Env...)
	}
	tail := &stderrTail{log: log}
	cmd.Stderr = tail
	// A grandchild that keeps stderr open must not hold up Wait.
	cmd.WaitDelay = time.Second
	ownProcessGroup(cmd)
	proc := newCommandTransport(cmd, cfg.stopTimeout(), log)
	return proc, proc, tail
}

// httpClient is cfg.HTTPClient, adding cfg.Headers to every request.
func httpClient(cfg *ServerConfig) *http.Client {
	if len(cfg.Headers) == 0 {
		return cfg.HTTPClient
	}
	return wrapTransport(cfg.HTTPClient, func(base http.RoundTripper) http.RoundTripper {
		return headerTransport{base: base, headers: cfg.Headers}
	})
}

// recordingClient is c (nil: the default client) recording the tools/list
// results it receives in l.
func recordingClient(c *http.Client, l *listing) *http.Client {
	return wrapTransport(c, func(base http.RoundTripper) http.RoundTripper {
		return recordingRoundTripper{base: base, listing: l}
	})
}

// wrapTransport is a copy of c (nil: the default client) whose transport
// (nil: the default one) is wrapped by wrap.
func wrapTransport(c *http.Client, wrap func(http.RoundTripper) http.RoundTripper) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	with := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	with.Transport = wrap(base)
	return &with
}

// headerTransport adds headers to each request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	return h.base.RoundTrip(req)
}

// stderrTail logs a server's stderr line by line and keeps its end.
// Safe from any goroutine.
type stderrTail struct {
	log     hclog.Logger
	mu      sync.Mutex
	partial []byte
	tail    []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tail = append(t.tail, p...)
	if over := len(t.tail) - stderrTailBytes; over > 0 {
		t.tail = append(t.tail[:0], t.tail[over:]...)
	}
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.log.Debug("server stderr", "line", string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > stderrTailBytes {
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

// String is the end of stderr, trimmed, on one line per line.
func (t *stderrTail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.tail))
}
