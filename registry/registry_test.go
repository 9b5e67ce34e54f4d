package registry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
)

func dispatchTag(t *testing.T, r *registry.Registry, name registry.ToolName) string {
	t.Helper()
	set := finalize(t, r, registry.ModeDirect)
	res, err := set.Dispatch(context.Background(), registry.Call{Name: name})
	require.NoError(t, err)
	return res.ModelText
}

func TestDefaultNamespaceAliasesCollideInBothOrders(t *testing.T) {
	for _, order := range [][2]registry.ToolName{
		{registry.Plain("lookup"), registry.Namespaced("functions", "lookup")},
		{registry.Namespaced("functions", "lookup"), registry.Plain("lookup")},
	} {
		r := newReg(t, registry.Config{})
		require.True(t, r.AddExternal(named(order[0], registry.Direct, "first")))
		assert.False(t, r.AddExternal(named(order[1], registry.Direct, "second")))
		first, ok := r.FirstCollision()
		require.True(t, ok)
		assert.Equal(t, registry.Namespaced("functions", "lookup"), first)
		assert.Equal(t, "first", dispatchTag(t, r, order[1]), "the first registrant wins, whichever spelling is used")
		assert.Len(t, r.Names(), 1)
	}
}

func TestOtherNamespacesDoNotCollide(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.True(t, r.AddExternal(named(registry.Plain("lookup"), registry.Direct, "plain")))
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__calendar", "lookup"), registry.Direct, "cal")))
	_, collided := r.FirstCollision()
	assert.False(t, collided)
	assert.Equal(t, "cal", dispatchTag(t, r, registry.Namespaced("mcp__calendar", "lookup")))
	assert.Equal(t, "plain", dispatchTag(t, r, registry.Plain("lookup")))
}

func TestExternalDuplicatesKeepTheFirstAndRecordOnlyTheFirstCollision(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(named(registry.Plain("search"), registry.Direct, "builtin")))
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__a", "x"), registry.Direct, "a")))
	assert.False(t, r.AddExternal(named(registry.Plain("search"), registry.Direct, "ext")), "external loses to a trusted tool")
	assert.False(t, r.AddExternal(named(registry.Namespaced("mcp__a", "x"), registry.Direct, "b")))
	first, ok := r.FirstCollision()
	require.True(t, ok)
	assert.Equal(t, "search", first.String())
	assert.Equal(t, "builtin", dispatchTag(t, r, registry.Plain("search")))
	assert.Equal(t, "a", dispatchTag(t, r, registry.Namespaced("mcp__a", "x")))
}

func TestTrustedDuplicatesAreProgrammingErrors(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(named(registry.Plain("read"), registry.Direct, "1")))
	assert.PanicsWithValue(t, `registry: tool "read" is already registered; built-in tool names must be unique, remove one of the registrations`, func() {
		_ = r.AddTrusted(named(registry.Namespaced("functions", "read"), registry.Direct, "2"))
	}, "under go test the default policy panics")

	r = newReg(t, registry.Config{TrustedDuplicates: registry.DuplicateError})
	require.NoError(t, r.AddTrusted(named(registry.Plain("read"), registry.Direct, "1")))
	err := r.PrependTrusted(named(registry.Plain("read"), registry.Direct, "2"))
	var dup *registry.DuplicateToolError
	require.ErrorAs(t, err, &dup)
	assert.Equal(t, "read", dup.Tool.Name)
	assert.Equal(t, "1", dispatchTag(t, r, registry.Plain("read")))
}

func TestReservedNamesAreRefusedToExternalTools(t *testing.T) {
	r := newReg(t, registry.Config{})
	assert.False(t, r.AddExternal(named(registry.Plain("exec_command"), registry.Direct, "x")))
	assert.False(t, r.AddExternal(named(registry.Namespaced("functions", "shell_command"), registry.Direct, "x")))
	_, collided := r.FirstCollision()
	assert.False(t, collided, "without a built-in of that name nothing collided")
	assert.True(t, r.AddExternal(named(registry.Namespaced("client", "exec_command"), registry.Direct, "ns")), "other namespaces may use the name")

	r = newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(named(registry.Plain("exec_command"), registry.Direct, "builtin")))
	assert.False(t, r.AddExternal(named(registry.Plain("exec_command"), registry.Direct, "ext")))
	first, collided := r.FirstCollision()
	require.True(t, collided, "with a built-in of that name the collision is recorded")
	assert.Equal(t, "exec_command", first.String())
	assert.Equal(t, "builtin", dispatchTag(t, r, registry.Plain("exec_command")))
}

