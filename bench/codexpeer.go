package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode-host/codemode-host/internal/codexbin"
)

// V1Host is a host process that speaks Codex's host protocol v1 (a 4-byte
// little-endian length, then one JSON object) on its stdin and stdout, with
// one open session: Codex's own codex-code-mode-host (no arguments) or ours
// as `codemode-host codex-host`. The same client drives both, so their
// rows differ only in the host. Every delegated tool/invoke is answered
// with its input (the echo tool). Used from one goroutine at a time.
type V1Host struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	r      *bufio.Reader
	w      *bufio.Writer
	stderr *tailBuffer
	nextID int64
	buf    []byte
	kill   sync.Once
	killed atomic.Bool
}

// v1Session is the session id V1Host opens.
const v1Session = "session-1"

// v1MaxFrame bounds a frame read from a v1 host: a length above it is a
// broken stream, not a reason to allocate.
const v1MaxFrame = 64 << 20

// v1YieldMS is the yield time of every execute: far beyond runTimeout, so a
// cell answers with its result, never a yield.
const v1YieldMS = 600000

// v1Echo is the execute request's one enabled tool, as Codex sends its
// tools (the schema lives in the description, input_schema is null).
var v1Echo = map[string]any{"name": echoTool.Name, "tool_name": map[string]any{"name": echoTool.Name, "namespace": nil},
	"description": echoTool.Description, "kind": "function", "input_schema": nil, "output_schema": nil}

// CodexHostBin returns the path of Codex's pinned codex-code-mode-host,
// installed into test/codex by make setup, or why it is not there.
func CodexHostBin() (string, error) { return codexbin.Path(codexbin.HostName) }

// StartV1Host launches bin with args, shakes hands as Codex 0.169.0 does
// (version 1, its four capabilities optional) and opens the session Run
// uses, with the output truncation Codex asks for ("server").
func StartV1Host(ctx context.Context, name, bin string, args ...string) (*V1Host, error) {
	cmd := exec.Command(bin, args...)
	h := &V1Host{name: name, cmd: cmd, stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting %s: %w", bin, err)
	}
	h.r, h.w = bufio.NewReaderSize(stdout, 64<<10), bufio.NewWriterSize(h.stdin, 64<<10)
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, h.stop)
	defer stop()
	if err := h.handshake(); err != nil {
		_ = h.Close()
		return nil, fmt.Errorf("bench: %s: %w; stderr: %s", name, err, h.stderr)
	}
	return h, nil
}

func (h *V1Host) handshake() error {
	if err := h.send(map[string]any{"type": "connection/hello", "supportedVersions": []int{1}, "requiredCapabilities": []string{},
		"optionalCapabilities": []string{"session-cell-execution-resource-limits", "yield-observation", "bounded-output-v1", "delegate-capacity-4096"}}); err != nil {
		return err
	}
	f, err := h.next()
	if err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	if f.Type != "connection/ready" {
		return fmt.Errorf("hello answered with %s", f.raw)
	}
	h.nextID = 1
	if err := h.send(map[string]any{"type": "operation/request", "id": h.nextID,
		"request": map[string]any{"method": "session/open", "sessionId": v1Session, "outputTruncation": "server"}}); err != nil {
		return err
	}
	if f, err = h.next(); err != nil {
		return fmt.Errorf("session/open: %w", err)
	}
	if f.Type != "operation/response" || f.Result.Status != "ok" {
		return fmt.Errorf("session/open answered with %s", f.raw)
	}
	return nil
}

// Name labels the system in the report.
func (h *V1Host) Name() string { return h.name }

// Run executes source as one cell and returns its output. A v1 cell has no
// return value and a top-level return is a SyntaxError, so the scenario's
// final `return X` is sent as `text(String(X))` and the cell's text items,
// joined, are its result.
func (h *V1Host) Run(ctx context.Context, source string) (string, error) {
	src, err := v1Source(source)
	if err != nil {
		return "", err
	}
	stop := context.AfterFunc(ctx, h.stop)
	defer stop()
	h.nextID++
	id := h.nextID
	if err := h.send(map[string]any{"type": "operation/request", "id": id, "request": map[string]any{"method": "session/execute",
		"sessionId": v1Session, "request": map[string]any{"tool_call_id": fmt.Sprintf("call-%d", id),
			"enabled_tools": []any{v1Echo}, "source": src, "yield_time_ms": v1YieldMS}}}); err != nil {
		return "", h.fail(ctx, err)
	}
	for {
		f, err := h.next()
		if err != nil {
			return "", h.fail(ctx, err)
		}
		switch f.Type {
		case "delegate/request":
			var answer any
			switch f.Request.Type {
			case "tool/invoke":
				input := f.Request.Invocation.Input
				if len(input) == 0 {
					input = json.RawMessage("null")
				}
				answer = map[string]any{"status": "ok", "value": map[string]any{"type": "tool/result", "result": input}}
			case "notification/send":
				answer = map[string]any{"status": "ok", "value": map[string]any{"type": "notification/delivered"}}
			default:
				return "", fmt.Errorf("bench: %s: unexpected delegate request %s", h.name, f.raw)
			}
			if err := h.sendBuffered(map[string]any{"type": "delegate/response", "id": f.ID, "result": answer}); err != nil {
				return "", h.fail(ctx, err)
			}
		case "operation/response":
			if f.ID == id && f.Result.Status != "ok" {
				return "", fmt.Errorf("bench: %s: execute refused: %s", h.name, f.raw)
			}
		case "execute/initialResponse":
			if f.ID != id {
				continue
			}
			return h.result(f)
		}
	}
}

