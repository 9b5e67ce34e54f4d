//go:build soak

package bridge

// The soak tests run only under `make soak` (the soak build tag): they
// take minutes and most of the machine's memory.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// TestSoakHeapBombsEndAsOutOfMemoryAndRSSComesBack: every kind of
// allocation bomb ends out_of_memory (or V8's own RangeError) in one
// host, which survives them and gives the memory back.
func TestSoakHeapBombsEndAsOutOfMemoryAndRSSComesBack(t *testing.T) {
	f := newFaultTools()
	c := startFaultClient(t, f)
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "bombs", &protocol.Limits{HeapMiB: 64})
	require.NoError(t, err)
	warm, err := s.Exec(ctx, ExecRequest{Source: `return 1`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, warm.Status)
	pid := c.Pid()
	before := hostRSS(t, pid)
	stop := canary(t, c)
	bombs := map[string]string{
		"array of objects": `const a = []; for (let i = 0; ; i++) a.push({i, s: "x" + i})`,
		"array of arrays":  `const a = []; for (;;) a.push(new Array(1e5).fill(1.5))`,
		"strings":          `const a = []; for (let i = 0; ; i++) a.push("x".repeat(1 << 20) + i)`,
		"map":              `const m = new Map(); for (let i = 0; ; i++) m.set(i, [i, i])`,
		"array buffers":    `const a = []; for (;;) a.push(new ArrayBuffer(16 << 20))`,
		"typed arrays":     `const a = []; for (;;) a.push(new Float64Array(1 << 21).fill(1))`,
		"string doubling":  `let s = "xxxxxxxx"; const keep = []; for (;;) { s = s + s; keep.push(s) }`,
	}
	peak := before
	for name, src := range bombs {
		res, err := s.Exec(ctx, ExecRequest{Source: src, Yield: time.Minute})
		require.NoError(t, err, name)
		peak = max(peak, hostRSS(t, pid))
		if name == "string doubling" && res.Status == protocol.StatusFailed {
			// V8 caps a string's length before the heap fills up.
			require.NotNil(t, res.Error)
			assert.Equal(t, "RangeError", res.Error.Name, name)
			continue
		}
		assert.Equal(t, protocol.StatusOutOfMemory, res.Status, "%s: %+v", name, res.Error)
		if assert.NotNil(t, res.Error, name) {
			assert.Equal(t, "OutOfMemoryError", res.Error.Name, name)
		}
	}
	assert.Equal(t, pid, c.Pid(), "the host survived every bomb")
	stop()
	// Memory comes back: V8 and the allocator return what the bombs took.
	var after float64
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := s.Exec(ctx, ExecRequest{Source: `return 2`})
		require.NoError(t, err)
		require.Equal(t, protocol.StatusCompleted, res.Status)
		after = hostRSS(t, pid)
		if after < before+128 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("host RSS: %.0f MiB before the bombs, peak seen %.0f MiB, %.0f MiB after", before, peak, after)
	assert.Less(t, after, before+128, "the host's RSS came back down")
}

// TestSoakNoHostMemoryGrowthOver10000Cells runs 10,000 cells (2,000 with
// -short) through the real host and checks its RSS after them is close to
// what it was after the first tenth: isolates are recycled and closed
// contexts do not pile up.
func TestSoakNoHostMemoryGrowthOver10000Cells(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 2000
	}
	c := startFaultClient(t, newFaultTools())
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "s1", nil)
	require.NoError(t, err)
	req := ExecRequest{Tools: faultToolDefs, Yield: time.Minute,
		Source: `const r = await Promise.all([1, 2, 3].map(i => tools.echo({i, s: "x".repeat(1000)}))); store("k", r.length); text("n=" + r.length); return r.length`}
	runN := func(k int) {
		for range k {
			res, err := s.Exec(ctx, req)
			require.NoError(t, err)
			require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res)
		}
	}
	pid := c.Pid()
	start := time.Now()
	runN(n / 10)
	before := hostRSS(t, pid)
	runN(n - n/10)
	after := hostRSS(t, pid)
	t.Logf("%d cells in %v: host RSS %.1f MiB after %d, %.1f MiB after %d (%+.1f MiB)", n, time.Since(start).Round(time.Millisecond),
		before, n/10, after, n, after-before)
	assert.Less(t, after-before, 48.0, "the host's RSS grew over %d cells", n-n/10)
}

// hostRSS returns the resident memory of process pid in MiB.
func hostRSS(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	require.NoError(t, err)
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return float64(pages*int64(os.Getpagesize())) / (1 << 20)
}
