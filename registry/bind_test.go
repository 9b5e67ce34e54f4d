package registry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// The Code Mode set is protocol.Bind over the registered tools (outside
// excluded namespaces) with exec and wait reserved: the same tools, the
// same identifiers, the same drops and reasons.
func TestCodeModeSetIsProtocolBind(t *testing.T) {
	r := newReg(t, registry.Config{ExcludedCodeModeNamespaces: []string{"mcp__off"}})
	require.NoError(t, r.AddTrusted(echo(registry.Plain("wait"), registry.Direct)))
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__a", "b"), registry.Deferred)))
	require.True(t, r.AddExternal(echo(registry.Plain("mcp__a__b"), registry.CodeModeOnly)))
	require.True(t, r.AddExternal(echo(registry.Plain("ask"), registry.DirectModelOnly)))
	require.True(t, r.AddExternal(echo(registry.Namespaced("mcp__off", "x"), registry.Direct)))
	require.True(t, r.AddExternal(echo(registry.Plain("hidden_one"), registry.Hidden)))
	set := finalize(t, r, registry.ModeDirect)

	var defs []protocol.ToolDef
	for _, info := range set.Tools() {
		if info.Name.Namespace == "mcp__off" {
			continue
		}
		ns := info.Name.Namespace
		if info.Name.IsDefaultNamespace() {
			ns = ""
		}
		defs = append(defs, protocol.ToolDef{Namespace: ns, Name: info.Name.Name, Exposure: info.Exposure.String()})
	}
	want := protocol.Bind(defs, registry.ExecToolName, registry.WaitToolName)
	var wantNames, gotNames []string
	for _, b := range want.Bound {
		wantNames = append(wantNames, b.Def.QualifiedName())
	}
	for _, d := range set.CodeModeDefs() {
		gotNames = append(gotNames, d.QualifiedName())
	}
	assert.Equal(t, []string{"mcp__a.b"}, gotNames)
	assert.Equal(t, wantNames, gotNames)

	var why []string
	for _, d := range set.CodeModeUnbound() {
		why = append(why, d.String())
	}
	assert.Equal(t, []string{
		"wait: identifier tools.wait is already bound to wait",
		"mcp__a__b: identifier tools.mcp__a__b is already bound to mcp__a.b",
		`ask: exposure "direct_model_only" is not callable from scripts`,
		`hidden_one: exposure "hidden" is not callable from scripts`,
	}, why)
	for i, d := range want.Dropped {
		assert.Equal(t, d.String(), why[i])
	}
}
