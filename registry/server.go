package registry

// Server describes an external source of tools, such as an MCP server.
type Server struct {
	// Name identifies the server for RemoveServer and in logs. Required.
	Name string
	// Description (an MCP server's instructions, say) describes the
	// namespaces of its tools in tool_search when no tool of the namespace
	// gives one (Spec.Search.NamespaceDescription). It describes them only
	// while the server's tools are registered: RemoveServer forgets it. A
	// description of only white space counts as none. Default none.
	Description string
	// Policy sets the exposure of every tool of the server, overriding the
	// tools' specs. Default (nil): each tool's own Spec.Exposure.
	Policy *ExposurePolicy
}

// AddServer adds the tools of an external server that just connected, as
// AddExternal would, and returns how many were added. Tools of a server
// that is already registered are added to it.
func (r *Registry) AddServer(s Server, tools []Tool) int {
	added := 0
	for _, t := range tools {
		exp := t.Spec().Exposure
		if s.Policy != nil {
			exp = s.Policy.Exposure()
		}
		e, err := r.newEntry(t, exp, false, s.Name)
		if err != nil {
			r.log.Warn("skipping external tool with an invalid spec", "server", s.Name, "error", err)
			continue
		}
		if describes(s.Description) {
			e.serverDesc = s.Description
		}
		r.mu.Lock()
		if r.addExternalLocked(e) {
			added++
		}
		r.mu.Unlock()
	}
	return added
}

// RemoveServer removes every tool that AddServer added for the server
// named name (it left, or was disabled) and returns how many. The
// server's description goes with its tools: tool sets finalized from now
// on neither show nor index it. Tool sets already finalized keep them.
func (r *Registry) RemoveServer(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var gone []*entry
	for _, e := range r.entries {
		if !e.trusted && e.server == name {
			gone = append(gone, e)
		}
	}
	for _, e := range gone {
		r.removeLocked(e)
	}
	return len(gone)
}
