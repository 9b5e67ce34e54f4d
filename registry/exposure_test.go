package registry_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
)

func TestSixExposuresAnswerTheThreeQuestions(t *testing.T) {
	cases := []struct {
		exp                        registry.Exposure
		wire                       string
		direct, deferred, codeMode bool
	}{
		{registry.Direct, "direct", true, false, true},
		{registry.Deferred, "deferred", false, true, true},
		{registry.CodeModeOnly, "code_mode_only", false, false, true},
		{registry.DirectModelOnly, "direct_model_only", true, false, false},
		{registry.DeferredModelOnly, "deferred_model_only", false, true, false},
		{registry.Hidden, "hidden", false, false, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.direct, c.exp.IsDirect(), c.wire)
		assert.Equal(t, c.deferred, c.exp.IsDeferred(), c.wire)
		assert.Equal(t, c.codeMode, c.exp.InCodeMode(), c.wire)
		assert.Equal(t, c.wire, c.exp.String())
		parsed, err := registry.ParseExposure(c.wire)
		require.NoError(t, err)
		assert.Equal(t, c.exp, parsed)
		assert.Equal(t, c.exp, registry.ExposureFor(c.direct, c.deferred, c.codeMode), "ExposureFor inverts the answers for %s", c.wire)
	}
	assert.Equal(t, registry.Direct, registry.Exposure(0), "the zero exposure is Direct")
	_, err := registry.ParseExposure("visible")
	assert.ErrorContains(t, err, `registry: unknown exposure "visible"`)
}

func TestExposureJSONUsesWireSpelling(t *testing.T) {
	b, err := json.Marshal(struct{ E registry.Exposure }{registry.DeferredModelOnly})
	require.NoError(t, err)
	assert.JSONEq(t, `{"E":"deferred_model_only"}`, string(b))
	var v struct{ E registry.Exposure }
	require.NoError(t, json.Unmarshal([]byte(`{"E":"code_mode_only"}`), &v))
	assert.Equal(t, registry.CodeModeOnly, v.E)
}

func TestExposurePolicyMapsPerServerSettings(t *testing.T) {
	cases := []struct {
		name string
		p    registry.ExposurePolicy
		want registry.Exposure
	}{
		{"everything, no search", registry.ExposurePolicy{}, registry.Direct},
		{"everything, search", registry.ExposurePolicy{Search: true}, registry.Deferred},
		{"omit code mode, search", registry.ExposurePolicy{Search: true, OmitFrom: registry.SurfaceCodeMode}, registry.DeferredModelOnly},
		{"omit code mode, no search", registry.ExposurePolicy{OmitFrom: registry.SurfaceCodeMode}, registry.DirectModelOnly},
		{"omit direct and deferred", registry.ExposurePolicy{Search: true, OmitFrom: registry.SurfaceDirect | registry.SurfaceDeferred}, registry.CodeModeOnly},
		{"omit direct, no search", registry.ExposurePolicy{OmitFrom: registry.SurfaceDirect}, registry.CodeModeOnly},
		{"omit everything", registry.ExposurePolicy{OmitFrom: registry.AllSurfaces}, registry.Hidden},
		{"direct only", registry.ExposurePolicy{Search: true, DirectOnly: true}, registry.DirectModelOnly},
		{"code_mode_only keeps direct when code mode is omitted", registry.ExposurePolicy{Search: true, Mode: registry.ModeCodeModeOnly, OmitFrom: registry.SurfaceCodeMode}, registry.DirectModelOnly},
		{"code_mode_only defers", registry.ExposurePolicy{Search: true, Mode: registry.ModeCodeModeOnly}, registry.Deferred},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.p.Exposure(), c.name)
	}
	s, err := registry.ParseSurface("code_mode")
	require.NoError(t, err)
	assert.Equal(t, registry.SurfaceCodeMode, s)
	_, err = registry.ParseSurface("search")
	assert.Error(t, err)
}

func TestModesParseAndPrint(t *testing.T) {
	for _, m := range []registry.Mode{registry.ModeDirect, registry.ModeCodeMode, registry.ModeCodeModeOnly} {
		got, err := registry.ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := registry.ParseMode("code")
	assert.ErrorContains(t, err, "registry: unknown tool mode")
}
