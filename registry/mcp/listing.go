package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxInstructions caps the server instructions the adapter keeps, in
// runes: they describe the server's namespace in tool_search and in the
// exec description, where a long manual would crowd out the tools.
const maxInstructions = 2000

// boundInstructions is the server's instructions, cut to maxInstructions
// runes (on a rune boundary).
func boundInstructions(s string) string {
	n := 0
	for i := range s {
		if n == maxInstructions {
			return s[:i]
		}
		n++
	}
	return s
}

// listing keeps each tool's JSON exactly as the server last listed it.
// The SDK decodes schemas into maps, which forget the order of keys; the
// raw text keeps the server's property order for the declarations. Safe
// from any goroutine.
type listing struct {
	mu    sync.Mutex
	tools map[string]json.RawMessage // tool name → the tool object
}

// record notes the tools of a tools/list result page: each tool it
// carries replaces the one recorded under its name.
func (l *listing) record(result json.RawMessage) {
	if !bytes.Contains(result, []byte(`"tools"`)) {
		return
	}
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil || len(page.Tools) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tools == nil {
		l.tools = make(map[string]json.RawMessage)
	}
	for _, raw := range page.Tools {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &head) != nil || head.Name == "" {
			continue
		}
		l.tools[head.Name] = bytes.Clone(raw)
	}
}

// schemas returns the raw input and output schemas def was decoded from,
// when the recorded text still says what def says (a newer listing may
// have replaced it); nil when unknown.
func (l *listing) schemas(def *sdk.Tool) (input, output json.RawMessage) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	raw := l.tools[def.Name]
	l.mu.Unlock()
	if raw == nil {
		return nil, nil
	}
	var t struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return nil, nil
	}
	if !sameJSON(t.InputSchema, def.InputSchema) || !sameJSON(t.OutputSchema, def.OutputSchema) {
		return nil, nil
	}
	return t.InputSchema, t.OutputSchema
}

// raw returns the recorded tools of the given names, in that order;
// names with no record are left out.
func (l *listing) raw(names []string) []json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]json.RawMessage, 0, len(names))
	for _, n := range names {
		if r := l.tools[n]; r != nil {
			out = append(out, r)
		}
	}
	return out
}

// sameJSON reports whether raw decodes to the value v holds (nil and
// JSON null alike).
func sameJSON(raw json.RawMessage, v any) bool {
	var a any
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &a) != nil {
		return false
	}
	b := v
	if m, ok := v.(json.RawMessage); ok {
		b = nil
		if len(bytes.TrimSpace(m)) > 0 && json.Unmarshal(m, &b) != nil {
			return false
		}
	} else if v != nil {
		enc, err := json.Marshal(v)
		if err != nil || json.Unmarshal(enc, &b) != nil {
			return false
		}
	}
	return reflect.DeepEqual(a, b)
}

// recordingTransport wraps a transport so that the tools/list results it
// reads are recorded in a listing.
type recordingTransport struct {
	sdk.Transport
	listing *listing
}

// Connect connects the wrapped transport.
func (t recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, listing: t.listing}, nil
}

// recordingConn records the results of the tools/list requests written
// through it.
type recordingConn struct {
	sdk.Connection
	listing *listing
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // tools/list requests without a response yet
}

// Write writes msg, noting a tools/list request's id.
func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		c.mu.Lock()
		if c.pending == nil {
			c.pending = make(map[jsonrpc.ID]bool)
		}
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// Read reads the next message, recording a tools/list result.
func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if res, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		asked := c.pending[res.ID]
		delete(c.pending, res.ID)
		c.mu.Unlock()
		if asked && res.Error == nil {
			c.listing.record(res.Result)
		}
	}
	return msg, err
}

// recordable reports whether wrapping t's connections keeps them working.
// The SDK's streamable HTTP connection learns the session's state through
// an unexported method that a wrapper would hide, so it is not wrapped:
// its HTTP client records instead (recordingRoundTripper).
func recordable(t sdk.Transport) bool {
	_, streamable := t.(*sdk.StreamableClientTransport)
	return !streamable
}

// maxRecordedBody caps the tools/list response body recordingBody keeps;
// past it the listing keeps the SDK's key order.
const maxRecordedBody = 16 << 20

// recordingRoundTripper records the tools/list results of a streamable
// HTTP server (whose connections cannot be wrapped, see recordable) from
// the HTTP responses, before the SDK reads them.
type recordingRoundTripper struct {
	base    http.RoundTripper
	listing *listing
}

// RoundTrip sends req; the response of a tools/list request is recorded
// as the SDK reads it.
func (r recordingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost || req.GetBody == nil || !listsTools(req) {
		return resp, err
	}
	sse := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	resp.Body = &recordingBody{ReadCloser: resp.Body, listing: r.listing, sse: sse}
	return resp, nil
}

// listsTools reports whether req's body is a tools/list request.
func listsTools(req *http.Request) bool {
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 64<<10))
	if err != nil || !bytes.Contains(data, []byte(`"tools/list"`)) {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(data, &msg) == nil && msg.Method == "tools/list"
}

// recordingBody records the JSON-RPC result that a response body (JSON,
// or server-sent events) carries, parsing it in Read before the bytes
// that complete it reach the reader, so the listing is recorded before the
// SDK decodes it.
type recordingBody struct {
	io.ReadCloser
	listing *listing
	sse     bool
	buf     []byte
	off     int // SSE: how much of buf is parsed
	data    []byte
	full    bool
}

// Read reads from the body and records what it completes.
func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.full {
		if len(b.buf)+n > maxRecordedBody {
			b.full, b.buf, b.data = true, nil, nil
		} else {
			b.buf = append(b.buf, p[:n]...)
			if b.sse {
				b.events()
			} else if err != nil {
				b.record(b.buf)
			}
		}
	}
	return n, err
}

// events parses the complete SSE lines in buf: data lines gather into the
// event, a blank line ends it.
func (b *recordingBody) events() {
	for {
		i := bytes.IndexByte(b.buf[b.off:], '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimRight(b.buf[b.off:b.off+i], "\r")
		b.off += i + 1
		switch {
		case len(line) == 0:
			if len(b.data) > 0 {
				b.record(b.data)
			}
			b.data = b.data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	b.buf, b.off = b.buf[b.off:], 0
}

// record records the result of a JSON-RPC response.
func (b *recordingBody) record(msg []byte) {
	var res struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &res) == nil && len(res.Result) > 0 {
		b.listing.record(res.Result)
	}
}
