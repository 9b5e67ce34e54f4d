package applypatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/examples/tools/applypatch"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/runtime"
)

func toolSet(t *testing.T, root string) *registry.ToolSet {
	t.Helper()
	reg := registry.New(registry.Config{})
	require.NoError(t, reg.AddTrusted(applypatch.Tool(root)))
	set, err := reg.Finalize(registry.ModeCodeMode)
	require.NoError(t, err)
	return set
}

func TestToolSpecShowsTheGrammarToTheModel(t *testing.T) {
	set := toolSet(t, t.TempDir())
	var found bool
	for _, mt := range set.ModelTools() {
		if mt.Name.Name == applypatch.Name {
			found = true
			assert.Equal(t, protocol.KindFreeform, mt.Kind)
			assert.Equal(t, applypatch.Grammar, mt.Grammar)
			assert.Contains(t, mt.Description, "*** Begin Patch")
		}
	}
	assert.True(t, found, "apply_patch is in the model's tool list")
	defs := set.CodeModeDefs()
	require.Len(t, defs, 1)
	assert.Equal(t, protocol.KindFreeform, defs[0].Kind)
}

func TestModelCallsApplyPatchDirectly(t *testing.T) {
	root := writeTree(t, map[string]string{"f.txt": "a\n"})
	set := toolSet(t, root)
	res, err := set.Dispatch(context.Background(), registry.Call{
		Name:  registry.Plain(applypatch.Name),
		Kind:  protocol.KindFreeform,
		Input: registry.FreeformInput(patch("*** Begin Patch", "*** Update File: f.txt", "-a", "+b", "*** Add File: g.txt", "+g", "*** End Patch")),
	})
	require.NoError(t, err)
	assert.Equal(t, "Success. Updated the following files:\nA g.txt\nM f.txt", res.ModelText)
	assert.JSONEq(t, `{"added":["g.txt"],"updated":["f.txt"]}`, string(res.Value))
	assert.Equal(t, map[string]string{"f.txt": "b\n", "g.txt": "g\n"}, readTree(t, root))
}

func TestModelCallWithTheWrongPayloadKindIsRefused(t *testing.T) {
	root := writeTree(t, map[string]string{"f.txt": "a\n"})
	set := toolSet(t, root)
	_, err := set.Dispatch(context.Background(), registry.Call{
		Name:  registry.Plain(applypatch.Name),
		Input: json.RawMessage(`{"input":"*** Begin Patch\n*** Delete File: f.txt\n*** End Patch\n"}`),
	})
	var te *protocol.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, protocol.CodeInvalidArguments, te.Code)
	assert.Contains(t, te.Message, "freeform")
	assert.Equal(t, map[string]string{"f.txt": "a\n"}, readTree(t, root))
}

func TestModelCallWithABadPatchFailsAndSaysWhy(t *testing.T) {
	root := writeTree(t, map[string]string{"f.txt": "a\n"})
	set := toolSet(t, root)
	_, err := set.Dispatch(context.Background(), registry.Call{
		Name:  registry.Plain(applypatch.Name),
		Kind:  protocol.KindFreeform,
		Input: registry.FreeformInput(patch("*** Begin Patch", "*** Update File: f.txt", "-zzz", "*** End Patch")),
	})
	var te *protocol.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, protocol.CodeToolFailed, te.Code)
	assert.Contains(t, te.Message, "Update File: f.txt, hunk 1 (patch line 3): context not found")
}

// TestScriptsApplyPatchesThroughTheRuntime runs real cells in V8 whose
// calls go through the registry's pipeline to the tool.
func TestScriptsApplyPatchesThroughTheRuntime(t *testing.T) {
	root := writeTree(t, map[string]string{"src/app.js": "const x = 1;\nconsole.log(x);\n"})
	set := toolSet(t, root)
	rt := runtime.New(runtime.Config{})
	t.Cleanup(rt.Close)
	run := func(src string) runtime.Result {
		t.Helper()
		res, err := rt.Run(context.Background(), runtime.CellRequest{SessionID: "s1", Source: src, Tools: set.CodeModeDefs(), Caller: set})
		require.NoError(t, err)
		return res
	}

	res := run(`const r = await tools.apply_patch("*** Begin Patch\n*** Update File: src/app.js\n@@ const x = 1;\n-console.log(x);\n+console.log(x + 1);\n*** Add File: README.md\n+# app\n*** End Patch\n");
return r.added.concat(r.updated).join(",");`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	require.NotEmpty(t, res.Items)
	assert.Equal(t, "README.md,src/app.js", res.Items[len(res.Items)-1].Text)
	want := map[string]string{"src/app.js": "const x = 1;\nconsole.log(x + 1);\n", "README.md": "# app\n"}
	assert.Equal(t, want, readTree(t, root))

	res = run(`const out = [];
for (const p of [
  "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch\n",
  "*** Begin Patch\n*** Add File: README.md\n+again\n*** End Patch\n",
  "not a patch",
]) {
  try { await tools.apply_patch(p); out.push("applied"); } catch (e) { out.push(e.code + ": " + e.message.split(";")[0]); }
}
try { await tools.apply_patch({patch: "x"}); } catch (e) { out.push("object refused"); }
return out.join("\n");`)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	got := res.Items[len(res.Items)-1].Text
	assert.Contains(t, got, `tool_failed: applypatch: Add File: ../escape.txt (patch line 2): path escapes the root: ".." is not allowed in paths`)
	assert.Contains(t, got, "tool_failed: applypatch: Add File: README.md (patch line 2): file exists")
	assert.Contains(t, got, `tool_failed: applypatch: invalid patch at line 1 ("not a patch")`)
	assert.Contains(t, got, "object refused")
	assert.NotContains(t, got, "applied")
	assert.Equal(t, want, readTree(t, root), "failed patches change nothing")
}
