package bench

import (
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// cpuAffinity returns the CPUs this thread may run on.
func cpuAffinity(t *testing.T) unix.CPUSet {
	var set unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &set))
	return set
}

func TestPinToOneCPUPinsEveryThread(t *testing.T) {
	before := cpuAffinity(t)
	restore, err := pinToOneCPU()
	require.NoError(t, err)
	pinned := cpuAffinity(t)
	require.Equal(t, 1, pinned.Count())
	restore()
	require.Equal(t, before, cpuAffinity(t))
}

func TestPinnedFloorGivesTheThreadsTheirCPUsBack(t *testing.T) {
	before := cpuAffinity(t)
	_, err := PinnedFloor(floorCmd(), 50, 5)
	require.NoError(t, err)
	require.Equal(t, before, cpuAffinity(t))
}