func TestStrictModeFailsFinalizeNamingTheTool(t *testing.T) {
	r := newReg(t, registry.Config{Strict: true})
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__github", "search"), registry.Direct, "1")))
	require.True(t, r.AddExternal(named(registry.Namespaced("mcp__slack", "search"), registry.Direct, "1")))
	_, err := r.Finalize(registry.ModeDirect)
	require.NoError(t, err)
	assert.False(t, r.AddExternal(named(registry.Namespaced("mcp__github", "search"), registry.Direct, "2")))
	_, err = r.Finalize(registry.ModeDirect)
	var ce *registry.CollisionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, registry.Namespaced("mcp__github", "search"), ce.Tool)
	assert.EqualError(t, err, `registry: tool name collision: "mcp__github.search" is registered more than once (or uses a reserved name); rename or remove one of the tools, or turn off Config.Strict to keep the first`)
}

func TestStrictModeFailsWhenExecOrWaitIsTakenInCodeMode(t *testing.T) {
	r := newReg(t, registry.Config{Strict: true})
	require.True(t, r.AddExternal(named(registry.Plain("wait"), registry.Direct, "mine")))
	_, err := r.Finalize(registry.ModeDirect)
	require.NoError(t, err, "wait is only reserved in Code Mode")
	_, err = r.Finalize(registry.ModeCodeMode)
	assert.ErrorContains(t, err, `"wait"`)

	relaxed := newReg(t, registry.Config{})
	require.True(t, relaxed.AddExternal(named(registry.Plain("exec"), registry.Direct, "mine")))
	set := finalize(t, relaxed, registry.ModeCodeMode)
	assert.Equal(t, []registry.ToolName{registry.Namespaced("functions", "exec")}, set.Dropped())
	info, ok := set.Lookup(registry.Plain("exec"))
	require.True(t, ok)
	assert.NotEqual(t, "mine", info.Spec.Description, "exec is the Code Mode tool, not the external one")
	_, collided := relaxed.FirstCollision()
	assert.False(t, collided, "a drop belongs to the Code Mode set only")
	assert.Empty(t, finalize(t, relaxed, registry.ModeDirect).Dropped())

	strict := newReg(t, registry.Config{Strict: true})
	require.True(t, strict.AddExternal(named(registry.Plain("exec"), registry.Direct, "mine")))
	_, err = strict.Finalize(registry.ModeCodeModeOnly)
	assert.ErrorContains(t, err, `"exec"`)
	_, err = strict.Finalize(registry.ModeDirect)
	assert.NoError(t, err, "the Code Mode failure does not poison direct mode")
}

func TestPrependTrustedGoesFirstAndOrderIsKept(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("b"), registry.Direct)))
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__x", "c"), registry.Direct)))
	require.NoError(t, r.PrependTrusted(echo(registry.Plain("a"), registry.Direct)))
	require.NoError(t, r.AddTrusted(echo(registry.Plain("d"), registry.Direct)))
	assert.Equal(t, []string{"a", "b", "mcp__x.c", "d"}, modelNames(finalize(t, r, registry.ModeDirect)))
}

func TestRemoveAndServersComeAndGo(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("builtin"), registry.Direct)))
	n := r.AddServer(registry.Server{Name: "calendar", Description: "Company calendar"}, []registry.Tool{
		echo(registry.Namespaced("mcp__cal", "list"), registry.Deferred),
		echo(registry.Namespaced("mcp__cal", "create"), registry.Deferred),
		echo(registry.Plain("builtin"), registry.Direct), // collides, skipped
	})
	assert.Equal(t, 2, n)
	before := finalize(t, r, registry.ModeCodeMode)
	assert.Equal(t, []string{"builtin", "mcp__cal.list", "mcp__cal.create"}, defNames(before))
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__cal", Description: "Company calendar"}}, before.DeferredNamespaces())

	assert.Equal(t, 2, r.RemoveServer("calendar"))
	assert.Equal(t, 0, r.RemoveServer("calendar"))
	after := finalize(t, r, registry.ModeCodeMode)
	assert.Equal(t, []string{"builtin"}, defNames(after))
	assert.True(t, r.Remove(registry.Namespaced("functions", "builtin")))
	assert.False(t, r.Remove(registry.Plain("builtin")))
	assert.Empty(t, r.Names())

	// The set that advertised the calendar tools still runs them.
	v, err := before.CallTool(context.Background(), scriptCall("mcp__cal", "list", `{"text":"hi"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"text":"hi"}`, string(v))
}

