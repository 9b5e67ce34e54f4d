package registry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/codemode-host/codemode-host/registry"
)

func TestDefaultNamespaceFormsAreOneKey(t *testing.T) {
	plain := registry.Plain("lookup")
	empty := registry.Namespaced("", "lookup")
	fn := registry.Namespaced("functions", "lookup")
	cal := registry.Namespaced("mcp__calendar", "lookup")

	assert.True(t, plain.Equal(fn))
	assert.True(t, empty.Equal(fn))
	assert.Equal(t, fn, plain.Key())
	assert.False(t, plain.Equal(cal), "other namespaces stay distinct")
	assert.Equal(t, cal, cal.Key())
}

func TestToolNameDisplayAndIdent(t *testing.T) {
	assert.Equal(t, "lookup", registry.Namespaced("functions", "lookup").String())
	assert.Equal(t, "mcp__calendar.lookup", registry.Namespaced("mcp__calendar", "lookup").String())
	assert.Equal(t, "mcp__calendar__lookup", registry.Namespaced("mcp__calendar", "lookup").JSIdent())
	assert.Equal(t, "mcp__ologs__get_profile", registry.Namespaced("mcp__ologs__", "get_profile").JSIdent())
	assert.Equal(t, "hidden_dynamic_tool", registry.Plain("hidden-dynamic-tool").JSIdent())
}

func TestToolNameOrderPutsTheDefaultNamespaceFirst(t *testing.T) {
	a := registry.Plain("zeta")
	b := registry.Namespaced("functions", "alpha")
	c := registry.Namespaced("mcp__a", "alpha")
	d := registry.Namespaced("mcp__b", "alpha")
	assert.Equal(t, 1, a.Compare(b))
	assert.Equal(t, -1, a.Compare(c), "default namespace sorts before others")
	assert.Equal(t, -1, c.Compare(d))
	assert.Equal(t, 0, registry.Plain("x").Compare(registry.Namespaced("functions", "x")))
}