// result is an execute/initialResponse's text, or why the cell failed.
func (h *V1Host) result(f *v1Frame) (string, error) {
	var out struct {
		Result *struct {
			ContentItems []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content_items"`
			ErrorText *string `json:"error_text"`
		}
	}
	if f.Result.Status != "ok" || json.Unmarshal(f.Result.Value, &out) != nil || out.Result == nil {
		return "", fmt.Errorf("bench: %s: the cell did not complete: %s", h.name, f.raw)
	}
	if out.Result.ErrorText != nil {
		return "", fmt.Errorf("bench: %s: the cell failed: %s", h.name, *out.Result.ErrorText)
	}
	var texts []string
	for _, it := range out.Result.ContentItems {
		if it.Type == "input_text" {
			texts = append(texts, it.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// v1Source turns a scenario's final `return X` into `text(String(X))`.
func v1Source(source string) (string, error) {
	i := strings.LastIndex(source, "return ")
	if i < 0 {
		return "", fmt.Errorf("bench: scenario %q has no final return", source)
	}
	expr := strings.TrimSuffix(strings.TrimSpace(source[i+len("return "):]), ";")
	if strings.ContainsAny(expr, ";\n") {
		return "", fmt.Errorf("bench: scenario %q does not end in its return", source)
	}
	return source[:i] + "text(String(" + expr + "));", nil
}

// v1Frame is the part of a host's frame the client reads.
type v1Frame struct {
	Type    string `json:"type"`
	ID      int64  `json:"id"`
	Request struct {
		Type       string `json:"type"`
		Invocation struct {
			Input json.RawMessage `json:"input"`
		} `json:"invocation"`
	} `json:"request"`
	Result struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
	} `json:"result"`
	raw []byte
}

// next reads one frame.
func (h *V1Host) next() (*v1Frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(h.r, hdr[:]); err != nil {
		return nil, fmt.Errorf("reading a frame: %w", err)
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n > v1MaxFrame {
		return nil, fmt.Errorf("frame of %d bytes, more than %d", n, v1MaxFrame)
	}
	if cap(h.buf) < int(n) {
		h.buf = make([]byte, n)
	}
	body := h.buf[:n]
	if _, err := io.ReadFull(h.r, body); err != nil {
		return nil, fmt.Errorf("reading a %d-byte frame: %w", n, err)
	}
	f := &v1Frame{}
	if err := json.Unmarshal(body, f); err != nil {
		return nil, fmt.Errorf("frame %q: %w", body, err)
	}
	f.raw = body
	return f, nil
}

// send writes one frame and flushes it.
func (h *V1Host) send(m any) error {
	if err := h.write(m); err != nil {
		return err
	}
	return h.w.Flush()
}

// sendBuffered writes one frame, flushing only when no further frame is
// already read: the answers to a burst of calls leave in one write.
func (h *V1Host) sendBuffered(m any) error {
	if err := h.write(m); err != nil {
		return err
	}
	if h.r.Buffered() > 0 {
		return nil
	}
	return h.w.Flush()
}

func (h *V1Host) write(m any) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(b)))
	if _, err := h.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err = h.w.Write(b)
	return err
}

// fail is err, or the context's end when that is why the host was
// stopped, with the end of the host's stderr.
func (h *V1Host) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	return fmt.Errorf("bench: %s: %w; stderr: %s", h.name, err, h.stderr)
}

// stop kills the host, which ends any read waiting on it.
func (h *V1Host) stop() {
	h.kill.Do(func() {
		h.killed.Store(true)
		if h.cmd.Process != nil {
			_ = h.cmd.Process.Kill()
		}
	})
}

// Close ends the host: its stdin is closed (end of the connection) and it
// gets startTimeout to exit before it is killed.
func (h *V1Host) Close() error {
	_ = h.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) && h.killed.Load() {
			return nil
		}
		return err
	case <-time.After(startTimeout):
		h.stop()
		<-done
		return fmt.Errorf("bench: %s did not exit within %v of its stdin's end", h.name, startTimeout)
	}
}

// CodexPeerOptions configure CodexPeer. Zero sizes take the defaults of
// Options (N 50, Warmup 3, Rounds 5).
type CodexPeerOptions struct {
	// HostBin is our codemode-host binary, run as `codex-host`.
	HostBin string
	// CodexBin is Codex's codex-code-mode-host, run with no arguments.
	CodexBin          string
	N, Warmup, Rounds int
	// Log receives progress lines. Default: discard.
	Log io.Writer
}

