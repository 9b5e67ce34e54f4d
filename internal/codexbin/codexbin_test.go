package codexbin_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codemode-host/codemode-host/internal/codexbin"
	"github.com/stretchr/testify/require"
)

// deadline bounds each exchange with the real host; it answers a hello
// in a few milliseconds.
const deadline = 10 * time.Second

// codexHello is the hello codex 0.169.0 itself sends its host (recorded
// from `codex exec` with code_mode_host_grpc = false).
const codexHello = `{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],` +
	`"optionalCapabilities":["bounded-output-v1","delegate-capacity-4096","session-cell-execution-resource-limits","yield-observation"]}`

// TestRealHostAnswersHelloWithReady runs Codex's codex-code-mode-host with
// no arguments (protocol v1: a u32 little-endian length, then JSON, on
// stdio), sends codex's own hello and checks the host is ready with every
// optional capability, then that it exits 0 when its input closes.
func TestRealHostAnswersHelloWithReady(t *testing.T) {
	host := codexbin.Host(t)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, host)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, &stderr
	require.NoError(t, cmd.Start())
	inR.Close()
	outW.Close()
	defer outR.Close()
	require.NoError(t, outR.SetReadDeadline(time.Now().Add(deadline)))

	writeFrame(t, inW, []byte(codexHello))
	var ready map[string]any
	require.NoError(t, json.Unmarshal(readFrame(t, outR), &ready))
	require.Equal(t, map[string]any{
		"type":            "connection/ready",
		"selectedVersion": float64(1),
		"capabilities":    []any{"bounded-output-v1", "delegate-capacity-4096", "session-cell-execution-resource-limits", "yield-observation"},
	}, ready)

	require.NoError(t, inW.Close())
	rest, err := io.ReadAll(outR)
	require.NoError(t, err)
	require.Empty(t, rest, "nothing after ready")
	require.NoError(t, cmd.Wait(), "exit status; stderr: %s", stderr.String())
}

func TestPathRefusesAnUnknownName(t *testing.T) {
	_, err := codexbin.Path("codex-exec")
	require.EqualError(t, err, `codexbin: unknown binary "codex-exec" (want "codex" or "codex-code-mode-host")`)
}

// TestCodexIsThePinnedVersion runs `codex --version`.
func TestCodexIsThePinnedVersion(t *testing.T) {
	codex := codexbin.Codex(t)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "--version")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+t.TempDir())
	out, err := cmd.Output()
	require.NoError(t, err)
	require.Equal(t, "codex-cli "+codexbin.Version, strings.TrimSpace(string(out)))
}

func writeFrame(t *testing.T, w io.Writer, payload []byte) {
	t.Helper()
	frame := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	_, err := w.Write(append(frame, payload...))
	require.NoError(t, err)
}

func readFrame(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var n [4]byte
	_, err := io.ReadFull(r, n[:])
	require.NoError(t, err)
	payload := make([]byte, binary.LittleEndian.Uint32(n[:]))
	_, err = io.ReadFull(r, payload)
	require.NoError(t, err)
	return payload
}
