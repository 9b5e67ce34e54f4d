package registry_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/registry"
)

// The helper "parent" process: the test binary run again with
// stateHelperEnv set, in the style of go-plugin's tests. It registers the
// todo tool with its state in $STATE_DIR, adds $ITEM to the todo list of
// session "s1" through a script call, prints the list, and then, by
// $AFTER: "exit" exits; "hang" prints "ready" and waits to be killed;
// "flush-hang" waits until the state file was written, then prints
// "ready" and waits to be killed.
const stateHelperEnv = "REGISTRY_STATE_HELPER"

func TestStateHelperProcess(t *testing.T) {
	if os.Getenv(stateHelperEnv) == "" {
		t.Skip("helper process for TestToolStateSurvivesKillingTheParent")
	}
	written := make(chan error, 16)
	cfg := registry.StateConfig{Dir: os.Getenv("STATE_DIR"), Sync: os.Getenv("SYNC") == "1",
		OnWrite: func(_ string, err error) { written <- err }}
	if d, err := time.ParseDuration(os.Getenv("FLUSH_DELAY")); err == nil {
		cfg.FlushDelay = d
	}
	_, set := todoSet(t, registry.Config{State: cfg})
	list := addTodo(t, set, "s1", os.Getenv("ITEM"))
	b, _ := json.Marshal(list)
	fmt.Printf("list %s\n", b)
	switch os.Getenv("AFTER") {
	case "exit":
		os.Exit(0)
	case "flush-hang":
		if err := <-written; err != nil {
			fmt.Printf("write failed %v\n", err)
		}
	}
	fmt.Println("ready")
	select {} // until SIGKILL
}

// runParent starts a helper parent and returns the list it printed. With
// kill, it SIGKILLs the parent as soon as it printed "ready".
func runParent(t *testing.T, dir, item, after string, env ...string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStateHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), stateHelperEnv+"=1", "STATE_DIR="+dir, "ITEM="+item, "AFTER="+after)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var list []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "list "):
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "list ")), &list))
		case strings.HasPrefix(line, "write failed"):
			t.Fatal(line)
		case line == "ready":
			require.NoError(t, cmd.Process.Kill()) // SIGKILL: no deferred code, no Close
			err := cmd.Wait()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "killed")
			return list
		}
	}
	require.NoError(t, cmd.Wait())
	return list
}

func TestToolStateSurvivesKillingTheParent(t *testing.T) {
	if os.Getenv(stateHelperEnv) != "" {
		t.Skip("in the helper process")
	}
	t.Run("sync: on disk when the call returns", func(t *testing.T) {
		dir := t.TempDir()
		assert.Equal(t, []string{"a"}, runParent(t, dir, "a", "hang", "SYNC=1"))
		assert.Equal(t, []string{"a", "b"}, runParent(t, dir, "b", "hang", "SYNC=1"))
		assert.Equal(t, []string{"a", "b", "c"}, runParent(t, dir, "c", "exit", "SYNC=1"))
	})
	t.Run("debounced: on disk once written", func(t *testing.T) {
		dir := t.TempDir()
		assert.Equal(t, []string{"a"}, runParent(t, dir, "a", "flush-hang", "FLUSH_DELAY=20ms"))
		assert.Equal(t, []string{"a", "b"}, runParent(t, dir, "b", "flush-hang", "FLUSH_DELAY=20ms"))
	})
	t.Run("debounced: a kill before the write loses only that change", func(t *testing.T) {
		dir := t.TempDir()
		assert.Equal(t, []string{"a"}, runParent(t, dir, "a", "flush-hang", "FLUSH_DELAY=1ms"))
		assert.Equal(t, []string{"a", "lost"}, runParent(t, dir, "lost", "hang", "FLUSH_DELAY=1h"))
		assert.Equal(t, []string{"a", "c"}, runParent(t, dir, "c", "exit", "FLUSH_DELAY=1h"))
	})
}