// CodexPeerResult is the four scenarios through Codex's host and ours over
// the same v1 client, by scenario key. A scenario that failed on a host
// has its error instead of a Stat for that host.
type CodexPeerResult struct {
	N           int               `json:"n"`
	Warmup      int               `json:"warmup"`
	Rounds      int               `json:"rounds"`
	Ours        map[string]Stat   `json:"ours"`
	Codex       map[string]Stat   `json:"codex"`
	OursErrors  map[string]string `json:"ours_errors,omitempty"`
	CodexErrors map[string]string `json:"codex_errors,omitempty"`
}

// Systems labels of the two v1 hosts.
const (
	v1OursName  = "codex-host (v1 stdio)"
	v1CodexName = "Codex's codex-code-mode-host (v1 stdio)"
)

// v1Slot is one host under measurement: a run that fails ends that
// scenario's measurements on it, and the host is started afresh for the
// next scenario.
type v1Slot struct {
	start   func() (*V1Host, error)
	h       *V1Host
	samples map[string][]time.Duration
	errs    map[string]string
}

func (s *v1Slot) round(ctx context.Context, n, warmup int) {
	for _, sc := range Scenarios {
		if _, failed := s.errs[sc.Key]; failed {
			continue
		}
		if s.h == nil {
			h, err := s.start()
			if err != nil {
				s.errs[sc.Key] = err.Error()
				continue
			}
			s.h = h
		}
		times, err := measure(ctx, s.h, sc, n, warmup)
		if err != nil {
			s.errs[sc.Key] = err.Error()
			_ = s.h.Close()
			s.h = nil
			continue
		}
		s.samples = appendSamples(s.samples, map[string][]time.Duration{sc.Key: times})
	}
}

func (s *v1Slot) stats() (map[string]Stat, map[string]string) {
	st := map[string]Stat{}
	for k, ds := range s.samples {
		if _, failed := s.errs[k]; !failed {
			st[k] = statOf(ds)
		}
	}
	if len(s.errs) == 0 {
		return st, nil
	}
	return st, s.errs
}

// CodexPeer measures every scenario on Codex's host and on ours in Rounds
// interleaved rounds (which host goes first alternates round by round),
// the result checked every run.
func CodexPeer(ctx context.Context, opt CodexPeerOptions) (*CodexPeerResult, error) {
	o := Options{N: opt.N, Warmup: opt.Warmup, Rounds: opt.Rounds, Log: opt.Log}
	o.fill()
	logf := func(format string, args ...any) { fmt.Fprintf(o.Log, "bench: "+format+"\n", args...) }
	slots := []*v1Slot{
		{start: func() (*V1Host, error) { return StartV1Host(ctx, v1CodexName, opt.CodexBin) }, errs: map[string]string{}},
		{start: func() (*V1Host, error) { return StartV1Host(ctx, v1OursName, opt.HostBin, "codex-host") }, errs: map[string]string{}},
	}
	defer func() {
		for _, s := range slots {
			if s.h != nil {
				_ = s.h.Close()
			}
		}
	}()
	for round := range o.Rounds {
		n := o.N/o.Rounds + btoi(round < o.N%o.Rounds)
		logf("Codex's host and ours over v1, round %d of %d: %d runs per scenario", round+1, o.Rounds, n)
		for k := range slots {
			slots[(k+round)%len(slots)].round(ctx, n, o.Warmup)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	res := &CodexPeerResult{N: o.N, Warmup: o.Warmup, Rounds: o.Rounds}
	res.Codex, res.CodexErrors = slots[0].stats()
	res.Ours, res.OursErrors = slots[1].stats()
	return res, nil
}

// CodexPeerRows are the table's lines for r, or one saying why there is no
// r: skipped when Codex's host is not installed (err from CodexHostBin),
// else the error.
func CodexPeerRows(r *CodexPeerResult, err error, skipped bool) []Row {
	const system = "v1 stdio: ours vs Codex's host"
	if err != nil {
		verdict := "error: " + err.Error()
		if skipped {
			verdict = "skipped (" + err.Error() + ")"
		}
		return []Row{{Item: "all scenarios vs Codex's host", System: system, Ours: "—", Verdict: verdict}}
	}
	var rows []Row
	for _, sc := range Scenarios {
		row := Row{Item: sc.Title, System: system, Ours: "—", Peer: "—", Target: "(Codex's host, the reference)", Verdict: verdictInfo}
		ours, haveOurs := r.Ours[sc.Key]
		codex, haveCodex := r.Codex[sc.Key]
		if haveOurs {
			row.Ours = msPair(ours)
		}
		if haveCodex {
			row.Peer = msPair(codex)
		}
		switch {
		case !haveOurs:
			row.Verdict = "error: ours: " + r.OursErrors[sc.Key]
		case !haveCodex:
			row.Verdict = "n/a: Codex's host failed: " + r.CodexErrors[sc.Key]
		case codex.P50 > 0:
			row.Ratio = ours.P50 / codex.P50
		}
		rows = append(rows, row)
	}
	return rows
}
