package registry_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
)

// calendarTools registers a direct tool and three deferred calendar tools
// (one of them model-only).
func calendarTools(t *testing.T, cfg registry.Config) *registry.Registry {
	r := newReg(t, cfg)
	require.NoError(t, r.AddTrusted(named(registry.Plain("shell"), registry.Direct, "Run a shell command")))
	for _, tl := range []struct {
		name, desc string
		exp        registry.Exposure
	}{
		{"create_event", "Create a calendar event", registry.Deferred},
		{"list_events", "List calendar events in a range", registry.Deferred},
		{"ask_attendee", "Ask a calendar attendee a question", registry.DeferredModelOnly},
	} {
		require.True(t, r.AddExternal(named(registry.Namespaced("mcp__cal__", tl.name), tl.exp, tl.desc)))
	}
	return r
}

// search calls tool_search as the model does, through Dispatch.
func search(t *testing.T, set *registry.ToolSet, session, query string) {
	t.Helper()
	require.NoError(t, searchErr(set, session, query))
}

func searchErr(set *registry.ToolSet, session, query string) error {
	in, _ := json.Marshal(map[string]any{"query": query, "limit": 1})
	_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain(registry.SearchToolName), Input: in, SessionID: session})
	return err
}

func listed(t *testing.T, set *registry.ToolSet, session string) []string {
	t.Helper()
	tools, err := set.ModelToolsFor(session)
	require.NoError(t, err)
	var out []string
	for _, mt := range tools {
		out = append(out, mt.Name.String())
	}
	return out
}

func TestToolSearchLoadsWhatItFoundIntoTheNextStep(t *testing.T) {
	r := calendarTools(t, registry.Config{})
	set := finalize(t, r, registry.ModeCodeMode)
	initial := []string{"exec", "wait", "shell", "tool_search"}
	assert.Equal(t, initial, listed(t, set, "s1"))

	search(t, set, "s1", "create a calendar event")
	next := finalize(t, r, registry.ModeCodeMode)
	assert.Equal(t, []string{"exec", "wait", "shell", "mcp__cal__.create_event", "tool_search"}, listed(t, next, "s1"),
		"the tool found in step N is in step N+1's list, before tool_search")
	assert.Equal(t, initial, listed(t, next, "s2"), "per session")
	assert.Equal(t, initial, modelNames(next), "ModelTools stays the initial list")

	search(t, next, "s1", "list calendar events")
	search(t, next, "s1", "create a calendar event")
	assert.Equal(t, []string{"exec", "wait", "shell", "mcp__cal__.create_event", "mcp__cal__.list_events", "tool_search"}, listed(t, next, "s1"),
		"loaded tools stay, in the order they were found, each once")
	for _, mt := range must(next.ModelToolsFor("s1")) {
		if mt.Name.Name == "create_event" {
			assert.Equal(t, "Create a calendar event", mt.Description)
			assert.NotEmpty(t, mt.Kind)
		}
	}
	names, err := r.LoadedTools("s1")
	require.NoError(t, err)
	assert.Equal(t, []registry.ToolName{registry.Namespaced("mcp__cal__", "create_event"), registry.Namespaced("mcp__cal__", "list_events")}, names)

	// The model calls a loaded tool directly, through the same set.
	res, err := next.Dispatch(ctxBG(), registry.Call{Name: registry.Namespaced("mcp__cal__", "create_event"), SessionID: "s1"})
	require.NoError(t, err)
	assert.Equal(t, "Create a calendar event", res.ModelText)

	require.NoError(t, r.ResetLoadedTools("s1"))
	assert.Equal(t, initial, listed(t, next, "s1"), "reset: back to the initial list")
	names, err = r.LoadedTools("s1")
	require.NoError(t, err)
	assert.Empty(t, names)
}

