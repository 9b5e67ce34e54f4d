package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// waitSchema is the input schema of the model-facing wait tool. Its
// description (tsdecl.WaitDescription) explains the parameters; cell_id
// quotes the header of a running cell's result (tsdecl.RunningPrefix).
var waitSchema = fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "cell_id": {"type": "string", "description": "From the result's first line: %s<cell_id>."},
    "yield_time_ms": {"type": "number", "description": "Default %d."},
    "wake_on_output": {"type": "boolean"},
    "max_tokens": {"type": "number", "description": "Output budget of this wait, in tokens. Default %d."},
    "terminate": {"type": "boolean"}
  },
  "required": ["cell_id"],
  "additionalProperties": false
}`, tsdecl.RunningPrefix, tsdecl.DefaultWaitMS, protocol.DefaultLimits.OutputTokens)

var (
	waitSchemaCompiled   = sync.OnceValue(func() *jsonschema.Schema { return mustSchema(Plain(WaitToolName), waitSchema) })
	searchSchemaCompiled = sync.OnceValue(func() *jsonschema.Schema { return mustSchema(Plain(SearchToolName), searchSchema(DefaultSearchLimit)) })
)

// buildCodeMode picks the tools bound into Code Mode, in registration
// order: namespace not excluded, then protocol.Bind (exposure permits it,
// identifier free; exec and wait are reserved). It renders the exec and
// wait texts.
func (s *ToolSet) buildCodeMode(excluded []string) {
	var cands []*entry
	var defs []protocol.ToolDef
	for _, e := range s.entries {
		if !e.name.IsDefaultNamespace() && slices.Contains(excluded, e.name.Namespace) {
			continue
		}
		cands = append(cands, e)
		defs = append(defs, e.def())
	}
	b := protocol.Bind(defs, ExecToolName, WaitToolName)
	for _, t := range b.Bound {
		s.bound[cands[t.Index].name] = t.Ident
	}
	for _, d := range b.Dropped {
		if d.Reason != protocol.DropIdentTaken {
			continue
		}
		winner := Plain(d.Winner)
		if d.WinnerIndex >= 0 {
			winner = cands[d.WinnerIndex].name
		}
		loser := cands[d.Index].name
		s.clashes = append(s.clashes, IdentClash{Ident: d.Ident, Winner: winner, Loser: loser})
		s.log.Warn("leaving a tool out of Code Mode: its script identifier is taken", "tool", loser.String(), "ident", d.Ident, "taken_by", winner.String())
	}
	s.unbound = b.Dropped
	s.defs = b.Defs()
	s.waitDesc = tsdecl.WaitDescription()
}

// CodeModeUnbound lists the registered tools, outside excluded namespaces,
// that scripts cannot call, in registration order, and why (protocol.Bind).
func (s *ToolSet) CodeModeUnbound() []protocol.DroppedTool { return slices.Clone(s.unbound) }

// def is the tool's definition for the host.
func (e *entry) def() protocol.ToolDef {
	ns := e.name.Namespace
	if e.name.IsDefaultNamespace() {
		ns = ""
	}
	exp := e.exposure
	return protocol.ToolDef{
		Namespace:    ns,
		Name:         e.name.Name,
		Description:  e.spec.Description,
		Kind:         e.spec.Kind,
		InputSchema:  e.spec.InputSchema,
		OutputSchema: e.spec.OutputSchema,
		Exposure:     exp.String(),
	}
}

// buildBuiltins adds exec and wait (Code Mode) and tool_search (search on).
func (s *ToolSet) buildBuiltins() {
	if s.mode.codeMode() {
		spec, schema := execSpec(s.cfg.ExecShape, s.execDesc)
		s.addBuiltin(spec, s.cfg.Exec, schema).ungated = true
		s.addBuiltin(Spec{Name: Plain(WaitToolName), Description: s.waitDesc, InputSchema: json.RawMessage(waitSchema)},
			s.cfg.Wait, waitSchemaCompiled()).ungated = true
	}
	if s.search != nil {
		s.addBuiltin(Spec{Name: Plain(SearchToolName), Description: s.searchDescription(),
			InputSchema: json.RawMessage(searchSchema(s.cfg.SearchLimit)), SupportsParallel: true},
			s.runSearch, searchSchemaCompiled())
	}
}

// addBuiltin adds a tool of the registry's own and returns its entry.
func (s *ToolSet) addBuiltin(spec Spec, fn HandlerFunc, schema *jsonschema.Schema) *entry {
	name := spec.Name
	if fn == nil {
		fn = func(context.Context, Invocation) (Output, error) {
			return Output{}, toolError(protocol.CodeUnknownTool, name,
				"registry: %s is handled by the agent, not the registry; set Config.Exec and Config.Wait or intercept the call before dispatching", name)
		}
	}
	spec.Exposure = DirectModelOnly
	if spec.Kind == "" {
		spec.Kind = protocol.KindFunction
	}
	e := &entry{tool: NewFunc(spec, fn), spec: spec, name: spec.Name.Key(), exposure: DirectModelOnly, trusted: true, schema: schema}
	s.builtins[e.name] = e
	return e
}

// buildModelTools lists what the model sees (see ToolSet.ModelTools).
func (s *ToolSet) buildModelTools() {
	add := func(e *entry, desc string) { s.model = append(s.model, e.modelTool(desc)) }
	if s.mode.codeMode() {
		add(s.builtins[Plain(ExecToolName).Key()], s.execDesc)
		add(s.builtins[Plain(WaitToolName).Key()], s.waitDesc)
	}
	for _, e := range s.entries {
		if s.offersDirectly(e) {
			add(e, e.spec.Description)
		}
	}
	// In code_mode_only the index holds only DeferredModelOnly tools, so
	// tool_search exists only when there are some.
	if st := s.builtins[Plain(SearchToolName).Key()]; st != nil {
		add(st, st.spec.Description)
	}
}

// modelTool is the tool as the model is offered it, described by desc.
func (e *entry) modelTool(desc string) ModelTool {
	return ModelTool{Name: e.name, Description: desc, Kind: e.spec.Kind, InputSchema: e.spec.InputSchema, Grammar: e.spec.Grammar}
}
