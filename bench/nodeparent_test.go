package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Node parent's floor child answers every frame with one frame of the
// configured size, and ends cleanly at a frame boundary.
func TestFrameChildAnswersEveryFrameWithOneOfItsSize(t *testing.T) {
	var in bytes.Buffer
	for _, n := range []int{1, 40, 300} {
		binary.Write(&in, binary.BigEndian, uint32(n))
		in.Write(bytes.Repeat([]byte{'x'}, n))
	}
	var out bytes.Buffer
	require.NoError(t, serveFrames(&in, &out, 93))
	require.Equal(t, 3*(4+93), out.Len())
	for range 3 {
		var n uint32
		require.NoError(t, binary.Read(&out, binary.BigEndian, &n))
		assert.EqualValues(t, 93, n)
		out.Next(int(n))
	}
}

func TestFrameChildRefusesAZeroLength(t *testing.T) {
	in := bytes.NewReader([]byte{0, 0, 0, 0})
	assert.ErrorContains(t, serveFrames(in, &bytes.Buffer{}, 93), "bad frame length 0")
}

func TestMedianOfEvenAndOddCounts(t *testing.T) {
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 2, 3}))
	assert.Zero(t, median(nil))
}

// The Node parent runs against the real host, the floor child and the Go
// bridge, and reports every part of every round.
func TestNodeParentReportsEveryPart(t *testing.T) {
	bin := hostBin(t)
	br, err := StartBridge(context.Background(), bin)
	require.NoError(t, err)
	defer br.Close()
	res, err := NodeParent(context.Background(), NodeParentOptions{HostBin: bin, Script: filepath.Join("node", "parent.mjs"),
		FloorCmd: floorCmd, N: 20, Rounds: 2}, br)
	require.NoError(t, err)
	for name, xs := range map[string][]float64{"floor": res.FloorUS, "codec": res.CodecUS, "cell": res.HostCellUS,
		"stats": res.HostStatsUS, "parent": res.HostParentUS, "bridge": res.GoBridgeCellUS} {
		assert.Len(t, xs, 2, name)
	}
	assert.Positive(t, res.Floor)
	assert.Positive(t, res.Ratio)
	assert.Len(t, res.Rows(), 5)
}