func TestLoadedToolsFollowTheSet(t *testing.T) {
	r := calendarTools(t, registry.Config{})
	set := finalize(t, r, registry.ModeDirect)
	search(t, set, "s", "list calendar events")
	assert.Equal(t, []string{"shell", "mcp__cal__.list_events", "tool_search"}, listed(t, finalize(t, r, registry.ModeDirect), "s"))

	require.True(t, r.Remove(registry.Namespaced("mcp__cal__", "list_events")))
	assert.Equal(t, []string{"shell", "tool_search"}, listed(t, finalize(t, r, registry.ModeDirect), "s"), "a tool that is gone is not listed")
	assert.Equal(t, []string{"shell", "mcp__cal__.list_events", "tool_search"}, listed(t, set, "s"), "the older set still has it")
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__cal__", "list_events"), registry.Deferred, "List calendar events in a range")))
	assert.Equal(t, []string{"shell", "mcp__cal__.list_events", "tool_search"}, listed(t, finalize(t, r, registry.ModeDirect), "s"), "and listed again when it comes back")

	// code_mode_only searches only model-only tools; scripts find the rest.
	only := finalize(t, r, registry.ModeCodeModeOnly)
	assert.Equal(t, []string{"exec", "wait", "tool_search"}, listed(t, only, "s"), "list_events is for scripts in code_mode_only")
	search(t, only, "s", "ask an attendee")
	assert.Equal(t, []string{"exec", "wait", "mcp__cal__.ask_attendee", "tool_search"}, listed(t, only, "s"))
}

func TestLoadedToolsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	r := calendarTools(t, registry.Config{State: registry.StateConfig{Dir: dir, Sync: true}})
	search(t, finalize(t, r, registry.ModeCodeMode), "thread-1", "create a calendar event")
	data, err := os.ReadFile(filepath.Join(dir, "thread-1.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), registry.LoadedToolsStateName, "kept in the session's state file")

	r2 := calendarTools(t, registry.Config{State: registry.StateConfig{Dir: dir, Sync: true}})
	assert.Equal(t, []string{"exec", "wait", "shell", "mcp__cal__.create_event", "tool_search"}, listed(t, finalize(t, r2, registry.ModeCodeMode), "thread-1"))
}

func TestConcurrentSearchesLoadEveryHit(t *testing.T) {
	r := newReg(t, registry.Config{})
	const n = 16
	for i := range n {
		require.True(t, r.AddExternal(named(registry.Namespaced("mcp__x__", fmt.Sprintf("tool%d", i)), registry.Deferred, fmt.Sprintf("widget%d", i))))
	}
	set := finalize(t, r, registry.ModeDirect)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, searchErr(set, "s", fmt.Sprintf("widget%d", i)))
		}()
	}
	wg.Wait()
	names, err := r.LoadedTools("s")
	require.NoError(t, err)
	assert.Len(t, names, n)
	assert.Len(t, listed(t, set, "s"), n+1)
}

func TestLoadedToolsKeepTheNewestMaxLoadedTools(t *testing.T) {
	r := newReg(t, registry.Config{})
	n := registry.MaxLoadedTools + 2
	for i := range n {
		require.True(t, r.AddExternal(named(registry.Namespaced("mcp__x__", fmt.Sprintf("tool%d", i)), registry.Deferred, fmt.Sprintf("widget%d", i))))
	}
	set := finalize(t, r, registry.ModeDirect)
	for i := range n {
		search(t, set, "s", fmt.Sprintf("widget%d", i))
	}
	names, err := r.LoadedTools("s")
	require.NoError(t, err)
	require.Len(t, names, registry.MaxLoadedTools)
	assert.Equal(t, registry.Namespaced("mcp__x__", "tool2"), names[0], "the two found first left the list")
	assert.Equal(t, registry.Namespaced("mcp__x__", fmt.Sprintf("tool%d", n-1)), names[len(names)-1])
	assert.Len(t, listed(t, set, "s"), registry.MaxLoadedTools+1)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
