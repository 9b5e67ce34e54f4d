package bench

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	goruntime "runtime"
	"strings"
	"time"
)

// Options configure Run. Zero fields take the defaults in their comments.
type Options struct {
	// HostBin is the codemode-host binary the host systems launch. Empty:
	// they are not run (nor the memory measurements) and the rows say so.
	HostBin string
	// PeerDir holds peer.mjs with its node_modules installed. Empty: the
	// peer is not run and no ratio is computed.
	PeerDir string
	// N is how many measured runs each scenario gets. Default 50.
	N int
	// Warmup is how many unmeasured runs come first in each round.
	// Default 3.
	Warmup int
	// Rounds is how many rounds the N runs are spread over. Default 5;
	// at most N.
	Rounds int
	// FloorCmd returns a new command that starts a process calling
	// ServeFloorChildIfAsked. Nil: no floor.
	FloorCmd func() *exec.Cmd
	// FloorN is how many round trips the floor measures. Default 20000.
	FloorN int
	// ColdStarts is how many host cold starts are timed. Default 10.
	ColdStarts int
	// Sessions is how many extra idle sessions the per-session memory is
	// averaged over. Default 32 (the host allows 64).
	Sessions int
	// LeakCells is how many cells the leak check runs in one host.
	// Default 10000.
	LeakCells int
	// Log receives progress lines. Default: discard.
	Log io.Writer
}

func (o *Options) fill() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.N, 50)
	def(&o.Warmup, 3)
	def(&o.Rounds, 5)
	o.Rounds = min(o.Rounds, o.N)
	def(&o.FloorN, 20000)
	def(&o.ColdStarts, 10)
	def(&o.Sessions, 32)
	def(&o.LeakCells, 10000)
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// Run measures everything Options ask for and returns the report. A part
// that cannot run (no peer installed, no host binary, a failing system) is
// recorded in the report and the rest still runs; Run returns an error only
// when ctx ends.
//
// The scenarios run in Rounds rounds, each the peer's share of the runs and
// then every system's, so a machine that gets busier or quieter during the
// run weighs on every column alike.
func Run(ctx context.Context, opt Options) (*Report, error) {
	opt.fill()
	rep := &Report{
		Time:    time.Now().UTC().Format(time.RFC3339),
		Machine: machineInfo(),
		Settings: Settings{N: opt.N, Warmup: opt.Warmup, Rounds: opt.Rounds, FloorN: opt.FloorN,
			LeakCells: opt.LeakCells},
	}
	logf := func(format string, args ...any) { fmt.Fprintf(opt.Log, "bench: "+format+"\n", args...) }

	if opt.FloorCmd != nil {
		logf("floor: %d pipe round trips with Go I/O, then with raw system calls", opt.FloorN)
		times, err := Floor(opt.FloorCmd(), opt.FloorN, opt.FloorN/10)
		rep.Floor, rep.FloorError = statOf(times), errString(err)
		times, err = RawFloor(opt.FloorCmd(), opt.FloorN, opt.FloorN/10)
		rep.RawFloor, rep.RawFloorError = statOf(times), errString(err)
	} else {
		rep.FloorError, rep.RawFloorError = notRun, notRun
	}

	systems, results := startSystems(ctx, opt, logf)
	var peer map[string][]time.Duration
	if opt.PeerDir == "" {
		rep.PeerError = notRun + ": no peer directory given (-peer)"
	}
	for round := range opt.Rounds {
		n := opt.N/opt.Rounds + btoi(round < opt.N%opt.Rounds)
		logf("round %d of %d: %d runs per scenario", round+1, opt.Rounds, n)
		if opt.PeerDir != "" && rep.PeerError == "" {
			got, err := RunPeer(ctx, opt.PeerDir, n, opt.Warmup)
			rep.PeerError = errString(err)
			peer = appendSamples(peer, got)
		}
		for i, sys := range systems {
			if sys != nil && results[i].Error == "" {
				results[i].runRound(ctx, sys, n, opt.Warmup)
			}
		}
	}
	for i, sys := range systems {
		if sys != nil {
			if err := sys.Close(); err != nil {
				logf("closing %s: %v", sys.Name(), err)
			}
		}
		rep.Systems = append(rep.Systems, results[i].SystemResult())
	}
	if rep.PeerError == "" {
		rep.Peer = PeerResults{}
		for k, ds := range peer {
			rep.Peer[k] = statOf(ds)
		}
	}
	goruntime.GC()

	for _, l := range hostLaunchers {
		if opt.HostBin == "" {
			continue
		}
		logf("%s: cold start, memory, %d-cell leak check", l.name, opt.LeakCells)
		mem, err := measureMemory(ctx, l, opt)
		mem.Error = errString(err)
		rep.Memory = append(rep.Memory, mem)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	rep.Rows = rep.rows()
	return rep, nil
}

// startSystems starts the in-process runtime and, given a binary, each host
// launcher's host. A system that fails to start is nil, its result holding
// why.
func startSystems(ctx context.Context, opt Options, logf func(string, ...any)) ([]System, []*systemRun) {
	systems := []System{NewInProcess()}
	results := []*systemRun{{name: systems[0].Name()}}
	for _, l := range hostLaunchers {
		run := &systemRun{name: l.name, host: true}
		results = append(results, run)
		if opt.HostBin == "" {
			run.Error = notRun + ": no host binary given (-host)"
			systems = append(systems, nil)
			continue
		}
		logf("starting %s: %s", l.name, opt.HostBin)
		h, err := l.start(ctx, opt.HostBin)
		if err != nil {
			run.Error = err.Error()
			systems = append(systems, nil)
			continue
		}
		systems = append(systems, h)
	}
	return systems, results
}

// systemRun gathers one system's samples over the rounds.
type systemRun struct {
	name    string
	host    bool
	samples map[string][]time.Duration
	Error   string
}

// runRound measures every scenario n times on sys; the first failure ends
// the system's measurements.
func (r *systemRun) runRound(ctx context.Context, sys System, n, warmup int) {
	for _, sc := range Scenarios {
		times, err := measure(ctx, sys, sc, n, warmup)
		if err != nil {
			r.Error = err.Error()
			return
		}
		r.samples = appendSamples(r.samples, map[string][]time.Duration{sc.Key: times})
	}
}

// SystemResult summarises the samples. A system that failed keeps only
// the error: a partial column would mislead.
func (r *systemRun) SystemResult() SystemResult {
	res := SystemResult{Name: r.name, Host: r.host, Error: r.Error}
	if r.Error != "" {
		return res
	}
	res.Scenarios = map[string]Stat{}
	for k, ds := range r.samples {
		res.Scenarios[k] = statOf(ds)
	}
	return res
}

func appendSamples(dst, src map[string][]time.Duration) map[string][]time.Duration {
	if dst == nil {
		dst = map[string][]time.Duration{}
	}
	for k, ds := range src {
		dst[k] = append(dst[k], ds...)
	}
	return dst
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func machineInfo() Machine {
	m := Machine{GOOS: goruntime.GOOS, GOARCH: goruntime.GOARCH, CPUs: goruntime.NumCPU(), Go: goruntime.Version()}
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		m.Node = strings.TrimSpace(string(out))
	}
	return m
}
