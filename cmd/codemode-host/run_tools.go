package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/cmd/codemode-host/internal/fixture"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// runTools are the tools of one `run`: a fixture file and MCP servers,
// all registered in one registry, so run binds and checks them as a real
// parent does: only the tools the registry's Code Mode set binds are sent
// to the host, and every call goes through the registry's dispatch (kind
// and input schema checks, with the registry's error texts).
type runTools struct {
	defs    []protocol.ToolDef // the tools sent to the host
	set     *registry.ToolSet  // nil when run has no tools
	servers []*mcp.Server
	stderr  io.Writer
}

// loadRunTools loads the fixture file (if any) and connects the MCP
// servers (NAME=COMMAND ARGS… each). Close it when done.
func loadRunTools(ctx context.Context, stderr io.Writer, toolsFile string, servers []string) (*runTools, error) {
	t := &runTools{stderr: stderr}
	if toolsFile == "" && len(servers) == 0 {
		return t, nil
	}
	// The registry's own log lines would repeat what run reports itself
	// (a refused fixture tool, the tools left unbound): keep it quiet
	// except while the MCP servers connect and serve calls.
	logger := warnLogger("registry", stderr)
	logger.SetLevel(hclog.Off)
	reg := registry.New(registry.Config{Logger: logger})
	if toolsFile != "" {
		set, err := fixture.Load(toolsFile)
		if err != nil {
			return nil, usageError{err}
		}
		if err := set.AddTo(reg); err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", toolsFile, err)}
		}
	}
	logger.SetLevel(hclog.Warn)
	for _, spec := range servers {
		cfg, err := mcp.ParseFlag(spec)
		if err != nil {
			t.Close()
			return nil, usageError{fmt.Errorf("--mcp %q: %w", spec, err)}
		}
		cfg.Exposure = registry.Direct
		srv, err := mcp.Connect(ctx, reg, cfg)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("--mcp %q: %w", spec, err)
		}
		t.servers = append(t.servers, srv)
	}
	logger.SetLevel(hclog.Off)
	set, err := reg.Finalize(registry.ModeCodeMode)
	logger.SetLevel(hclog.Warn)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.set = set
	t.defs = set.CodeModeDefs()
	return t, nil
}

// Close stops the MCP servers.
func (t *runTools) Close() {
	for _, s := range t.servers {
		_ = s.Close()
	}
}

// CallTool implements bridge.ToolExecutor: every call goes through the
// registry's dispatch, to its fixture answer or its MCP server. MCP
// progress is printed on stderr.
func (t *runTools) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	if t.set == nil {
		return nil, &protocol.ToolError{Code: protocol.CodeUnknownTool, Tool: call.QualifiedName(),
			Message: "run has no tools; pass --tools FILE or --mcp NAME=COMMAND"}
	}
	name := call.QualifiedName()
	ctx = registry.WithProgress(ctx, func(p registry.Progress) {
		total := ""
		if p.Total > 0 {
			total = fmt.Sprintf("/%g", p.Total)
		}
		fmt.Fprintf(t.stderr, "[progress] %s #%d: %g%s %s\n", name, call.CallID, p.Progress, total, p.Message)
	})
	return t.set.CallTool(ctx, call)
}

// unbound names each registered tool scripts cannot call, and why: what
// the registry's Code Mode set left out (protocol.Bind), the names exec
// and wait took, and anything the host's binding (protocol.Bind again,
// on what is sent) would still drop.
func (t *runTools) unbound() []string {
	if t.set == nil {
		return nil
	}
	var out []string
	for _, d := range t.set.CodeModeUnbound() {
		out = append(out, d.String())
	}
	for _, n := range t.set.Dropped() {
		out = append(out, fmt.Sprintf("%s: the name is reserved for the Code Mode %s tool", n, n.Name))
	}
	for _, d := range protocol.Bind(t.defs).Dropped {
		out = append(out, d.String())
	}
	return out
}

// warnUnbound says on stderr which tools scripts cannot call, and why.
func (t *runTools) warnUnbound() {
	for _, d := range t.unbound() {
		fmt.Fprintf(t.stderr, "codemode-host: not bound: %s\n", d)
	}
}

// tracer prints every tool call on w (a lockedWriter): one line when it
// starts and one when it ends, with its arguments, result and duration.
type tracer struct {
	next bridge.ToolExecutor
	w    io.Writer
}

func (t *tracer) printf(format string, args ...any) {
	fmt.Fprintf(t.w, format, args...)
}

// lockedWriter serialises writes from many goroutines to one stream, so
// lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// warnLogger logs warnings and errors of one part of `run` on w.
func warnLogger(name string, w io.Writer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Output: w, Level: hclog.Warn})
}

// CallTool implements bridge.ToolExecutor.
func (t *tracer) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	name := call.QualifiedName()
	start := time.Now()
	t.printf("→ %s #%d %s\n", name, call.CallID, oneLine(call.Input))
	v, err := t.next.CallTool(ctx, call)
	took := time.Since(start).Round(10 * time.Microsecond)
	if err != nil {
		t.printf("← %s #%d error after %s: %v\n", name, call.CallID, took, err)
	} else {
		t.printf("← %s #%d ok after %s: %s\n", name, call.CallID, took, oneLine(v))
	}
	return v, err
}

// oneLine renders JSON compactly on one line, cut at 2,000 bytes.
func oneLine(v json.RawMessage) string {
	var b bytes.Buffer
	s := string(v)
	if err := json.Compact(&b, v); err == nil {
		s = b.String()
	}
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
