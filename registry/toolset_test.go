package registry_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// sixTools registers one tool per exposure, named after it.
func sixTools(t *testing.T, cfg registry.Config) *registry.Registry {
	r := newReg(t, cfg)
	for _, e := range []registry.Exposure{registry.Direct, registry.Deferred, registry.CodeModeOnly,
		registry.DirectModelOnly, registry.DeferredModelOnly, registry.Hidden} {
		require.NoError(t, r.AddTrusted(echo(registry.Plain(e.String()), e)))
	}
	return r
}

func TestModelVisibleToolsPerMode(t *testing.T) {
	r := sixTools(t, registry.Config{})
	assert.Equal(t, []string{"direct", "direct_model_only", "tool_search"}, modelNames(finalize(t, r, registry.ModeDirect)))
	assert.Equal(t, []string{"exec", "wait", "direct", "direct_model_only", "tool_search"}, modelNames(finalize(t, r, registry.ModeCodeMode)))
	assert.Equal(t, []string{"exec", "wait", "direct_model_only", "tool_search"}, modelNames(finalize(t, r, registry.ModeCodeModeOnly)),
		"only exec, wait and *ModelOnly tools (deferred_model_only through tool_search)")

	r = newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("d"), registry.Direct)))
	require.NoError(t, r.AddTrusted(echo(registry.Plain("deferred"), registry.Deferred)))
	assert.Equal(t, []string{"exec", "wait"}, modelNames(finalize(t, r, registry.ModeCodeModeOnly)),
		"without DeferredModelOnly tools there is nothing for tool_search in code_mode_only")
}

func TestCodeModeDefsHoldOnlyToolsCodeModeMayCall(t *testing.T) {
	r := sixTools(t, registry.Config{})
	for _, m := range []registry.Mode{registry.ModeDirect, registry.ModeCodeMode, registry.ModeCodeModeOnly} {
		set := finalize(t, r, m)
		defs := set.CodeModeDefs()
		require.Len(t, defs, 3, m.String())
		for i, want := range []string{"direct", "deferred", "code_mode_only"} {
			assert.Equal(t, want, defs[i].Name)
			assert.Equal(t, want, defs[i].Exposure)
			assert.Equal(t, protocol.KindFunction, defs[i].Kind)
			assert.JSONEq(t, objSchema, string(defs[i].InputSchema))
		}
	}
}

func TestIdentifierClashesFirstClaimantWins(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__a", "b"), registry.Direct)))
	require.True(t, r.AddExternal(echo(registry.Plain("mcp__a__b"), registry.Direct)))
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp-a", "b"), registry.Deferred)))
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__a", "c"), registry.Direct)))
	set := finalize(t, r, registry.ModeCodeMode)
	assert.Equal(t, []string{"mcp__a.b", "mcp-a.b", "mcp__a.c"}, defNames(set), "mcp-a.b binds as mcp_a__b, no clash")
	assert.Equal(t, []registry.IdentClash{
		{Ident: "mcp__a__b", Winner: registry.Namespaced("mcp__a", "b"), Loser: registry.Namespaced("functions", "mcp__a__b")},
	}, set.IdentClashes())
	_, collided := r.FirstCollision()
	assert.False(t, collided, "identifier clashes are not name collisions")

	_, err := set.CallTool(ctxBG(), scriptCall("", "mcp__a__b", `{"text":"x"}`))
	assert.Equal(t, protocol.CodeNotInCodeMode, toolErr(t, err).Code, "a clash loser is not callable from scripts")
}

func TestExecAndWaitIdentifiersAreReserved(t *testing.T) {
	r := newReg(t, registry.Config{})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("wait"), registry.Direct)))
	require.NoError(t, r.AddTrusted(echo(registry.Plain("other"), registry.Direct)))
	set := finalize(t, r, registry.ModeDirect)
	assert.Equal(t, []string{"other"}, defNames(set), "even without exec, a script can't get a tools.wait")
	assert.Equal(t, []registry.IdentClash{{Ident: "wait", Winner: registry.Plain("wait"), Loser: registry.Namespaced("functions", "wait")}}, set.IdentClashes())
	assert.Contains(t, modelNames(set), "wait", "in direct mode the tool itself is still offered")
}

