package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// includesAfterExit calls exit() from the first element's getter of a
// generic Array.prototype.includes, which then walks the rest of its
// length without a termination check (about a second here for 1e8).
const includesAfterExit = `Array.prototype.includes.call({length: 1e8, get 0() { exit(); return 0; }}, 1); return 2`

func TestEveryStopIsFinalExitInsideABuiltinIsReportedStuck(t *testing.T) {
	stuck := make(chan string, 1)
	rt := New(Config{StuckAfter: 100 * time.Millisecond, OnStuck: func(c *Cell, status protocol.Status, reason protocol.ErrorInfo) {
		stuck <- string(status) + " " + reason.Name + ": " + reason.Message
	}})
	t.Cleanup(rt.Close)
	c, err := rt.Start(CellRequest{Source: includesAfterExit})
	require.NoError(t, err)
	select {
	case s := <-stuck:
		assert.Equal(t, "completed ExitError: the script called exit()", s)
	case <-c.Done():
		t.Fatalf("the cell ended before it was reported stuck: %+v", c.Result())
	}
	c.Terminate() // a later stop does not replace the first
	res := c.Result()
	assert.Equal(t, protocol.StatusCompleted, res.Status, "the first stop, exit(), keeps its status")
	assert.Nil(t, res.Error)
	assert.Empty(t, texts(res), "nothing runs after exit()")
}
