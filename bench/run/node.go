package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codemode-host/codemode-host/bench"
)

// errNodeSkipped is the Node parent's error when it was not asked for.
var errNodeSkipped = errors.New("not run")

// runNodeParent measures the Node parent with the same cell through the Go
// bridge after each of its rounds.
func runNodeParent(ctx context.Context, opt bench.Options, nopt bench.NodeParentOptions) (*bench.NodeParentResult, error) {
	switch {
	case nopt.Script == "":
		return nil, fmt.Errorf("%w: no Node parent given (-node)", errNodeSkipped)
	case opt.HostBin == "":
		return nil, fmt.Errorf("%w: no host binary given (-host)", errNodeSkipped)
	}
	fmt.Fprintf(os.Stderr, "bench: Node parent: %d rounds of %d sequential calls, floor and codec, and the same cell via the bridge\n", nopt.Rounds, nopt.N)
	nopt.HostBin = opt.HostBin
	if abs, err := filepath.Abs(nopt.HostBin); err == nil {
		nopt.HostBin = abs
	}
	nopt.FloorCmd = opt.FloorCmd
	br, err := bench.StartBridge(ctx, opt.HostBin)
	if err != nil {
		return nil, err
	}
	defer func() { _ = br.Close() }()
	return bench.NodeParent(ctx, nopt, br)
}

// nodeRows are the Node parent's table lines, or one saying why it did not
// run.
func nodeRows(r *bench.NodeParentResult, err error) []bench.Row {
	if err != nil {
		verdict := "error: " + err.Error()
		if errors.Is(err, errNodeSkipped) {
			verdict = "skipped (" + err.Error() + ")"
		}
		return []bench.Row{{Item: "Node parent", System: "Node parent via stdio", Ours: "—", Verdict: verdict}}
	}
	return r.Rows()
}

// writeJSON writes the report with the Node parent's measurements under
// "node_parent" and Codex's host against ours under "codex_peer" to
// dir/<timestamp>.json and returns the path.
func writeJSON(rep *bench.Report, node *bench.NodeParentResult, nodeErr error, codex *bench.CodexPeerResult, codexErr error, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	v := struct {
		*bench.Report
		NodeParent      *bench.NodeParentResult `json:"node_parent,omitempty"`
		NodeParentError string                  `json:"node_parent_error,omitempty"`
		CodexPeer       *bench.CodexPeerResult  `json:"codex_peer,omitempty"`
		CodexPeerError  string                  `json:"codex_peer_error,omitempty"`
	}{Report: rep, NodeParent: node, CodexPeer: codex}
	if nodeErr != nil {
		v.NodeParentError = nodeErr.Error()
	}
	if codexErr != nil {
		v.CodexPeerError = codexErr.Error()
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	if t, err := time.Parse(time.RFC3339, rep.Time); err == nil {
		stamp = t.UTC().Format("20060102T150405Z")
	}
	path := filepath.Join(dir, strings.TrimSpace(stamp)+".json")
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}
