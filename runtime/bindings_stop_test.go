package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// TestLoopsInFormattingEndTimedOut: the prelude's catch fallbacks do not
// mask the stop of a getter or toJSON that never returns.
func TestLoopsInFormattingEndTimedOut(t *testing.T) {
	rt := newRuntime(t)
	for _, src := range []string{
		`return {toJSON() { for (;;); }}`,
		`throw {get message() { for (;;); }}`,
		`const e = new Error("x"); Object.defineProperty(e, "stack", {get() { for (;;); }}); throw e`,
		`Promise.reject({get message() { for (;;); }}); await new Promise(() => {})`,
		`text({toJSON() { for (;;); }})`,
	} {
		res := runReq(t, rt, CellRequest{Source: src, Limits: protocol.Limits{WallTimeMS: 300}})
		require.Equal(t, protocol.StatusTimedOut, res.Status, "%s: %+v", src, res.Error)
		res = runReq(t, rt, CellRequest{Source: `return 1`})
		require.Equal(t, protocol.StatusCompleted, res.Status, "the next cell runs after %s", src)
	}
}
