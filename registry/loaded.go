package registry

import (
	"slices"
)

// loadedKey is where a session's tools loaded by tool_search live: in the
// session's state (SessionState; the "tools" object of its state file,
// under this name), so they survive a restart when Config.State.Dir is
// set. Tools should not use this name for their own state.
var loadedKey = NewStateKey[[]loadedName](LoadedToolsStateName)

// LoadedToolsStateName is the session state name (StateKey) under which
// the registry keeps the tools tool_search has loaded for a session.
const LoadedToolsStateName = "registry.tool_search.loaded"

// loadedName is a loaded tool's name as saved.
type loadedName struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// MaxLoadedTools bounds a session's loaded tools: past it, the ones found
// longest ago leave the list first, so a long conversation's tool list
// (and the state file) stays within what one step can carry.
const MaxLoadedTools = 64

// recordLoaded adds what a tool_search call found to its session's loaded
// tools, after the ones loaded before, each once, keeping the newest
// MaxLoadedTools.
func (s *ToolSet) recordLoaded(inv Invocation, res SearchResult) error {
	st := inv.SessionState()
	if st == nil || len(res.Hits) == 0 {
		return nil
	}
	return loadedKey.Update(st, func(v *[]loadedName) error {
		for _, h := range res.Hits {
			n := loadedName{Namespace: h.Name.Key().Namespace, Name: h.Name.Name}
			if !slices.Contains(*v, n) {
				*v = append(*v, n)
			}
		}
		if extra := len(*v) - MaxLoadedTools; extra > 0 {
			*v = slices.Delete(*v, 0, extra)
		}
		return nil
	})
}

// ModelToolsFor is the model's tool list for this step of session
// sessionID: ModelTools, with the tools tool_search found in the
// session's earlier steps (its loaded tools, Registry.LoadedTools) after
// the initial ones and before tool_search, in the order they were found.
// A loaded tool is listed while this set can still find it with
// tool_search; one that is gone or no longer deferred is skipped (and
// listed again if it comes back). Safe from any goroutine; it fails only
// when the session's state file can't be read.
func (s *ToolSet) ModelToolsFor(sessionID string) ([]ModelTool, error) {
	if s.search == nil {
		return s.ModelTools(), nil
	}
	names, err := loadedKey.Get(&SessionState{store: s.state, id: sessionID})
	if err != nil || len(names) == 0 {
		return s.ModelTools(), err
	}
	searchable := make(map[ToolName]*entry, len(s.search.entries))
	for _, e := range s.search.entries {
		searchable[e.name] = e
	}
	var loaded []ModelTool
	for _, n := range names {
		if e := searchable[Namespaced(n.Namespace, n.Name).Key()]; e != nil {
			loaded = append(loaded, e.modelTool(e.spec.Description))
		}
	}
	out := make([]ModelTool, 0, len(s.model)+len(loaded))
	out = append(out, s.model[:len(s.model)-1]...) // tool_search is last
	out = append(out, loaded...)
	return append(out, s.model[len(s.model)-1]), nil
}

// LoadedTools lists the tools tool_search has loaded for session id, in
// the order they were found: the tools ToolSet.ModelToolsFor adds to the
// session's tool list. Safe from any goroutine.
func (r *Registry) LoadedTools(id string) ([]ToolName, error) {
	st, err := r.SessionState(id)
	if err != nil {
		return nil, err
	}
	names, err := loadedKey.Get(st)
	out := make([]ToolName, len(names))
	for i, n := range names {
		out[i] = Namespaced(n.Namespace, n.Name).Key()
	}
	return out, err
}

// ResetLoadedTools forgets the tools tool_search has loaded for session
// id (when the agent starts the conversation over, say): from the next
// ModelToolsFor on, its tool list is the initial one again. Safe from any
// goroutine.
func (r *Registry) ResetLoadedTools(id string) error {
	st, err := r.SessionState(id)
	if err != nil {
		return err
	}
	return loadedKey.Delete(st)
}
