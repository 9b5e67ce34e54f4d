package registry

import (
	"encoding/json"
	"slices"

	"github.com/hashicorp/go-hclog"

	"github.com/codemode-host/codemode-host/protocol"
)

// ToolInfo describes a registered tool.
type ToolInfo struct {
	// Name is the canonical name.
	Name ToolName
	// Spec is the tool's spec as read when it was added.
	Spec Spec
	// Exposure is the tool's effective exposure.
	Exposure Exposure
	// Trusted is true for built-in tools.
	Trusted bool
	// Server is the external server that added it, if any.
	Server string
	// Parallel reports whether calls may run at the same time as other
	// parallel calls: the spec allows it and the tool is not Hidden.
	Parallel bool
}

func (e *entry) info() ToolInfo {
	return ToolInfo{Name: e.name, Spec: e.spec, Exposure: e.exposure, Trusted: e.trusted, Server: e.server, Parallel: e.parallel()}
}

// ModelTool is one tool as the model is offered it.
type ModelTool struct {
	// Name is the tool's name; Name.Namespace is "functions" for the
	// default namespace.
	Name ToolName
	// Description is the text the model reads.
	Description string
	// Kind is function or freeform.
	Kind protocol.ToolKind
	// InputSchema is a function tool's JSON Schema (nil: any object).
	InputSchema json.RawMessage
	// Grammar is a freeform tool's grammar, if any.
	Grammar string
}

// IdentClash records a tool left out of Code Mode because another tool
// (or the reserved exec/wait) claimed its script identifier first.
type IdentClash struct {
	// Ident is the contested identifier.
	Ident string
	// Winner is the tool bound to it (Plain("exec") or Plain("wait") for
	// the reserved names).
	Winner ToolName
	// Loser is the tool left out.
	Loser ToolName
}

// NamespaceInfo is a namespace of deferred tools and its description.
type NamespaceInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ToolSet is an immutable snapshot of the registry for one tool mode,
// made by Registry.Finalize: the tools the model sees, the definitions
// sent to the host, and the tools that execute the calls made from either.
// All methods are safe from any goroutine.
type ToolSet struct {
	mode      Mode
	cfg       *Config
	log       hclog.Logger
	gate      *gate
	state     *stateStore
	version   uint64
	entries   []*entry // registered tools that survived finalizing, in order
	byName    map[ToolName]*entry
	builtins  map[ToolName]*entry // exec, wait, tool_search
	bound     map[ToolName]string // Code Mode tools → identifier
	defs      []protocol.ToolDef
	clashes   []IdentClash
	unbound   []protocol.DroppedTool
	dropped   []ToolName // default-namespace tools replaced by exec/wait/tool_search
	model     []ModelTool
	execDesc  string
	waitDesc  string
	search    *searchIndex // nil when tool_search is off
	deferNS   []NamespaceInfo
	reminders []Reminder
}

// Mode is the tool mode the set was finalized for.
func (s *ToolSet) Mode() Mode { return s.mode }

// Tools describes every tool the set can dispatch in registration order,
// whatever its exposure (exec, wait and tool_search are not included).
func (s *ToolSet) Tools() []ToolInfo {
	out := make([]ToolInfo, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.info()
	}
	return out
}

// Lookup describes the tool named name, if the set can dispatch it.
func (s *ToolSet) Lookup(name ToolName) (ToolInfo, bool) {
	e := s.lookup(name.Key())
	if e == nil {
		return ToolInfo{}, false
	}
	return e.info(), true
}

func (s *ToolSet) lookup(key ToolName) *entry {
	if e, ok := s.byName[key]; ok {
		return e
	}
	return s.builtins[key]
}

// SupportsParallel reports whether calls to the tool named name may run
// alongside other parallel calls; ok is false if there is no such tool.
// Hidden tools never do.
func (s *ToolSet) SupportsParallel(name ToolName) (parallel, ok bool) {
	e := s.lookup(name.Key())
	if e == nil {
		return false, false
	}
	return e.parallel(), true
}

// ModelTools is the model's initial tool list, in order; ModelToolsFor
// adds what tool_search loaded for a session. In ModeDirect: Direct and
// DirectModelOnly tools, then tool_search if any tool is deferred. In
// ModeCodeMode: exec and wait first, then the same (exec's description
// declares only the Code Mode tools not listed). In ModeCodeModeOnly:
// exec, wait and DirectModelOnly tools, then tool_search only if some tool
// is DeferredModelOnly (scripts find deferred Code Mode tools with
// ALL_TOOLS and searchTools()). No tool is described twice. exec is a
// freeform or a function tool as Config.ExecShape says.
func (s *ToolSet) ModelTools() []ModelTool { return slices.Clone(s.model) }

// CodeModeDefs are the definitions to send to the host with each cell:
// the tools whose exposure permits Code Mode and whose identifier was
// free, in registration order, Exposure set. The slice is a copy.
func (s *ToolSet) CodeModeDefs() []protocol.ToolDef { return slices.Clone(s.defs) }

// IdentClashes lists the tools left out of Code Mode because their script
// identifier was taken.
func (s *ToolSet) IdentClashes() []IdentClash { return slices.Clone(s.clashes) }

// Dropped lists the default-namespace tools left out because exec, wait
// or tool_search took their names in this set (each is a collision).
func (s *ToolSet) Dropped() []ToolName { return slices.Clone(s.dropped) }

// ExecDescription is the description of the model-facing exec tool.
func (s *ToolSet) ExecDescription() string { return s.execDesc }

// WaitDescription is the description of the model-facing wait tool.
func (s *ToolSet) WaitDescription() string { return s.waitDesc }

// DeferredNamespaces lists the non-default namespaces that have deferred
// tools, by name, each with its description: the first registered tool of
// the namespace (of any exposure) whose Spec.Search.NamespaceDescription
// is not empty or only white space, else the first such Server.Description
// of the servers that added its tools, else none. The search index and
// tool_search's results use the same descriptions.
func (s *ToolSet) DeferredNamespaces() []NamespaceInfo { return slices.Clone(s.deferNS) }

// SearchEnabled reports whether the set offers tool_search.
func (s *ToolSet) SearchEnabled() bool { return s.search != nil }