func TestServerPolicyOverridesToolExposure(t *testing.T) {
	r := newReg(t, registry.Config{})
	policy := &registry.ExposurePolicy{Search: true, OmitFrom: registry.SurfaceCodeMode}
	r.AddServer(registry.Server{Name: "s", Policy: policy}, []registry.Tool{echo(registry.Namespaced("mcp__s", "t"), registry.Direct)})
	info, ok := r.Lookup(registry.Namespaced("mcp__s", "t"))
	require.True(t, ok)
	assert.Equal(t, registry.DeferredModelOnly, info.Exposure)
	assert.Equal(t, "s", info.Server)
}

func TestInvalidSpecsAreRefused(t *testing.T) {
	r := newReg(t, registry.Config{})
	bad := registry.NewFunc(registry.Spec{Name: registry.Plain("bad"), InputSchema: json.RawMessage(`{"type": 12}`)}, nil)
	err := r.AddTrusted(bad)
	assert.ErrorContains(t, err, "registry: the input schema of bad does not compile")
	assert.False(t, r.AddExternal(bad))
	assert.ErrorContains(t, r.AddTrusted(registry.NewFunc(registry.Spec{}, nil)), "registry: a tool has an empty name")
	assert.ErrorContains(t, r.AddTrusted(registry.NewFunc(registry.Spec{Name: registry.Plain("k"), Kind: "binary"}, nil)), `unknown kind "binary"`)
	assert.Empty(t, r.Names())
}

func TestFinalizeReusesTheSetUntilSomethingChanges(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("a"), registry.Direct)))
	s1 := finalize(t, r, registry.ModeDirect)
	assert.Same(t, s1, finalize(t, r, registry.ModeDirect))
	assert.Same(t, s1, r.Latest())
	s2 := finalize(t, r, registry.ModeCodeMode)
	assert.NotSame(t, s1, s2)
	assert.Same(t, s2, r.Latest())
	require.NoError(t, r.AddTrusted(echo(registry.Plain("b"), registry.Direct)))
	assert.NotSame(t, s1, finalize(t, r, registry.ModeDirect))
	assert.Equal(t, []string{"a"}, modelNames(s1), "a finalized set never changes")
}

func TestRemoveServerForgetsItsDescription(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "calendar", Description: "Company calendar"},
		[]registry.Tool{named(registry.Namespaced("mcp__cal", "list"), registry.Deferred, "List events")}))
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "mirror"},
		[]registry.Tool{named(registry.Namespaced("mcp__cal", "create"), registry.Deferred, "Create an event")}))
	before := finalize(t, r, registry.ModeDirect)
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__cal", Description: "Company calendar"}}, before.DeferredNamespaces())

	assert.Equal(t, 1, r.RemoveServer("calendar"))
	after := finalize(t, r, registry.ModeDirect)
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__cal"}}, after.DeferredNamespaces(), "the namespace stays (mirror's tool), the description goes")
	search := after.ModelTools()[len(after.ModelTools())-1]
	assert.NotContains(t, search.Description, "Company calendar")
	res, err := after.Search("company", 0)
	require.NoError(t, err)
	assert.Empty(t, res.Hits, "nor is it indexed")
	res, err = after.Search("create event", 1)
	require.NoError(t, err)
	require.Len(t, res.Groups, 1)
	assert.Empty(t, res.Groups[0].Description)
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__cal", Description: "Company calendar"}}, before.DeferredNamespaces(), "a finalized set keeps it")

	// The server comes back with other instructions: they are the ones used.
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "calendar", Description: "Team calendar"},
		[]registry.Tool{named(registry.Namespaced("mcp__cal", "list"), registry.Deferred, "List events")}))
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__cal", Description: "Team calendar"}}, finalize(t, r, registry.ModeDirect).DeferredNamespaces())
}
