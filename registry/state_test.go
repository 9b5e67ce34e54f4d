package registry_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// todos is the state of the todo test tool; todoPrefix its configuration.
var (
	todos      = registry.NewStateKey[[]string]("todo.items")
	todoPrefix = registry.NewConfigKey[string]("todo.items")
)

// todoTool adds its "item" argument (advertised as "task") to the
// session's todo list and returns the list. It reads its state through
// the context, as a NewTypedFunc tool must.
func todoTool() *registry.FuncTool {
	type in struct {
		Item string `json:"item"`
	}
	return registry.NewTypedFunc(registry.Spec{
		Name:        registry.Plain("todo_add"),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"item":{"type":"string"}},"required":["item"]}`),
		ParamNames:  map[string]string{"item": "task"},
	}, func(ctx context.Context, args in) ([]string, error) {
		sess := registry.SessionStateOf(ctx)
		prefix, err := todoPrefix.Get(sess)
		if err != nil {
			return nil, err
		}
		var out []string
		err = todos.Update(sess, func(l *[]string) error {
			*l = append(*l, prefix+args.Item)
			out = *l
			return nil
		})
		return out, err
	})
}

func todoSet(t testing.TB, cfg registry.Config) (*registry.Registry, *registry.ToolSet) {
	t.Helper()
	r := newReg(t, cfg)
	require.NoError(t, r.AddTrusted(todoTool()))
	return r, finalize(t, r, registry.ModeCodeMode)
}

func addTodo(t testing.TB, set *registry.ToolSet, session, item string) []string {
	t.Helper()
	v, err := set.CallTool(ctxBG(), protocol.ToolCall{SessionID: session, CellID: "c", Name: "todo_add", Kind: protocol.KindFunction,
		Input: json.RawMessage(`{"task":` + string(registry.FreeformInput(item)) + `}`)})
	require.NoError(t, err)
	var out []string
	require.NoError(t, json.Unmarshal(v, &out))
	return out
}

func TestToolStateIsKeptPerSession(t *testing.T) {
	_, set := todoSet(t, registry.Config{})
	assert.Equal(t, []string{"a"}, addTodo(t, set, "s1", "a"))
	assert.Equal(t, []string{"x"}, addTodo(t, set, "s2", "x"))
	assert.Equal(t, []string{"a", "b"}, addTodo(t, set, "s1", "b"))
	// A model call in the same session sees the same state.
	res, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("todo_add"), SessionID: "s2", Input: json.RawMessage(`{"task":"y"}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `["x","y"]`, string(res.Value))
}

func TestStateIsWrittenAsAVersionedFileAndRestored(t *testing.T) {
	dir := t.TempDir()
	r, set := todoSet(t, registry.Config{State: registry.StateConfig{Dir: dir, FlushDelay: time.Hour}})
	sess, err := r.SessionState("s1")
	require.NoError(t, err)
	require.NoError(t, todoPrefix.Set(sess, "- "))
	addTodo(t, set, "s1", "a")
	addTodo(t, set, "weird/id ✓", "b")
	_, err = os.Stat(filepath.Join(dir, "s1.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing is written before FlushDelay or Close")
	require.NoError(t, r.Close())

	data, err := os.ReadFile(filepath.Join(dir, "s1.json"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"session":"s1","tools":{"todo.items":["- a"]},"config":{"todo.items":"- "}}`, string(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Len(t, names, 2, "one file per session, no temporary files: %v", names)
	assert.True(t, strings.HasPrefix(names[0], "_"), "an id that is not a safe file name is hashed: %v", names)

	// A new registry (a restarted parent) reopens the sessions.
	r2, set2 := todoSet(t, registry.Config{State: registry.StateConfig{Dir: dir}})
	defer r2.Close()
	assert.Equal(t, []string{"- a", "- c"}, addTodo(t, set2, "s1", "c"))
	assert.Equal(t, []string{"b", "d"}, addTodo(t, set2, "weird/id ✓", "d"))
}

func TestStateIsWrittenAfterFlushDelay(t *testing.T) {
	dir := t.TempDir()
	writes := make(chan string, 10)
	r, set := todoSet(t, registry.Config{State: registry.StateConfig{Dir: dir, FlushDelay: 5 * time.Millisecond,
		OnWrite: func(id string, err error) { assert.NoError(t, err); writes <- id }}})
	defer r.Close()
	addTodo(t, set, "s1", "a")
	select {
	case id := <-writes:
		assert.Equal(t, "s1", id)
	case <-time.After(10 * time.Second):
		t.Fatal("the state was not written after FlushDelay")
	}
	data, err := os.ReadFile(filepath.Join(dir, "s1.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"a"`)
}

func TestChangesAreWrittenTogether(t *testing.T) {
	var n int
	var mu sync.Mutex
	r, set := todoSet(t, registry.Config{State: registry.StateConfig{Dir: t.TempDir(), FlushDelay: time.Hour,
		OnWrite: func(string, error) { mu.Lock(); n++; mu.Unlock() }}})
	for range 20 {
		addTodo(t, set, "s1", "x")
	}
	require.NoError(t, r.FlushState())
	require.NoError(t, r.FlushState())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, n, "20 changes, one write; a second flush has nothing to write")
}

