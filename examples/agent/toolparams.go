package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// maxToolName is the longest tool name the Responses API takes.
const maxToolName = 64

// toolParams is this step's tool list for the Responses API: the set's
// model tools for the conversation's session (with the tools tool_search
// found in earlier steps), and the map from each wire name to its tool. A
// tool's wire name is its script identifier (mcp__everything__get_sum),
// which the API's name rule allows; a tool whose wire name another took
// is left out.
func (c *conversation) toolParams(set *registry.ToolSet) ([]responses.ToolUnionParam, map[string]registry.ToolName, error) {
	model, err := set.ModelToolsFor(c.session.ID())
	if err != nil {
		return nil, nil, err
	}
	names := make(map[string]registry.ToolName, len(model))
	var tools []responses.ToolUnionParam
	for _, t := range model {
		wire := wireName(t.Name)
		if other, taken := names[wire]; taken {
			fmt.Fprintf(c.a.cfg.Log, "leaving %s out of the tool list: %s has its name %q\n", t.Name, other, wire)
			continue
		}
		names[wire] = t.Name
		tools = append(tools, toolParam(wire, t))
	}
	return tools, names, nil
}

// wireName is a tool's name on the wire: its script identifier, '$'
// replaced and cut to maxToolName bytes.
func wireName(n registry.ToolName) string {
	w := strings.ReplaceAll(n.JSIdent(), "$", "_")
	if len(w) > maxToolName {
		w = w[:maxToolName]
	}
	return w
}

// toolParam is one model tool: a custom tool for freeform tools (with
// their Lark grammar, if any), else a function tool with its schema. The
// schema's top-level values stay JSON text, so its properties keep the
// order the tool (an MCP server's tools/list) gave them: a map of decoded
// values would be sent with its keys sorted.
func toolParam(wire string, t registry.ModelTool) responses.ToolUnionParam {
	if t.Kind == protocol.KindFreeform {
		ct := &responses.CustomToolParam{Name: wire, Description: param.NewOpt(t.Description)}
		if t.Grammar != "" {
			ct.Format = shared.CustomToolInputFormatUnionParam{OfGrammar: &shared.CustomToolInputFormatGrammarParam{Definition: t.Grammar, Syntax: "lark"}}
		}
		return responses.ToolUnionParam{OfCustom: ct}
	}
	schema := map[string]any{"type": "object"}
	var top map[string]json.RawMessage
	if len(t.InputSchema) > 0 && json.Unmarshal(t.InputSchema, &top) == nil && top != nil {
		schema = make(map[string]any, len(top))
		for k, v := range top {
			schema[k] = v
		}
	}
	return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
		Name:        wire,
		Description: param.NewOpt(t.Description),
		Parameters:  schema,
		Strict:      param.NewOpt(false),
	}}
}
