package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunLaunchesItselfAsPluginHost checks that run is a parent: the cell
// runs in a child process (this binary in plugin mode), and that child
// goes away when run is killed with no chance to clean up.
func TestRunLaunchesItselfAsPluginHost(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	script := filepath.Join(t.TempDir(), "spin.js")
	require.NoError(t, os.WriteFile(script, []byte("while (true) {}"), 0o644))
	run := exec.Command(hostBin, "run", script, "--timeout", "1m")
	require.NoError(t, run.Start())
	t.Cleanup(func() { _ = run.Process.Kill(); _ = run.Wait() })

	// The child counts once it has exec'ed with go-plugin's environment
	// (right after fork it still carries run's).
	var host int
	require.Eventually(t, func() bool {
		for _, kid := range childrenOf(run.Process.Pid) {
			env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", kid))
			if strings.Contains(string(env), "CODEMODE_HOST_PLUGIN=") {
				host = kid
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "run should launch a host process through go-plugin")

	require.NoError(t, run.Process.Signal(syscall.SIGKILL))
	_ = run.Wait()
	assert.Eventually(t, func() bool { return !alive(host) }, 5*time.Second, 5*time.Millisecond,
		"the host must exit when its parent dies")
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(n); ok && ppid == pid {
			kids = append(kids, n)
		}
	}
	return kids
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// procStat reads the parent pid and state of pid from /proc.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}
