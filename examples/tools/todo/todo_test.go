package todo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/examples/tools/todo"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/runtime"
)

func newSet(t *testing.T, dir string) (*registry.Registry, *registry.ToolSet) {
	t.Helper()
	reg := registry.New(registry.Config{State: registry.StateConfig{Dir: dir, Sync: true}})
	t.Cleanup(func() { assert.NoError(t, reg.Close()) })
	require.NoError(t, reg.AddTrusted(todo.Tool()))
	set, err := reg.Finalize(registry.ModeCodeMode)
	require.NoError(t, err)
	return reg, set
}

// cell runs src in V8 in session, with set's tools, and returns the text
// of its last output item.
func cell(t *testing.T, rt *runtime.Runtime, set *registry.ToolSet, session, src string) string {
	t.Helper()
	res, err := rt.Run(context.Background(), runtime.CellRequest{SessionID: session, Source: src, Tools: set.CodeModeDefs(), Caller: set})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.NotEmpty(t, res.Items)
	return res.Items[len(res.Items)-1].Text
}

func TestScriptsAndTheModelShareASessionsTodoList(t *testing.T) {
	dir := t.TempDir()
	_, set := newSet(t, dir)
	rt := runtime.New(runtime.Config{})
	t.Cleanup(rt.Close)

	got := cell(t, rt, set, "s1", `const l = await tools.todo_write({todos: [{content: "parse", status: "in_progress"}, {content: "apply", status: "pending"}]});
return l.map(i => i.content + ":" + i.status).join(",");`)
	assert.Equal(t, "parse:in_progress,apply:pending", got)

	// Another cell of the session sees the list; another session does not.
	got = cell(t, rt, set, "s1", `const l = await tools.todo_write({todos: [{content: "parse", status: "completed"}], merge: true});
return l.map(i => i.content + ":" + i.status).join(",");`)
	assert.Equal(t, "parse:completed,apply:pending", got)
	assert.Equal(t, "1", cell(t, rt, set, "s2", `return String((await tools.todo_write({todos: [{content: "x", status: "pending"}]})).length);`))

	// The model calls it by name, with the advertised parameter name.
	res, err := set.Dispatch(context.Background(), registry.Call{Name: registry.Plain(todo.Name), SessionID: "s1",
		Input: json.RawMessage(`{"todos":[{"content":"apply","status":"in_progress"}],"merge":true}`)})
	require.NoError(t, err)
	assert.Equal(t, "[x] parse\n[~] apply", res.ModelText)

	// The code's own name is not a parameter the model or scripts have.
	got = cell(t, rt, set, "s1", `try { await tools.todo_write({items: []}); return "accepted"; } catch (e) { return e.code + ": " + e.message; }`)
	assert.Contains(t, got, `invalid_arguments: registry: todo_write has no parameter "items"; it is called "todos"`)
	got = cell(t, rt, set, "s1", `try { await tools.todo_write({todos: [{content: "a", status: "in_progress"}, {content: "b", status: "in_progress"}]}); return "accepted"; } catch (e) { return e.message; }`)
	assert.Equal(t, "todo: todos has 2 items in progress; keep one in progress at a time and mark the others pending or completed", got)

	// A restarted parent (a new registry on the same directory) reopens the session.
	_, set2 := newSet(t, dir)
	got = cell(t, rt, set2, "s1", `return (await tools.todo_write({todos: [], merge: true})).map(i => i.content + ":" + i.status).join(",");`)
	assert.Equal(t, "parse:completed,apply:in_progress", got)
}

func TestTheDeclarationShowsTheAdvertisedName(t *testing.T) {
	reg, _ := newSet(t, t.TempDir())
	set, err := reg.Finalize(registry.DefaultAgentMode) // exec declares every tool
	require.NoError(t, err)
	assert.Contains(t, set.ExecDescription(), "todos:")
	assert.NotContains(t, set.ExecDescription(), "items:")
}
