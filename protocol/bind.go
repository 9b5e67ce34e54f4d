package protocol

import "fmt"

// Binding is the Code Mode filter's answer for a list of tools: which
// ones scripts can call and under which tools.<ident>, and which are
// dropped and why. Bind makes it; the registry's Code Mode set, the
// runtime's cell binding, the exec description and `codemode-host run`
// all read it, so they agree.
type Binding struct {
	// Bound are the tools scripts can call, in input order.
	Bound []BoundTool
	// Dropped are the tools left out, in input order.
	Dropped []DroppedTool
}

// BoundTool is one tool a Binding binds.
type BoundTool struct {
	// Def is the tool's definition, as given.
	Def ToolDef
	// Ident is its script identifier: tools.<Ident>.
	Ident string
	// Index is its position in the list given to Bind.
	Index int
}

// DropReason says why Bind left a tool out.
type DropReason int

const (
	// DropExposure: the tool's exposure keeps it out of Code Mode
	// (CodeModeCallable is false).
	DropExposure DropReason = iota + 1
	// DropIdentTaken: an earlier tool, or a reserved name, holds the
	// tool's identifier.
	DropIdentTaken
)

// DroppedTool is one tool a Binding leaves out, and why.
type DroppedTool struct {
	// Def is the tool's definition, as given.
	Def ToolDef
	// Index is its position in the list given to Bind.
	Index int
	// Reason says why it was dropped.
	Reason DropReason
	// Ident is the identifier the tool would have had.
	Ident string
	// Winner is who holds Ident (DropIdentTaken only): the qualified
	// name of the earlier tool, or the reserved name itself.
	Winner string
	// WinnerIndex is the earlier tool's position in the list given to
	// Bind, or -1 when Winner is a reserved name or Reason is not
	// DropIdentTaken.
	WinnerIndex int
}

// String names the tool and why it is not bound, e.g.
// `ask_user: exposure "hidden" is not callable from scripts`.
func (d DroppedTool) String() string {
	switch d.Reason {
	case DropExposure:
		return d.Def.QualifiedName() + ": " + exposureRefusal(d.Def.Exposure)
	case DropIdentTaken:
		return fmt.Sprintf("%s: identifier tools.%s is already bound to %s", d.Def.QualifiedName(), d.Ident, d.Winner)
	}
	return d.Def.QualifiedName() + ": not bound"
}

// exposureRefusal is the one wording of why an exposure keeps a tool out
// of Code Mode; the exec check and DroppedTool.String both use it.
func exposureRefusal(exposure string) string {
	return fmt.Sprintf("exposure %q is not callable from scripts", exposure)
}

// Defs are the bound tools' definitions, in order.
func (b Binding) Defs() []ToolDef {
	out := make([]ToolDef, len(b.Bound))
	for i, t := range b.Bound {
		out[i] = t.Def
	}
	return out
}

// Bind is the one Code Mode filter: it binds, in order, every tool whose
// exposure permits Code Mode (CodeModeCallable) as tools.<JSIdent(
// namespace, name)>, the first tool to claim an identifier keeping it.
// reserved are identifiers taken before any tool (the registry reserves
// exec and wait); a tool that claims one is dropped with that Winner.
// Bind does not change defs. Safe from any goroutine.
func Bind(defs []ToolDef, reserved ...string) Binding {
	type claim struct {
		name  string
		index int
	}
	claimed := make(map[string]claim, len(defs)+len(reserved))
	for _, r := range reserved {
		claimed[r] = claim{name: r, index: -1}
	}
	var b Binding
	b.Bound = make([]BoundTool, 0, len(defs))
	for i, d := range defs {
		if !CodeModeCallable(d.Exposure) {
			b.Dropped = append(b.Dropped, DroppedTool{Def: d, Index: i, Reason: DropExposure,
				Ident: JSIdent(d.Namespace, d.Name), WinnerIndex: -1})
			continue
		}
		id := JSIdent(d.Namespace, d.Name)
		if first, ok := claimed[id]; ok {
			b.Dropped = append(b.Dropped, DroppedTool{Def: d, Index: i, Reason: DropIdentTaken,
				Ident: id, Winner: first.name, WinnerIndex: first.index})
			continue
		}
		claimed[id] = claim{name: d.QualifiedName(), index: i}
		b.Bound = append(b.Bound, BoundTool{Def: d, Ident: id, Index: i})
	}
	return b
}
