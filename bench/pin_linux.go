package bench

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinToOneCPU puts every thread of this process on the first CPU it may
// run on; threads and processes started meanwhile inherit that. restore
// gives every thread the CPUs this one had before.
func pinToOneCPU() (restore func(), err error) {
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return nil, fmt.Errorf("bench: reading the CPU affinity: %w", err)
	}
	cpu := -1
	for i := range len(orig) * 64 {
		if orig.IsSet(i) {
			cpu = i
			break
		}
	}
	if cpu < 0 {
		return nil, fmt.Errorf("bench: this thread may run on no CPU")
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := setAllThreads(&one); err != nil {
		_ = setAllThreads(&orig)
		return nil, err
	}
	return func() { _ = setAllThreads(&orig) }, nil
}

// setAllThreads sets the CPU affinity of every thread of this process.
func setAllThreads(set *unix.CPUSet) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("bench: listing this process's threads: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH { // ESRCH: the thread has exited
			return fmt.Errorf("bench: setting thread %d's CPU affinity: %w", tid, err)
		}
	}
	return nil
}
