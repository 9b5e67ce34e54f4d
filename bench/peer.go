package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PeerResults are the peer's measurements by scenario key.
type PeerResults map[string]Stat

// peerScenario is what peer.mjs prints for one scenario.
type peerScenario struct {
	Stat
	Samples []float64 `json:"samples_ms"`
}

// RunPeer runs dir/peer.mjs with node for every scenario, n measured runs
// after warmup, and returns the wall time of every run by scenario key. dir
// must have been installed with `npm ci --prefix <dir>` (make bench does).
func RunPeer(ctx context.Context, dir string, n, warmup int) (map[string][]time.Duration, error) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@utcp", "code-mode")); err != nil {
		return nil, fmt.Errorf("bench: the peer is not installed in %s: run `npm ci --prefix %s` (make bench does)", dir, dir)
	}
	keys := make([]string, len(Scenarios))
	for i, sc := range Scenarios {
		keys[i] = sc.Key
	}
	cmd := exec.CommandContext(ctx, "node", "peer.mjs",
		"--n", strconv.Itoa(n), "--warmup", strconv.Itoa(warmup), "--only", strings.Join(keys, ","))
	cmd.Dir = dir
	// The peer's SDK logs every tool call on its console, which peer.mjs
	// sends to stderr: keep only the end, for errors.
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("bench: peer.mjs failed: %w; stderr ends: %s", err, stderr)
		}
		return nil, fmt.Errorf("bench: running node (is node 20 on PATH?): %w", err)
	}
	var printed map[string]peerScenario
	if err := json.Unmarshal(bytes.TrimSpace(out), &printed); err != nil {
		return nil, fmt.Errorf("bench: peer.mjs printed %q: %w", out, err)
	}
	res := map[string][]time.Duration{}
	for _, k := range keys {
		if len(printed[k].Samples) != n {
			return nil, fmt.Errorf("bench: peer.mjs printed %d samples for %s, want %d", len(printed[k].Samples), k, n)
		}
		for _, ms := range printed[k].Samples {
			res[k] = append(res[k], time.Duration(ms*float64(time.Millisecond)))
		}
	}
	return res, nil
}
