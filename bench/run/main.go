// Command run is the harness behind `make bench`: it measures our host, the
// peer @utcp/code-mode and the physical floor (package bench), prints one
// table and writes it as JSON to bench/results/<timestamp>.json.
//
// Usage (from the repository root, after `make build` and
// `npm ci --prefix bench/peer`):
//
//	go run ./bench/run [-host bin/codemode-host] [-peer bench/peer] [-n 50] [-rounds 5] [-warmup 3] [-out bench/results] [-strict]
//
// It exits 0 when everything ran, whatever the timings; 1 when something
// could not run, or with -strict when a target of the host process was
// missed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"

	"github.com/codemode-host/codemode-host/bench"
)

func main() {
	bench.ServeFloorChildIfAsked() // the floor re-executes this program
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
	rep, err := bench.Run(ctx, opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	if err := rep.WriteTable(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	if *out != "" {
		path, err := rep.WriteJSON(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		fmt.Printf("written to %s\n", path)
	}
	switch {
	case rep.Incomplete():
		fmt.Fprintln(os.Stderr, "bench: some parts did not run (see the table)")
		return 1
	case *strict && rep.Failed():
		return 1
	}
	return 0
}