func TestSyncStateIsOnDiskWhenTheCallReturns(t *testing.T) {
	dir := t.TempDir()
	_, set := todoSet(t, registry.Config{State: registry.StateConfig{Dir: dir, Sync: true}})
	addTodo(t, set, "s1", "a")
	data, err := os.ReadFile(filepath.Join(dir, "s1.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"a"`)
}

func TestUnreadableStateFilesAreReportedAndKept(t *testing.T) {
	for name, tc := range map[string]struct{ content, says string }{
		"corrupt":       {`{"version":1,`, "is not valid JSON"},
		"newer":         {`{"version":2,"session":"s1"}`, "has version 2, newer than this program's 1; upgrade"},
		"no version":    {`{"session":"s1"}`, "has no version"},
		"other session": {`{"version":1,"session":"s9"}`, `belongs to session "s9"`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s1.json")
			require.NoError(t, os.WriteFile(file, []byte(tc.content), 0o600))
			r, set := todoSet(t, registry.Config{State: registry.StateConfig{Dir: dir, Sync: true}})
			_, err := r.SessionState("s1")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.says)
			_, err = set.CallTool(ctxBG(), protocol.ToolCall{SessionID: "s1", Name: "todo_add", Input: json.RawMessage(`{"task":"a"}`)})
			assert.Contains(t, toolErr(t, err).Message, tc.says)
			require.NoError(t, r.Close())
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, tc.content, string(data), "the file is not overwritten")
		})
	}
}

func TestStateValuesAreTypedCopies(t *testing.T) {
	type cursor struct {
		File string `json:"file"`
		Line int    `json:"line"`
	}
	key := registry.NewStateKey[cursor]("cursor")
	r := newReg(t, registry.Config{})
	sess, err := r.SessionState("s")
	require.NoError(t, err)
	assert.Equal(t, "s", sess.ID())
	c, err := key.Get(sess)
	require.NoError(t, err)
	assert.Equal(t, cursor{}, c)
	require.NoError(t, key.Set(sess, cursor{File: "a.go", Line: 3}))
	c, _ = key.Get(sess)
	assert.Equal(t, cursor{File: "a.go", Line: 3}, c)
	assert.EqualError(t, key.Update(sess, func(c *cursor) error { c.Line = 7; return assert.AnError }), assert.AnError.Error())
	c, _ = key.Get(sess)
	assert.Equal(t, 3, c.Line, "a failed update changes nothing")
	// Another type under the same name is refused with a hint.
	_, err = registry.NewStateKey[int]("cursor").Get(sess)
	assert.ErrorContains(t, err, `can't be decoded into int`)
	require.NoError(t, key.Delete(sess))
	c, _ = key.Get(sess)
	assert.Equal(t, cursor{}, c)
}

func TestStateOutsideACallFails(t *testing.T) {
	_, err := todos.Get(registry.SessionStateOf(context.Background()))
	assert.ErrorContains(t, err, "registry: no session state here")
	assert.Nil(t, registry.Invocation{}.SessionState())
}

func TestConcurrentUpdatesAreSerialised(t *testing.T) {
	counter := registry.NewStateKey[int]("n")
	r := newReg(t, registry.Config{State: registry.StateConfig{Dir: t.TempDir(), FlushDelay: time.Millisecond}})
	require.NoError(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("inc"), SupportsParallel: true},
		func(ctx context.Context, inv registry.Invocation) (registry.Output, error) {
			return registry.Output{}, counter.Update(inv.SessionState(), func(n *int) error { *n++; return nil })
		})))
	set := finalize(t, r, registry.ModeDirect)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			_, err := set.Dispatch(ctxBG(), registry.Call{Name: registry.Plain("inc"), SessionID: "s"})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.NoError(t, r.CloseSession("s"))
	sess, err := r.SessionState("s")
	require.NoError(t, err)
	n, err := counter.Get(sess)
	require.NoError(t, err)
	assert.Equal(t, 50, n, "read back from the file after CloseSession")
	require.NoError(t, r.Close())
}
