package registry

import (
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// What each mode offers, so that no tool is described twice in a step:
//
//	mode            tool list (JSON Schema)            exec's description (TypeScript)
//	direct          Direct, DirectModelOnly            (no exec)
//	code_mode       Direct, DirectModelOnly            CodeModeOnly tools; one line saying the
//	                                                   listed tools are callable too
//	code_mode_only  DirectModelOnly                    every tool scripts may call
//
// plus tool_search when there are searchable tools (the tools it loads join
// the list: ModelToolsFor), and exec's guidance on finding Deferred tools.

// offersDirectly reports whether the model's tool list offers e in this
// set's mode (before tool_search loads anything).
func (s *ToolSet) offersDirectly(e *entry) bool {
	if s.mode == ModeCodeModeOnly {
		return e.exposure == DirectModelOnly
	}
	return e.exposure.IsDirect()
}

// buildExecDescription renders exec's description for the set's mode: the
// declarations of the bound tools the model's list does not offer, and,
// in ModeCodeMode, one line for the ones it does. namespaces describes
// the namespaces (an MCP server's instructions, say; see
// namespaceDescriptions): each heads its declared tools.
func (s *ToolSet) buildExecDescription(namespaces map[string]string) {
	opts := tsdecl.ExecOptions{Namespaces: namespaces}
	if s.mode != ModeCodeMode {
		s.execDesc = opts.ExecDescription(s.defs)
		return
	}
	var declared []protocol.ToolDef
	listed := false
	for _, d := range s.defs {
		if e := s.byName[Namespaced(d.Namespace, d.Name).Key()]; e != nil && s.offersDirectly(e) {
			listed = true
			continue
		}
		declared = append(declared, d)
	}
	desc := opts.ExecDescription(declared)
	if listed || s.search != nil {
		desc += "\n\n" + s.listedToolsNote()
	}
	s.execDesc = desc
}

// listedToolsNote tells the model, in ModeCodeMode, that the tools of its
// list (those tool_search loads included) are callable from a cell, and
// which are not.
func (s *ToolSet) listedToolsNote() string {
	var b strings.Builder
	b.WriteString("The tools in your tool list can be called here too, by the same name and with the same input: `await tools.<name>(input)`; each one's `declaration` in `ALL_TOOLS` gives its result type. Not ")
	not := []string{ExecToolName, WaitToolName}
	if s.search != nil {
		not = append(not, SearchToolName)
	}
	for _, e := range s.entries {
		if s.offersDirectly(e) && s.bound[e.name] == "" {
			not = append(not, e.name.JSIdent())
		}
	}
	b.WriteString(strings.Join(not[:len(not)-1], ", "))
	b.WriteString(" or ")
	b.WriteString(not[len(not)-1])
	b.WriteString(".")
	return b.String()
}

// APIName is the name to offer the tool under in a model API without
// namespaces: its script identifier (protocol.JSIdent: the name, after
// namespace__ outside the default namespace), so that the model calls a
// tool by the same name directly and from exec.
func (t ModelTool) APIName() string { return t.Name.JSIdent() }
