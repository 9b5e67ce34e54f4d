package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
)

// tokenBudget is issue #21's target for the catalogue in the default
// mode with every declaration inline.
const tokenBudget = 6000

func catalogueRows(t *testing.T, shape registry.ExecShape) ([]row, catalogue) {
	t.Helper()
	cat, err := readCatalogue("../../" + defaultCatalogue)
	require.NoError(t, err)
	require.Equal(t, 37, cat.size(), "the fixed catalogue")
	rows, err := measure(context.Background(), cat, shape)
	require.NoError(t, err)
	require.Len(t, rows, 9)
	return rows, cat
}

func find(rows []row, m registry.Mode, p placement) row {
	for _, r := range rows {
		if r.Mode == m && r.Placement == p {
			return r
		}
	}
	return row{}
}

func TestTheDefaultModeFitsTheTokenBudget(t *testing.T) {
	for _, shape := range []registry.ExecShape{registry.ExecFreeform, registry.ExecFunction} {
		rows, _ := catalogueRows(t, shape)
		r := find(rows, registry.DefaultAgentMode, inline)
		assert.LessOrEqual(t, r.Tokens, tokenBudget, "%s, exec %s: %d bytes", r.Mode, shape, r.ListBytes)
		assert.Equal(t, 2, r.Tools, "exec and wait only")
		for _, m := range []registry.Mode{registry.ModeDirect, registry.ModeCodeMode, registry.ModeCodeModeOnly} {
			d := find(rows, m, deferred)
			assert.Less(t, d.Tokens, r.Tokens/4, "%s: deferring the declarations to search leaves a fraction", m)
			l := find(rows, m, loaded)
			if m == registry.ModeCodeModeOnly {
				assert.Equal(t, d.ListBytes, l.ListBytes, "code_mode_only searches only model-only tools; scripts find the rest")
			} else {
				assert.Greater(t, l.Tools, d.Tools, "%s: tool_search loaded what it found into the next step", m)
			}
		}
	}
}

// TestNoToolIsDescribedTwice checks every mode's step: each catalogued
// tool is either in the model's list or declared in exec, never both.
func TestNoToolIsDescribedTwice(t *testing.T) {
	rows, cat := catalogueRows(t, registry.ExecFreeform)
	for _, r := range rows {
		if r.Placement != inline {
			continue
		}
		exec := ""
		listed := map[string]int{}
		for _, mt := range r.list {
			if mt.Name == registry.Plain(registry.ExecToolName).Key() {
				exec = mt.Description
			}
			listed[mt.APIName()]++
		}
		for _, s := range cat.Servers {
			for _, tool := range s.Tools {
				ident := registry.Namespaced("mcp__"+s.Name+"__", tool.Name).JSIdent()
				declared := strings.Count(exec, "\n  "+ident+"(")
				assert.Equal(t, 1, listed[ident]+declared, "%s: %s is listed %d times and declared %d times", r.Mode, ident, listed[ident], declared)
			}
		}
	}
}
