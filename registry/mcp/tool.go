package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// exitGrace is how long a call that failed without a JSON-RPC error
// waits for the session to report that the server left, so its error can
// say why.
const exitGrace = 2 * time.Second

// tool is one MCP tool as a registry.Tool. It also implements
// registry.ReadyWaiter: calls wait until its server is connected.
type tool struct {
	srv  *Server
	def  *sdk.Tool
	raw  []byte // def as JSON, to notice changes
	spec registry.Spec
}

func newTool(s *Server, def *sdk.Tool) *tool {
	raw, _ := json.Marshal(def)
	t := &tool{srv: s, def: def, raw: raw}
	var keywords []string
	for _, k := range []string{def.Title, annotationTitle(def), s.cfg.Name} {
		if k != "" {
			keywords = append(keywords, k)
		}
	}
	desc := def.Description
	if desc == "" {
		desc = def.Title
	}
	// The schemas as the server wrote them, when recorded, keep its
	// property order; the decoded ones have lost it.
	in, out := s.listing.schemas(def)
	if in == nil {
		in = marshalSchema(def.InputSchema)
	}
	if out == nil {
		out = marshalSchema(def.OutputSchema)
	}
	t.spec = registry.Spec{
		Name:             registry.Namespaced(Namespace(s.cfg.Name), def.Name),
		Description:      desc,
		InputSchema:      inputSchema(in, s.log, def.Name),
		OutputSchema:     resultSchema(out),
		Exposure:         s.cfg.Exposure,
		SupportsParallel: !s.cfg.Sequential,
		Search:           registry.SearchInfo{Keywords: keywords},
	}
	return t
}

func annotationTitle(def *sdk.Tool) string {
	if def.Annotations != nil {
		return def.Annotations.Title
	}
	return ""
}

func (t *tool) sameAs(o *tool) bool { return bytes.Equal(t.raw, o.raw) }

// Spec returns the tool's spec. Safe from any goroutine.
func (t *tool) Spec() registry.Spec { return t.spec }

// WaitUntilReady waits until the tool's server is connected. Safe from any
// goroutine.
func (t *tool) WaitUntilReady(ctx context.Context) error {
	return t.srv.WaitUntilReady(ctx)
}

// Call calls the tool on its server. ctx's cancellation is sent to the
// server as a cancel notification; the server's progress notifications go
// to registry.ReportProgress(ctx). Safe from any goroutine, many at once.
func (t *tool) Call(ctx context.Context, inv registry.Invocation) (registry.Output, error) {
	sess, err := t.srv.liveSession(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return registry.Output{}, ctx.Err()
		}
		return registry.Output{}, t.failed("%s", strings.TrimPrefix(err.Error(), "mcp: "))
	}
	args := inv.Input
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	params := &sdk.CallToolParams{Name: t.def.Name, Arguments: args}
	if registry.WantsProgress(ctx) {
		token, untrack := t.srv.trackProgress(ctx)
		defer untrack()
		params.SetProgressToken(token)
	}
	// Closing the server (or losing it) cancels the call, so the session
	// can end without waiting for it.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(t.srv.life, cancel)
	defer stop()
	res, err := sess.CallTool(callCtx, params)
	if err != nil {
		return registry.Output{}, t.callError(ctx, err)
	}
	if res.IsError {
		msg := resultText(res)
		if msg == "" {
			msg = "the tool reported an error and no message"
		}
		return registry.Output{}, t.failed("%s", msg)
	}
	return output(res)
}

// callError maps a failed tools/call to the error the registry reports:
// the context's error when the call was cancelled (the registry makes it
// "cancelled"), else a *protocol.ToolError.
func (t *tool) callError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if t.srv.life.Err() != nil {
		return t.cutShort()
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return t.failed("server %q refused the call: %s (JSON-RPC error %d)", t.srv.cfg.Name, werr.Message, werr.Code)
	}
	// Anything else may be the connection dropping (EOF, closed): give the
	// session a moment to report that the server left, and say so.
	select {
	case <-t.srv.Done():
	case <-time.After(exitGrace):
	case <-ctx.Done():
		return ctx.Err()
	}
	if t.srv.Err() != nil {
		return t.cutShort()
	}
	return t.failed("calling server %q failed: %v", t.srv.cfg.Name, err)
}

// cutShort is the error of a call whose server left while it ran.
func (t *tool) cutShort() *protocol.ToolError {
	why := strings.TrimPrefix(t.srv.Err().Error(), "mcp: ")
	return t.failed("the call was cut short: %s; the server's tools were removed", why)
}

func (t *tool) failed(format string, args ...any) *protocol.ToolError {
	return &protocol.ToolError{
		Code:    protocol.CodeToolFailed,
		Tool:    t.spec.Name.String(),
		Message: "mcp: " + fmt.Sprintf(format, args...),
	}
}
