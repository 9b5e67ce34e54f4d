//go:build soak

package runtime

import (
	"context"
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

// TestSoakNoMemoryGrowthOverManyCells runs 10,000 cells that call tools,
// store values and print, and checks that resident memory after them is
// close to what it was after the first 1,000. Set CODEMODE_SHORT=1 to run
// 2,000 instead.
func TestSoakNoMemoryGrowthOverManyCells(t *testing.T) {
	n := 10000
	if os.Getenv("CODEMODE_SHORT") != "" || testing.Short() {
		n = 2000
	}
	rt := newRuntime(t)
	req := CellRequest{Tools: testTools, Caller: inlineEcho{},
		Source: "const r = await Promise.all([1, 2, 3].map(i => tools.echo({i, s: 'x'.repeat(1000)}))); store('k', r); text(JSON.stringify(r).length); return r.length"}
	runN := func(k int) {
		for i := 0; i < k; i++ {
			res, err := rt.Run(context.Background(), req)
			require.NoError(t, err)
			require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
		}
	}
	runN(n / 10)
	debug.FreeOSMemory()
	before := ProcessRSS()
	runN(n - n/10)
	debug.FreeOSMemory()
	after := ProcessRSS()
	growth := int64(after) - int64(before)
	t.Logf("%d cells: RSS %d MiB -> %d MiB (growth %+d KiB, %+.1f B/cell)", n, before>>20, after>>20, growth>>10, float64(growth)/float64(n-n/10))
	assert.Less(t, growth, int64(48<<20), "RSS grew by %d MiB over %d cells", growth>>20, n-n/10)
}
