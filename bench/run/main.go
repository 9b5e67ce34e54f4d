// Command run is the harness behind `make bench`: it measures our host, the
// peer @utcp/code-mode, Codex's own code-mode host over v1 and the physical
// floor (package bench), prints one
// table and writes it as JSON to bench/results/<timestamp>.json.
//
// Usage (from the repository root, after `make build` and
// `npm ci --prefix bench/peer`):
//
//	go run ./bench/run [-host bin/codemode-host] [-peer bench/peer] [-n 50] [-rounds 5] [-warmup 3] [-out bench/results] [-strict]
//	go run ./bench/run -codex-only   # only our codex-host against Codex's host over v1
//
// It exits 0 when everything ran, whatever the timings; 1 when something
// could not run, or with -strict when a target of the host process was
// missed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"time"

	"github.com/codemode-host/codemode-host/bench"
)

func main() {
	bench.ServeFloorChildIfAsked() // the floor re-executes this program
	bench.ServeFrameChildIfAsked() // and so does the Node parent's floor
	os.Exit(run())
}

func run() int {
	var opt bench.Options
	out := flag.String("out", "bench/results", "directory for the JSON report (empty: none)")
	strict := flag.Bool("strict", false, "exit 1 when a target of the host process is missed")
	flag.StringVar(&opt.HostBin, "host", "bin/codemode-host", "codemode-host binary (empty: skip the host process)")
	flag.StringVar(&opt.PeerDir, "peer", "bench/peer", "directory of peer.mjs, installed with npm ci (empty: skip the peer)")
	flag.IntVar(&opt.N, "n", 50, "measured runs per scenario")
	flag.IntVar(&opt.Warmup, "warmup", 3, "unmeasured runs before each round's")
	flag.IntVar(&opt.Rounds, "rounds", 5, "interleaved rounds the runs are spread over (peer, then each system)")
	flag.IntVar(&opt.FloorN, "floor-n", 20000, "pipe round trips for the floor")
	flag.IntVar(&opt.LeakCells, "leak-cells", 10000, "cells the leak check runs in one host")
	var nopt bench.NodeParentOptions
	flag.StringVar(&nopt.Script, "node", "bench/node/parent.mjs", "the Node parent (empty: skip it)")
	flag.IntVar(&nopt.N, "node-n", 1000, "sequential calls in the Node parent's cell")
	flag.IntVar(&nopt.Rounds, "node-rounds", 5, "rounds of the Node parent (floor, codec, cell, then the same cell via the bridge)")
	flag.StringVar(&nopt.Write, "node-write", "stream", "how the Node parent writes frames: stream or sync")
	nodeOnly := flag.Bool("node-only", false, "measure only the Node parent (and the bridge's same cell)")
	codexBin := flag.String("codex", "", "Codex's codex-code-mode-host (empty: the pinned one in test/codex; none: skip the Codex rows)")
	codexOnly := flag.Bool("codex-only", false, "measure only the scenarios through Codex's host and ours over v1")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	opt.FloorCmd = func() *exec.Cmd { return exec.Command(self) }
	opt.Log = os.Stderr

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep := &bench.Report{Time: time.Now().UTC().Format(time.RFC3339)}
	if *nodeOnly && *codexOnly {
		fmt.Fprintln(os.Stderr, "bench: -node-only and -codex-only exclude each other")
		return 2
	}
	if !*nodeOnly && !*codexOnly {
		if rep, err = bench.Run(ctx, opt); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	skipCodex := ""
	switch {
	case *nodeOnly:
		skipCodex = "-node-only"
	case *codexBin == "none":
		skipCodex = "-codex none"
	}
	codex, codexErr := runCodexPeer(ctx, opt, *codexBin, skipCodex)
	rep.Rows = append(rep.Rows, codexRows(codex, codexErr)...)
	if rep.Settings.N == 0 && codex != nil {
		rep.Settings.N, rep.Settings.Warmup, rep.Settings.Rounds = codex.N, codex.Warmup, codex.Rounds
	}
	var node *bench.NodeParentResult
	nodeErr := fmt.Errorf("%w: -codex-only", errNodeSkipped)
	if !*codexOnly {
		node, nodeErr = runNodeParent(ctx, opt, nopt)
	}
	rep.Rows = append(rep.Rows, nodeRows(node, nodeErr)...)
	if err := rep.WriteTable(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	if *out != "" {
		path, err := writeJSON(rep, node, nodeErr, codex, codexErr, *out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		fmt.Printf("written to %s\n", path)
	}
	switch {
	case rep.Incomplete() || (nodeErr != nil && !errors.Is(nodeErr, errNodeSkipped)) ||
		(codexErr != nil && !errors.Is(codexErr, errCodexSkipped)) || (codex != nil && len(codex.OursErrors) > 0):
		fmt.Fprintln(os.Stderr, "bench: some parts did not run (see the table)")
		return 1
	case *strict && (rep.Failed() || node != nil && node.Ratio > bench.NodeParentTarget):
		return 1
	}
	return 0
}
