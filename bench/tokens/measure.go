package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// bytesPerToken is the estimate the report uses: a token is about four
// bytes of English text and JSON.
const bytesPerToken = 4

// tokens estimates the tokens of n bytes (rounded up).
func tokens(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// placement says where the catalogue's declarations are.
type placement string

const (
	// inline: every tool is Direct, so each mode shows its declaration.
	inline placement = "inline"
	// deferred: every tool is Deferred, found through search.
	deferred placement = "deferred"
	// loaded: deferred, in the step after one tool_search (its default
	// limit of tools found, now in the session's tool list).
	loaded placement = "deferred+search"
)

// searchQuery is the tool_search the loaded rows make.
const searchQuery = "read a file"

// row is what the model is sent in one step for one mode and placement.
type row struct {
	Mode registry.Mode `json:"-"`
	// ModeName is Mode's spelling.
	ModeName  string    `json:"mode"`
	Placement placement `json:"declarations"`
	// Tools is how many tools the model's list has (exec, wait and
	// tool_search included).
	Tools int `json:"tools_listed"`
	// ListBytes is the tool list as a Responses API request's "tools"
	// array: everything the model reads about its tools in a step.
	ListBytes int `json:"bytes"`
	// ExecBytes and WaitBytes are exec's and wait's entries in it.
	ExecBytes int `json:"exec_bytes"`
	WaitBytes int `json:"wait_bytes"`
	// Tokens is ListBytes / bytesPerToken, rounded up.
	Tokens int `json:"tokens"`

	list []registry.ModelTool
}

// measure finalizes the catalogue in every mode and placement, with exec
// in the given shape.
func measure(ctx context.Context, cat catalogue, shape registry.ExecShape) ([]row, error) {
	var rows []row
	for _, p := range []placement{inline, deferred, loaded} {
		exp := registry.Direct
		if p != inline {
			exp = registry.Deferred
		}
		reg := registry.New(registry.Config{Logger: hclog.NewNullLogger(), ExecShape: shape})
		closeAll, err := register(ctx, reg, cat, exp)
		if err != nil {
			return nil, err
		}
		for _, m := range []registry.Mode{registry.ModeDirect, registry.ModeCodeMode, registry.ModeCodeModeOnly} {
			r, err := measureStep(ctx, reg, m, p)
			if err != nil {
				closeAll()
				return nil, err
			}
			rows = append(rows, r)
		}
		closeAll()
	}
	return rows, nil
}

func measureStep(ctx context.Context, reg *registry.Registry, m registry.Mode, p placement) (row, error) {
	set, err := reg.Finalize(m)
	if err != nil {
		return row{}, err
	}
	session := "tokens-" + m.String()
	tools, err := set.ModelToolsFor(session)
	if err != nil {
		return row{}, err
	}
	if p == loaded && set.SearchEnabled() {
		in, _ := json.Marshal(map[string]string{"query": searchQuery})
		if _, err := set.Dispatch(ctx, registry.Call{Name: registry.Plain(registry.SearchToolName), Input: in, SessionID: session}); err != nil {
			return row{}, fmt.Errorf("tool_search in %s: %w", m, err)
		}
		if tools, err = set.ModelToolsFor(session); err != nil {
			return row{}, err
		}
	}
	r := row{Mode: m, ModeName: m.String(), Placement: p, Tools: len(tools), list: tools}
	list := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		list[i] = responsesTool(t)
		switch t.Name {
		case registry.Plain(registry.ExecToolName).Key():
			r.ExecBytes = len(list[i])
		case registry.Plain(registry.WaitToolName).Key():
			r.WaitBytes = len(list[i])
		}
	}
	all, err := json.Marshal(list)
	if err != nil {
		return row{}, err
	}
	r.ListBytes = len(all)
	r.Tokens = tokens(r.ListBytes)
	return r, nil
}

// responsesTool is t as an entry of a Responses API request's "tools":
// a function tool with its JSON Schema, or a custom (freeform) tool with
// its grammar. Names are flattened to the script identifier
// (mcp__files__read_file), as the API allows no dots.
func responsesTool(t registry.ModelTool) json.RawMessage {
	var v any
	name := t.Name.JSIdent()
	if t.Kind == protocol.KindFreeform {
		ct := map[string]any{"type": "custom", "name": name, "description": t.Description}
		if t.Grammar != "" {
			ct["format"] = map[string]any{"type": "grammar", "syntax": "lark", "definition": t.Grammar}
		}
		v = ct
	} else {
		params := t.InputSchema
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		v = map[string]any{"type": "function", "name": name, "description": t.Description, "parameters": compact(params), "strict": false}
	}
	b, _ := json.Marshal(v)
	return b
}

// compact is a JSON text without insignificant white space, as a client
// library sends it, its keys in their order.
func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
