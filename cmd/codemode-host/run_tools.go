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
	"github.com/codemode-host/codemode-host/internal/fixture"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
	"github.com/codemode-host/codemode-host/runtime"
)

// runTools are the tools of one `run`: a fixture file and MCP servers.
type runTools struct {
	defs     []protocol.ToolDef
	fixtures *fixture.Set
	mcpSet   *registry.ToolSet
	mcpNS    map[string]bool // namespaces served by MCP servers
	servers  []*mcp.Server
	stderr   io.Writer
}

// loadRunTools loads the fixture file (if any) and connects the MCP
// servers (NAME=COMMAND ARGS… each). Close it when done.
func loadRunTools(ctx context.Context, stderr io.Writer, toolsFile string, servers []string) (*runTools, error) {
	t := &runTools{mcpNS: map[string]bool{}, stderr: stderr}
	if toolsFile != "" {
		set, err := fixture.Load(toolsFile)
		if err != nil {
			return nil, usageError{err}
		}
		t.fixtures = set
		t.defs = append(t.defs, set.Defs()...)
	}
	if len(servers) == 0 {
		return t, nil
	}
	reg := registry.New(registry.Config{Logger: warnLogger("registry", stderr)})
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
		t.mcpNS[srv.Namespace()] = true
	}
	set, err := reg.Finalize(registry.ModeCodeMode)
	if err != nil {
		t.Close()
		return nil, err
	}
	t.mcpSet = set
	t.defs = append(t.defs, set.CodeModeDefs()...)
	return t, nil
}

// Close stops the MCP servers.
func (t *runTools) Close() {
	for _, s := range t.servers {
		_ = s.Close()
	}
}

// CallTool implements bridge.ToolExecutor: MCP namespaces go to their
// servers, everything else to the fixture file. MCP progress is printed
// on stderr.
func (t *runTools) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	if t.mcpSet != nil && t.mcpNS[call.Namespace] {
		name := call.QualifiedName()
		ctx = registry.WithProgress(ctx, func(p registry.Progress) {
			total := ""
			if p.Total > 0 {
				total = fmt.Sprintf("/%g", p.Total)
			}
			fmt.Fprintf(t.stderr, "[progress] %s #%d: %g%s %s\n", name, call.CallID, p.Progress, total, p.Message)
		})
		return t.mcpSet.CallTool(ctx, call)
	}
	if t.fixtures != nil {
		return t.fixtures.CallTool(ctx, call)
	}
	return nil, &protocol.ToolError{Code: protocol.CodeUnknownTool, Tool: call.QualifiedName(),
		Message: "run has no tools; pass --tools FILE or --mcp NAME=COMMAND"}
}

// warnUnbound says on stderr which tools scripts cannot call, and why.
func (t *runTools) warnUnbound() {
	_, dropped := runtime.Bindable(t.defs)
	for _, d := range dropped {
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
