package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// rssKB is this process's VmRSS.
func rssKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

func TestReleasingStartupPagesKeepsEverythingWorking(t *testing.T) {
	rt := runtime.New(runtime.Config{})
	defer rt.Close()
	run := func() {
		res, err := rt.Run(context.Background(), runtime.CellRequest{Source: "return [1, 2, 3].map(x => x * 2).join()"})
		require.NoError(t, err)
		require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		assert.Equal(t, "2,4,6", res.Items[len(res.Items)-1].Text)
	}
	run() // V8, cgo and the loader's relocations all in use
	before := rssKB(t)
	released := releaseStartupPages()
	assert.Positive(t, released, "the test binary's code is ours to release")
	assert.Less(t, rssKB(t), before, "the resident set shrinks")
	// Code, read-only data and relocated pointers come back intact.
	run()
	run()
}
