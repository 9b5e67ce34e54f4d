package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// Loops in the JS that formats a cell's end (its return value, a thrown
// value, an unhandled rejection's reason) are stopped by the limits, and
// the cell ends with the limit's status, not as a script error.
var formattingLoops = map[string]string{
	"return value's toJSON":   `return {toJSON() { while (true); }}`,
	"thrown value's message":  `throw {get message() { while (true); }}`,
	"thrown Error's name":     `const e = new Error("x"); Object.defineProperty(e, "name", {get() { while (true); }}); throw e`,
	"unhandled reason's name": `Promise.reject({get name() { while (true); }}); await new Promise(r => setTimeout(r, 1))`,
	"rejected main's stack":   `await null; throw {get stack() { while (true); }, message: "m"}`,
}

func TestLoopsInsideFormattingEndTimedOutByWallTime(t *testing.T) {
	rt := newRuntime(t)
	for name, src := range formattingLoops {
		t.Run(name, func(t *testing.T) {
			res := run(t, rt, src, protocol.Limits{WallTimeMS: 200, CPUTimeMS: 60_000})
			require.Equal(t, protocol.StatusTimedOut, res.Status, "%+v", res.Error)
			require.NotNil(t, res.Error)
			assert.Equal(t, "TimeoutError", res.Error.Name)
			assert.Contains(t, res.Error.Message, "wall-time limit")
			assert.Equal(t, []string{"ok"}, texts(run(t, rt, `return "ok"`)), "the next cell runs")
		})
	}
}

func TestLoopsInsideFormattingEndTimedOutByCPUTime(t *testing.T) {
	rt := newRuntime(t)
	res := run(t, rt, formattingLoops["return value's toJSON"], protocol.Limits{WallTimeMS: 60_000, CPUTimeMS: 200})
	require.Equal(t, protocol.StatusTimedOut, res.Status, "%+v", res.Error)
	assert.Contains(t, res.Error.Message, "CPU-time limit")
}

func TestTerminateDuringFormattingEndsTerminated(t *testing.T) {
	rt := newRuntime(t)
	notified := make(chan struct{})
	c, err := rt.Start(CellRequest{Source: `return {toJSON() { notify("in"); while (true); }}`,
		Events: &eventFuncs{notify: func(string) { close(notified) }}})
	require.NoError(t, err)
	<-notified
	c.Terminate()
	res := c.Result()
	assert.Equal(t, protocol.StatusTerminated, res.Status, "%+v", res.Error)
}
