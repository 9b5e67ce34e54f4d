package registry

import (
	"slices"
	"sort"
	"strings"
)

// Finalize freezes the registry into a ToolSet for mode and makes it the
// Latest. It returns the same set again while nothing has changed. Safe
// from any goroutine.
//
// A default-namespace tool named exec or wait (Code Mode), or tool_search
// (when the set offers search), is replaced by the built-in of that name
// and listed in ToolSet.Dropped; that is a collision of this set only, not
// recorded in FirstCollision. In strict mode (Config.Strict) Finalize
// fails with a *CollisionError naming the first registration collision,
// else the first dropped tool. Tools whose script identifier is taken are
// left out of Code Mode (ToolSet.IdentClashes); that is not a collision.
func (r *Registry) Finalize(mode Mode) (*ToolSet, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if set := r.sets[mode]; set != nil && set.version == r.version {
		r.latest = set
		return set, nil
	}
	set := &ToolSet{
		mode:      mode,
		cfg:       &r.cfg,
		log:       r.log,
		gate:      r.gate,
		state:     r.state,
		version:   r.version,
		byName:    make(map[ToolName]*entry, len(r.entries)),
		builtins:  make(map[ToolName]*entry, 3),
		bound:     make(map[ToolName]string),
		reminders: slices.Clone(r.reminders),
	}
	searchable := func(e *entry) bool {
		if mode == ModeCodeModeOnly {
			return e.exposure == DeferredModelOnly
		}
		return e.exposure.IsDeferred()
	}
	hasSearchable := false
	for _, e := range r.entries {
		if searchable(e) && !(mode.codeMode() && isCodeModeReserved(e.name)) && e.name != Plain(SearchToolName).Key() {
			hasSearchable = true
			break
		}
	}
	searchOn := hasSearchable && !r.cfg.DisableSearch
	for _, e := range r.entries {
		if (mode.codeMode() && isCodeModeReserved(e.name)) || (searchOn && e.name == Plain(SearchToolName).Key()) {
			set.dropped = append(set.dropped, e.name)
			r.log.Warn("dropping a tool whose name is reserved in this mode", "tool", e.name.String(), "mode", mode.String())
			continue
		}
		set.entries = append(set.entries, e)
		set.byName[e.name] = e
	}
	if r.cfg.Strict {
		if r.firstCollision != nil {
			return nil, &CollisionError{Tool: *r.firstCollision}
		}
		if len(set.dropped) > 0 {
			return nil, &CollisionError{Tool: set.dropped[0]}
		}
	}
	set.buildCodeMode(r.cfg.ExcludedCodeModeNamespaces)
	descs := namespaceDescriptions(set.entries)
	set.deferNS = deferredNamespaces(set.entries, descs)
	if searchOn {
		var docs []*entry
		docDescs := make(map[string]string)
		for _, e := range set.entries {
			if searchable(e) {
				docs = append(docs, e)
				if d, ok := descs[e.name.Namespace]; ok {
					docDescs[e.name.Namespace] = d
				}
			}
		}
		set.search = r.search.get(r.deferredVersion, mode, docs, docDescs)
	}
	set.buildExecDescription(descs)
	set.buildBuiltins()
	set.buildModelTools()
	r.sets[mode] = set
	r.latest = set
	return set, nil
}

// isCodeModeReserved reports whether key is exec or wait in the default
// namespace: names the Code Mode tools take.
func isCodeModeReserved(key ToolName) bool {
	return key == Plain(ExecToolName).Key() || key == Plain(WaitToolName).Key()
}

// describes reports whether desc describes something: a description of
// only white space counts as none, so it never hides a real one.
func describes(desc string) bool { return strings.TrimSpace(desc) != "" }

// namespaceDescriptions maps each non-default namespace of entries to its
// description: the first that describes something among the tools' own
// (Spec.Search.NamespaceDescription) in registration order, else among
// the descriptions of the servers that added them. Namespaces without one
// are absent.
func namespaceDescriptions(entries []*entry) map[string]string {
	out := make(map[string]string)
	for _, e := range entries {
		if e.name.IsDefaultNamespace() {
			continue
		}
		if _, ok := out[e.name.Namespace]; !ok && describes(e.spec.Search.NamespaceDescription) {
			out[e.name.Namespace] = e.spec.Search.NamespaceDescription
		}
	}
	for _, e := range entries {
		if e.name.IsDefaultNamespace() {
			continue
		}
		if _, ok := out[e.name.Namespace]; !ok && describes(e.serverDesc) {
			out[e.name.Namespace] = e.serverDesc
		}
	}
	return out
}

// deferredNamespaces lists the non-default namespaces that have deferred
// tools in entries, by name, with their descriptions from descs.
func deferredNamespaces(entries []*entry, descs map[string]string) []NamespaceInfo {
	seen := map[string]bool{}
	var out []NamespaceInfo
	for _, e := range entries {
		if !e.exposure.IsDeferred() || e.name.IsDefaultNamespace() || seen[e.name.Namespace] {
			continue
		}
		seen[e.name.Namespace] = true
		out = append(out, NamespaceInfo{Name: e.name.Namespace, Description: descs[e.name.Namespace]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
