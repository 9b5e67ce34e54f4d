package mcp_test

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
	"github.com/codemode-host/codemode-host/registry/mcp"
)

// startEverythingHTTP runs server-everything's streamable HTTP transport
// on a free port and returns its endpoint once it listens.
func startEverythingHTTP(t *testing.T) (string, *exec.Cmd) {
	bin := everythingBin(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	listening := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	select {
	case <-listening:
	case <-testCtx(t).Done():
		t.Fatal("server-everything did not start listening")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", cmd
}

func TestConnect_streamableHTTP(t *testing.T) {
	t.Parallel()
	url, _ := startEverythingHTTP(t)
	reg := registry.New(registry.Config{})
	connect(t, reg, mcp.ServerConfig{Name: "everything", URL: url})
	set := finalize(t, reg)

	res, err := call(t, set, testCtx(t), "get-sum", `{"a":2,"b":40}`)
	require.NoError(t, err)
	assert.Contains(t, res.ModelText, "42")

	var mu sync.Mutex
	steps := 0
	ctx := registry.WithProgress(testCtx(t), func(registry.Progress) { mu.Lock(); steps++; mu.Unlock() })
	_, err = call(t, set, ctx, "trigger-long-running-operation", `{"duration":0.4,"steps":4}`)
	require.NoError(t, err)
	mu.Lock()
	// The SDK may deliver the last notification after the result, when
	// it is dropped; the first always comes before.
	assert.GreaterOrEqual(t, steps, 1, "progress arrives over HTTP too")
	mu.Unlock()
}

func TestStreamableHTTP_serverKilledMidCall(t *testing.T) {
	t.Parallel()
	url, cmd := startEverythingHTTP(t)
	reg := registry.New(registry.Config{})
	// One retry, not five, so the test notices quickly that it is gone.
	transport := &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: 1}
	srv := connect(t, reg, mcp.ServerConfig{Name: "everything", Transport: transport})
	set := finalize(t, reg)

	errc := startLongCall(t, set)
	require.NoError(t, cmd.Process.Kill())
	var terr *protocol.ToolError
	require.ErrorAs(t, <-errc, &terr)
	assert.Equal(t, protocol.CodeToolFailed, terr.Code)
	assert.Contains(t, terr.Message, `server "everything" closed the connection`)
	<-srv.Done()
	_, ok := reg.Lookup(everythingTool("echo"))
	assert.False(t, ok, "the tools of a server that left are removed")
}

func TestConnect_sendsTheConfiguredHeaders(t *testing.T) {
	t.Parallel()
	server := sdk.NewServer(&sdk.Implementation{Name: "guarded"}, nil)
	server.AddTool(textTool("secret", "needs a token"))
	handler := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		if r.Header.Get("Authorization") != "Bearer let-me-in" {
			return nil // 400
		}
		return server
	}, nil)
	hs := httptest.NewServer(handler)
	t.Cleanup(hs.Close)

	reg := registry.New(registry.Config{})
	_, err := mcp.Connect(testCtx(t), reg, mcp.ServerConfig{Name: "guarded", URL: hs.URL, ConnectTimeout: 5 * time.Second})
	require.Error(t, err, "no token, no connection")

	connect(t, reg, mcp.ServerConfig{Name: "guarded", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer let-me-in"}})
	res, err := finalize(t, reg).Dispatch(testCtx(t), registry.Call{Name: registry.Namespaced("mcp__guarded__", "secret")})
	require.NoError(t, err)
	assert.Equal(t, "secret ran", res.ModelText)
}
