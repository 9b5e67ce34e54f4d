package registry

import (
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// ToolName names a tool: a name inside a namespace. The default namespace
// is protocol.DefaultNamespace ("functions"); an empty namespace means the
// same, so ToolName{"", "lookup"} and ToolName{"functions", "lookup"} are
// one key. Any other namespace ("mcp__calendar") is kept as is and is a
// different key. Compare names with Key or Equal, not ==.
type ToolName struct {
	Namespace string
	Name      string
}

// Plain names a tool in the default namespace.
func Plain(name string) ToolName { return ToolName{Name: name} }

// Namespaced names a tool in namespace ns ("" or "functions" is the
// default namespace).
func Namespaced(ns, name string) ToolName { return ToolName{Namespace: ns, Name: name} }

// IsDefaultNamespace reports whether n is in the default namespace.
func (n ToolName) IsDefaultNamespace() bool { return protocol.IsDefaultNamespace(n.Namespace) }

// Key is the canonical form used as the registry key: the namespace is
// "functions" for the default namespace and unchanged otherwise.
func (n ToolName) Key() ToolName {
	if n.IsDefaultNamespace() {
		n.Namespace = protocol.DefaultNamespace
	}
	return n
}

// Equal reports whether n and o name the same tool.
func (n ToolName) Equal(o ToolName) bool { return n.Key() == o.Key() }

// String is how a name is displayed to people, in logs and in errors: the
// bare name in the default namespace, else "namespace.name" (the same as
// protocol.QualifiedName).
func (n ToolName) String() string { return protocol.QualifiedName(n.Namespace, n.Name) }

// JSIdent is the identifier the tool is bound to in scripts
// (tools.<ident>); see protocol.JSIdent.
func (n ToolName) JSIdent() string { return protocol.JSIdent(n.Namespace, n.Name) }

// Compare orders names: the default namespace first, then other namespaces
// in byte order, then names in byte order within a namespace. It returns
// -1, 0 or +1; names that are Equal compare 0. Registration order, not
// this order, is what the model sees; Compare is for stable listings.
func (n ToolName) Compare(o ToolName) int {
	an, bn := n.sortNamespace(), o.sortNamespace()
	if c := strings.Compare(an, bn); c != 0 {
		return c
	}
	return strings.Compare(n.Name, o.Name)
}

// sortNamespace maps the default namespace to "" so that it sorts first.
func (n ToolName) sortNamespace() string {
	if n.IsDefaultNamespace() {
		return ""
	}
	return n.Namespace
}

// namespaceDisplay is the namespace as shown in grouped listings.
func (n ToolName) namespaceDisplay() string {
	if n.IsDefaultNamespace() {
		return protocol.DefaultNamespace
	}
	return n.Namespace
}
