package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// The test binary doubles as a recording proxy in front of a real server:
// with proxyEnv set it runs its arguments as the server, copies stdin and
// stdout through, and appends every message to the file named by
// proxyLogEnv ("> " from the client, "< " from the server). That is the
// server-side evidence of what reached the server.
const (
	proxyEnv    = "CODEMODE_MCP_TEST_PROXY"
	proxyLogEnv = "CODEMODE_MCP_TEST_PROXY_LOG"
)

// quickStop is the StopTimeout of test servers: server-everything does
// not exit when its stdin closes, so Close terminates it after this long.
const quickStop = 100 * time.Millisecond

func TestMain(m *testing.M) {
	if os.Getenv(proxyEnv) != "" {
		os.Exit(runProxy(os.Args[1:], os.Getenv(proxyLogEnv)))
	}
	goleak.VerifyTestMain(m)
}

func runProxy(argv []string, logPath string) int {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 2
	}
	defer logf.Close()
	var mu sync.Mutex
	record := func(prefix string, line []byte) {
		mu.Lock()
		defer mu.Unlock()
		_, _ = logf.Write(append([]byte(prefix), line...))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 2
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 2
	}
	if err := cmd.Start(); err != nil {
		return 2
	}
	pump := func(prefix string, from io.Reader, to io.Writer, closeTo func()) {
		r := bufio.NewReaderSize(from, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				record(prefix, line) // logged before it is delivered
				if _, werr := to.Write(line); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		closeTo()
	}
	go pump("> ", os.Stdin, stdin, func() { _ = stdin.Close() })
	pump("< ", stdout, os.Stdout, func() {})
	if err := cmd.Wait(); err != nil {
		return 1
	}
	return 0
}

// proxyLog is what a recording proxy saw.
type proxyLog struct{ path string }

// loggedMessage is one message the proxy saw.
type loggedMessage struct {
	// dir is '>' for client to server, '<' for server to client.
	dir byte
	msg map[string]any
}

// all decodes the logged messages in the order the proxy saw them.
func (p proxyLog) all(t *testing.T) []loggedMessage {
	t.Helper()
	b, err := os.ReadFile(p.path)
	require.NoError(t, err)
	var out []loggedMessage
	for _, line := range strings.Split(string(b), "\n") {
		if len(line) < 3 {
			continue
		}
		var msg map[string]any
		require.NoError(t, json.Unmarshal([]byte(line[2:]), &msg), line)
		out = append(out, loggedMessage{dir: line[0], msg: msg})
	}
	return out
}

// messages decodes the logged messages sent in direction dir ('>' to the
// server, '<' from it).
func (p proxyLog) messages(t *testing.T, dir byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range p.all(t) {
		if m.dir == dir {
			out = append(out, m.msg)
		}
	}
	return out
}

// cancelledAndDropped reports whether the server received
// notifications/cancelled for request id and never answered it.
func (p proxyLog) cancelledAndDropped(t *testing.T, id any) (cancelled, answered bool) {
	t.Helper()
	for _, m := range p.all(t) {
		switch {
		case m.dir == '>' && m.msg["method"] == "notifications/cancelled":
			params, _ := m.msg["params"].(map[string]any)
			cancelled = cancelled || params["requestId"] == id
		case m.dir == '<' && m.msg["method"] == nil:
			answered = answered || m.msg["id"] == id
		}
	}
	return cancelled, answered
}

// everythingBin is the real @modelcontextprotocol/server-everything that
// the README's set-up command (npm ci) installs. Without it the test is
// skipped, unless CI is set.
func everythingBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("../../node_modules/.bin/mcp-server-everything")
	require.NoError(t, err)
	_, err = os.Stat(bin)
	testhost.Need(t, "mcp-server-everything", err)
	_, err = exec.LookPath("node")
	testhost.Need(t, "node", err)
	return bin
}

// everythingConfig runs server-everything directly.
func everythingConfig(t *testing.T) mcp.ServerConfig {
	return mcp.ServerConfig{Name: "everything", Command: everythingBin(t), StopTimeout: quickStop}
}

// proxiedEverything runs server-everything behind a recording proxy.
func proxiedEverything(t *testing.T) (mcp.ServerConfig, proxyLog) {
	bin := everythingBin(t)
	self, err := os.Executable()
	require.NoError(t, err)
	log := proxyLog{path: filepath.Join(t.TempDir(), "proxy.log")}
	return mcp.ServerConfig{
		Name:        "everything",
		Command:     self,
		Args:        []string{bin},
		Env:         []string{proxyEnv + "=1", proxyLogEnv + "=" + log.path},
		StopTimeout: quickStop,
	}, log
}

// wrappedEverything runs server-everything from a shell script that first
// writes its pid to the returned file and runs prelude (a "sleep 1", say).
func wrappedEverything(t *testing.T, prelude string) (mcp.ServerConfig, string) {
	bin := everythingBin(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "server.sh")
	body := "#!/bin/sh\necho $$ > " + strconv.Quote(pidFile) + "\n" + prelude + "\nexec " + strconv.Quote(bin) + "\n"
	require.NoError(t, os.WriteFile(script, []byte(body), 0o644))
	// Run it through sh rather than exec it: a file just written can be
	// "text file busy" while a parallel test forks.
	return mcp.ServerConfig{Name: "everything", Command: "/bin/sh", Args: []string{script}, StopTimeout: quickStop}, pidFile
}

func readPid(t *testing.T, pidFile string) int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return pid
}

func connect(t *testing.T, reg *registry.Registry, cfg mcp.ServerConfig) *mcp.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, err := mcp.Connect(ctx, reg, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func everythingTool(name string) registry.ToolName {
	return registry.Namespaced(mcp.Namespace("everything"), name)
}

// startLongCall starts a 30-second trigger-long-running-operation and
// returns once the server reported progress, with the call's outcome to
// come on the channel.
func startLongCall(t *testing.T, set *registry.ToolSet) <-chan error {
	t.Helper()
	started := make(chan struct{})
	var once sync.Once
	ctx := registry.WithProgress(testCtx(t), func(registry.Progress) { once.Do(func() { close(started) }) })
	errc := make(chan error, 1)
	go func() {
		_, err := set.Dispatch(ctx, registry.Call{Name: everythingTool("trigger-long-running-operation"),
			Input: json.RawMessage(`{"duration":30,"steps":300}`)})
		errc <- err
	}()
	waitFor(t, started, "the first progress report")
	return errc
}

// waitFor receives from ch, failing the test instead of hanging when
// nothing arrives within a minute.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("gave up waiting for %s", what)
		var zero T
		return zero
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func finalize(t *testing.T, reg *registry.Registry) *registry.ToolSet {
	t.Helper()
	set, err := reg.Finalize(registry.ModeCodeMode)
	require.NoError(t, err)
	return set
}

func call(t *testing.T, set *registry.ToolSet, ctx context.Context, tool string, input string) (registry.Result, error) {
	t.Helper()
	return set.Dispatch(ctx, registry.Call{Name: everythingTool(tool), Input: json.RawMessage(input)})
}
