package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/responses"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/render"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// handle runs one tool call of the model and returns its output item.
// exec and wait are the agent's own (they drive the bridge); every other
// tool, tool_search included, goes through the registry's pipeline.
func (c *conversation) handle(ctx context.Context, set *registry.ToolSet, mc modelCall) responses.ResponseInputItemUnionParam {
	name, ok := c.names[mc.name]
	if !ok {
		return textOutput(mc, errorText(fmt.Errorf("%w: %q; call one of the tools you were given", errNoTool, mc.name)))
	}
	codeMode := set.Mode() != registry.ModeDirect
	switch {
	case codeMode && name.Equal(registry.Plain(registry.ExecToolName)):
		return c.exec(ctx, set, mc)
	case codeMode && name.Equal(registry.Plain(registry.WaitToolName)):
		return c.wait(ctx, mc)
	}
	return c.dispatch(ctx, set, name, mc)
}

// cellOutput renders a cell's result in the item type of mc's kind.
func cellOutput(mc modelCall, res *protocol.CellResult) responses.ResponseInputItemUnionParam {
	if mc.custom {
		return render.CustomToolCallOutput(mc.callID, res)
	}
	return render.FunctionCallOutput(mc.callID, res)
}

// exec runs the model's program as a cell of the conversation's session.
// A custom call's input is the program; a function call's arguments are
// {"code": program, "yield_ms"?: n} (registry.ExecArgs reads both).
func (c *conversation) exec(ctx context.Context, set *registry.ToolSet, mc modelCall) responses.ResponseInputItemUnionParam {
	call := registry.Call{Kind: protocol.KindFunction, Input: json.RawMessage(mc.input)}
	if mc.custom {
		call = registry.Call{Kind: protocol.KindFreeform, Input: registry.FreeformInput(mc.input)}
	}
	args, err := registry.ExecArgs(call)
	var pragma protocol.Pragma
	if err == nil {
		pragma, err = protocol.ParsePragma(args.Code)
	}
	if err != nil {
		return textOutput(mc, errorText(err))
	}
	yield := c.yield(args.YieldMS)
	if pragma.YieldMS > 0 {
		yield = c.yield(pragma.YieldMS) // the host lets the pragma win too
	}
	ctx, cancel := context.WithTimeout(ctx, yield+cellGrace)
	defer cancel()
	res, err := c.session.Exec(ctx, bridge.ExecRequest{Source: args.Code, Tools: set.CodeModeDefs(), Yield: yield})
	if err != nil {
		return textOutput(mc, errorText(fmt.Errorf("the script did not run: %w", err)))
	}
	return cellOutput(mc, res)
}

// waitArgs are the wait tool's arguments (registry's wait schema).
type waitArgs struct {
	CellID       string  `json:"cell_id"`
	YieldTimeMS  float64 `json:"yield_time_ms"`
	WakeOnOutput bool    `json:"wake_on_output"`
	MaxTokens    float64 `json:"max_tokens"`
	Terminate    bool    `json:"terminate"`
}

// wait waits on (or stops) a cell the model's earlier exec left running.
func (c *conversation) wait(ctx context.Context, mc modelCall) responses.ResponseInputItemUnionParam {
	var args waitArgs
	if err := decodeStrict(mc.input, &args); err != nil || args.CellID == "" {
		if err == nil {
			err = fmt.Errorf("cell_id is required")
		}
		return textOutput(mc, errorText(fmt.Errorf("wait takes {\"cell_id\": string, \"yield_time_ms\"?: number, \"wake_on_output\"?: boolean, \"terminate\"?: boolean}: %v", err)))
	}
	var res *protocol.CellResult
	var err error
	if args.Terminate {
		tctx, cancel := context.WithTimeout(ctx, cellGrace)
		defer cancel()
		res, err = c.session.Terminate(tctx, args.CellID)
	} else {
		// A model's wait blocks until the cell ends or the time it gave
		// passes (every answer costs it a turn), unless it asks to wake on
		// output.
		ms := uint64(max(args.YieldTimeMS, 0))
		if ms == 0 {
			ms = tsdecl.DefaultWaitMS
		}
		yield := c.yield(ms)
		wctx, cancel := context.WithTimeout(ctx, yield+cellGrace)
		defer cancel()
		res, err = c.session.WaitFor(wctx, bridge.WaitRequest{Cell: args.CellID, Yield: yield, Quiet: !args.WakeOnOutput,
			MaxOutputTokens: uint32(min(max(args.MaxTokens, 0), math.MaxUint32))})
	}
	if err != nil {
		return textOutput(mc, errorText(err))
	}
	return cellOutput(mc, res)
}

// yield is the yield the model asked for (ms, 0 = Config.Yield), capped
// at MaxYield.
func (c *conversation) yield(ms uint64) time.Duration {
	if ms == 0 {
		return c.a.cfg.Yield
	}
	if ms >= uint64(MaxYield/time.Millisecond) {
		return MaxYield // before multiplying: a huge ms would wrap
	}
	return time.Duration(ms) * time.Millisecond
}

// dispatch runs a direct tool call (tool_search included) through the
// registry's pipeline, in the conversation's session: what tool_search
// finds is in the session's tool list from the next step on
// (ToolSet.ModelToolsFor).
func (c *conversation) dispatch(ctx context.Context, set *registry.ToolSet, name registry.ToolName, mc modelCall) responses.ResponseInputItemUnionParam {
	info, _ := set.Lookup(name)
	call := registry.Call{
		Name:        name,
		Kind:        info.Spec.Kind,
		Input:       json.RawMessage(mc.input),
		ModelCallID: mc.callID,
		SessionID:   c.session.ID(),
	}
	if mc.custom {
		call.Kind = protocol.KindFreeform
		call.Input = registry.FreeformInput(mc.input)
	} else if call.Kind == protocol.KindFreeform || strings.TrimSpace(mc.input) == "" {
		call.Kind = protocol.KindFunction // a function call of a freeform tool fails with the registry's message
		if strings.TrimSpace(mc.input) == "" {
			call.Input = nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.a.cfg.ToolTimeout)
	defer cancel()
	res, err := set.Dispatch(ctx, call)
	if err != nil {
		return textOutput(mc, errorText(err))
	}
	return textOutput(mc, res.ModelText)
}

// decodeStrict decodes JSON arguments into v, refusing unknown fields.
func decodeStrict(args string, v any) error {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
