package protocol_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func TestBindDropsByExposureThenFirstClaimWins(t *testing.T) {
	defs := []protocol.ToolDef{
		{Namespace: "mcp__a", Name: "b"},
		{Name: "mcp__a__b"},
		{Name: "ask", Exposure: protocol.ExposureHidden},
		{Namespace: "mcp-a", Name: "b", Exposure: protocol.ExposureDeferred},
		{Name: "wait"},
		{Namespace: "functions", Name: "x-y", Exposure: protocol.ExposureCodeModeOnly},
	}
	b := protocol.Bind(defs, "exec", "wait")
	require.Len(t, b.Bound, 3)
	assert.Equal(t, []protocol.BoundTool{
		{Def: defs[0], Ident: "mcp__a__b", Index: 0},
		{Def: defs[3], Ident: "mcp_a__b", Index: 3},
		{Def: defs[5], Ident: "x_y", Index: 5},
	}, b.Bound)
	assert.Equal(t, []protocol.ToolDef{defs[0], defs[3], defs[5]}, b.Defs())

	var got []string
	for _, d := range b.Dropped {
		got = append(got, d.String())
	}
	assert.Equal(t, []string{
		"mcp__a__b: identifier tools.mcp__a__b is already bound to mcp__a.b",
		`ask: exposure "hidden" is not callable from scripts`,
		"wait: identifier tools.wait is already bound to wait",
	}, got)
	assert.Equal(t, 0, b.Dropped[0].WinnerIndex)
	assert.Equal(t, -1, b.Dropped[1].WinnerIndex)
	assert.Equal(t, -1, b.Dropped[2].WinnerIndex, "a reserved identifier has no winning tool")
	assert.Equal(t, protocol.DropExposure, b.Dropped[1].Reason)
	assert.Equal(t, protocol.DropIdentTaken, b.Dropped[2].Reason)
}

// The exec check refuses exactly the exposures Bind drops, in the same words.
func TestBindAndExecCheckAgreeOnExposure(t *testing.T) {
	for _, e := range []string{"", protocol.ExposureDirect, protocol.ExposureDeferred, protocol.ExposureCodeModeOnly,
		protocol.ExposureDirectModelOnly, protocol.ExposureDeferredModelOnly, protocol.ExposureHidden, "public"} {
		defs := []protocol.ToolDef{{Name: "x", Exposure: e}}
		b := protocol.Bind(defs)
		_, err := protocol.Encode(&protocol.Exec{ID: 1, Session: "s", Source: "1", Tools: defs})
		assert.Equal(t, len(b.Bound) == 1, err == nil, "exposure %q: %v", e, err)
		if err != nil {
			require.Len(t, b.Dropped, 1)
			assert.Contains(t, err.Error(), `exposure "`+e+`" is not callable from scripts`)
		}
	}
}