func TestExcludedNamespacesStayOutOfCodeMode(t *testing.T) {
	r := newReg(t, registry.Config{ExcludedCodeModeNamespaces: []string{"mcp__secret"}})
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__secret", "get"), registry.Direct)))
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__ok", "get"), registry.Direct)))
	set := finalize(t, r, registry.ModeCodeMode)
	assert.Equal(t, []string{"mcp__ok.get"}, defNames(set))
	assert.Contains(t, modelNames(set), "mcp__secret.get", "still a direct tool")
}

func TestExecAndWaitDescriptionsComeFromTheRenderer(t *testing.T) {
	r := sixTools(t, registry.Config{})
	set := finalize(t, r, registry.ModeCodeModeOnly)
	assert.Equal(t, tsdecl.ExecDescription(set.CodeModeDefs()), set.ExecDescription(), "code_mode_only declares every bound tool")
	assert.Equal(t, tsdecl.WaitDescription(), set.WaitDescription())
	tools := set.ModelTools()
	assert.Equal(t, protocol.KindFreeform, tools[0].Kind, "exec takes raw source")
	assert.Equal(t, set.ExecDescription(), tools[0].Description)
	assert.Equal(t, protocol.KindFunction, tools[1].Kind)
	assert.Contains(t, string(tools[1].InputSchema), "cell_id")
	assert.Contains(t, string(tools[1].InputSchema), "Script running with cell ID", "cell_id quotes the header of a running cell's result")
	assert.Equal(t, "Echo direct_model_only", tools[2].Description, "model-only tools get no declaration")

	plain := finalize(t, r, registry.ModeDirect).ModelTools()
	assert.Equal(t, "Echo direct", plain[0].Description, "no declaration without Code Mode")
}

func TestNoModeDescribesAToolTwice(t *testing.T) {
	r := sixTools(t, registry.Config{})
	declares := func(desc, ident string) bool { return strings.Contains(desc, "  "+ident+"(args") }
	for _, m := range []registry.Mode{registry.ModeDirect, registry.ModeCodeMode, registry.ModeCodeModeOnly} {
		set := finalize(t, r, m)
		exec := ""
		listed := map[string]bool{}
		for _, mt := range set.ModelTools() {
			if mt.Name.Name == registry.ExecToolName {
				exec = mt.Description
				continue
			}
			assert.NotContains(t, mt.Description, "declare const tools", "%s: %s carries no declaration", m, mt.Name.Name)
			listed[mt.Name.Name] = true
		}
		for _, d := range set.CodeModeDefs() {
			if listed[d.Name] {
				assert.False(t, declares(exec, d.Name), "%s: %s is listed, so exec does not declare it", m, d.Name)
			}
		}
	}

	code := finalize(t, r, registry.ModeCodeMode)
	assert.Equal(t, []string{"exec", "wait", "direct", "direct_model_only", "tool_search"}, modelNames(code))
	exec := code.ExecDescription()
	assert.True(t, declares(exec, "code_mode_only"), "a tool only scripts can call is declared in exec")
	assert.False(t, declares(exec, "direct"))
	assert.Contains(t, exec, "The tools in your tool list can be called here too", "one line stands for the listed tools")
	assert.Contains(t, exec, "Not exec, wait, tool_search or direct_model_only.", "and names the listed tools scripts cannot call")

	only := finalize(t, r, registry.ModeCodeModeOnly).ExecDescription()
	assert.True(t, declares(only, "direct"))
	assert.True(t, declares(only, "code_mode_only"))
	assert.NotContains(t, only, "can be called here too", "code_mode_only lists no tool scripts can call")
}

func TestDeferredNamespacesUseTheFirstDescription(t *testing.T) {
	r := newReg(t, registry.Config{})
	mk := func(ns, name, nsDesc string, exp registry.Exposure) registry.Tool {
		return registry.NewFunc(registry.Spec{Name: registry.Namespaced(ns, name), Exposure: exp,
			Search: registry.SearchInfo{NamespaceDescription: nsDesc}}, nil)
	}
	require.True(t, r.AddExternal(mk("mcp__b", "x", "", registry.Deferred)))
	require.True(t, r.AddExternal(mk("mcp__b", "y", "Bee tools", registry.Deferred)))
	require.True(t, r.AddExternal(mk("mcp__b", "z", "Other words", registry.DeferredModelOnly)))
	require.True(t, r.AddExternal(mk("mcp__a", "x", "Ay tools", registry.Deferred)))
	require.True(t, r.AddExternal(mk("mcp__c", "x", "Direct only", registry.Direct)))
	require.True(t, r.AddExternal(mk("", "top", "ignored", registry.Deferred)))
	set := finalize(t, r, registry.ModeDirect)
	assert.Equal(t, []registry.NamespaceInfo{{Name: "mcp__a", Description: "Ay tools"}, {Name: "mcp__b", Description: "Bee tools"}}, set.DeferredNamespaces())
	search := set.ModelTools()[len(set.ModelTools())-1]
	require.Equal(t, "tool_search", search.Name.Name)
	assert.Contains(t, search.Description, "- mcp__a: Ay tools\n- mcp__b: Bee tools\n")
}

func TestHiddenToolsAreNeverParallel(t *testing.T) {
	r := newReg(t, registry.Config{})
	for _, e := range []registry.Exposure{registry.Direct, registry.Hidden} {
		tool := echo(registry.Plain(e.String()), e)
		tool.ToolSpec.SupportsParallel = true
		require.NoError(t, r.AddTrusted(tool))
	}
	require.NoError(t, r.AddTrusted(echo(registry.Plain("serial"), registry.Direct)))
	set := finalize(t, r, registry.ModeDirect)
	for name, want := range map[string]bool{"direct": true, "hidden": false, "serial": false} {
		got, ok := set.SupportsParallel(registry.Plain(name))
		require.True(t, ok)
		assert.Equal(t, want, got, name)
	}
	_, ok := set.SupportsParallel(registry.Plain("nope"))
	assert.False(t, ok)
	info, _ := set.Lookup(registry.Plain("hidden"))
	assert.False(t, info.Parallel)
}

func TestAWhiteSpaceNamespaceDescriptionCountsAsNone(t *testing.T) {
	r := newReg(t, registry.Config{})
	mk := func(ns, name, nsDesc string) registry.Tool {
		return registry.NewFunc(registry.Spec{Name: registry.Namespaced(ns, name), Description: "tool " + name, Exposure: registry.Deferred,
			Search: registry.SearchInfo{NamespaceDescription: nsDesc}}, nil)
	}
	// A tool's blank description does not hide a real one registered later.
	require.True(t, r.AddExternal(mk("mcp__b", "x", " \n\t ")))
	require.True(t, r.AddExternal(mk("mcp__b", "y", "Bee tools")))
	// A server's blank description does not hide another server's.
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "s1", Description: "   "}, []registry.Tool{mk("mcp__s", "a", "")}))
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "s2", Description: "Sea tools"}, []registry.Tool{mk("mcp__s", "b", "")}))
	// A tool's blank description does not hide its server's.
	require.Equal(t, 1, r.AddServer(registry.Server{Name: "s3", Description: "Dee tools"}, []registry.Tool{mk("mcp__d", "a", "\u00a0 ")}))
	// Only blank descriptions: none.
	require.True(t, r.AddExternal(mk("mcp__e", "a", "  ")))

	set := finalize(t, r, registry.ModeDirect)
	assert.Equal(t, []registry.NamespaceInfo{
		{Name: "mcp__b", Description: "Bee tools"},
		{Name: "mcp__d", Description: "Dee tools"},
		{Name: "mcp__e"},
		{Name: "mcp__s", Description: "Sea tools"},
	}, set.DeferredNamespaces())
	search := set.ModelTools()[len(set.ModelTools())-1]
	require.Equal(t, "tool_search", search.Name.Name)
	assert.Contains(t, search.Description, "- mcp__b: Bee tools\n- mcp__d: Dee tools\n- mcp__e\n- mcp__s: Sea tools\n")

	res, err := set.Search("tool x", 1)
	require.NoError(t, err)
	require.Len(t, res.Groups, 1)
	assert.Equal(t, "Bee tools", res.Groups[0].Description, "tool_search shows the real description")
	res, err = set.Search("sea", 1)
	require.NoError(t, err)
	require.Len(t, res.Hits, 1, "the real description is indexed")
	assert.Equal(t, "mcp__s", res.Groups[0].Namespace)
}
