package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
)

// FrameChildEnv turns a process started for NodeParent's floor into a
// frame echo child: a program that may be re-executed for it calls
// ServeFrameChildIfAsked first thing in main. Its value is the body size,
// in bytes, of the frame the child answers every frame with.
const FrameChildEnv = "CODEMODE_BENCH_FRAME_CHILD"

// ServeFrameChildIfAsked, when FrameChildEnv is set, answers every frame
// (a 4-byte big-endian length and its body) read from standard input with
// one frame of FrameChildEnv body bytes on standard output, through
// *os.File as the host does its I/O, until standard input ends, and exits
// the process; otherwise it returns at once.
func ServeFrameChildIfAsked() {
	v := os.Getenv(FrameChildEnv)
	if v == "" {
		return
	}
	size, err := strconv.Atoi(v)
	if err != nil || size <= 0 || size > 1<<20 {
		fmt.Fprintf(os.Stderr, "frame child: %s=%q: want a body size in bytes (1 to 1 MiB)\n", FrameChildEnv, v)
		os.Exit(2)
	}
	if err := serveFrames(os.Stdin, os.Stdout, size); err != nil {
		fmt.Fprintln(os.Stderr, "frame child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func serveFrames(r io.Reader, w io.Writer, size int) error {
	reply := make([]byte, 4+size)
	binary.BigEndian.PutUint32(reply, uint32(size))
	var hdr [4]byte
	body := make([]byte, 0, 256)
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		n := binary.BigEndian.Uint32(hdr[:])
		if n == 0 || n > 1<<20 {
			return fmt.Errorf("bad frame length %d", n)
		}
		body = slices.Grow(body[:0], int(n))[:n]
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if _, err := w.Write(reply); err != nil {
			return err
		}
	}
}

// NodeParentOptions configure NodeParent.
type NodeParentOptions struct {
	// HostBin is the codemode-host binary.
	HostBin string
	// Script is bench/node/parent.mjs; node resolves its imports from the
	// repository's node_modules.
	Script string
	// FloorCmd returns a command that starts a process calling
	// ServeFrameChildIfAsked. Nil: no floor.
	FloorCmd func() *exec.Cmd
	// N is how many sequential calls one cell makes (and round trips and
	// codec iterations one round measures). Default 1000.
	N int
	// Rounds is how many interleaved rounds of floor, codec and cell run.
	// Default 5.
	Rounds int
	// Write is how the parent writes its frames: "stream" (the child's
	// stdin stream, the default) or "sync" (one fs.writeSync per frame).
	Write string
}

// NodeParentResult is what one run of bench/node/parent.mjs measured:
// per-call microseconds of every round, and their medians.
type NodeParentResult struct {
	N      int    `json:"n"`
	Rounds int    `json:"rounds"`
	Write  string `json:"write"`
	// FrameBytes are the frame sizes the floor moves: a tool.call's and a
	// tool.result's, as the parent encodes them.
	FrameBytes map[string]int `json:"frame_bytes"`
	// FloorUS: round trip Node ↔ Go echo child with frames of those sizes.
	FloorUS []float64 `json:"floor_us"`
	// CodecUS: the parent's decode of a tool.call and encode of its
	// tool.result.
	CodecUS []float64 `json:"codec_us"`
	// HostCellUS: one sequential awaited call, timed inside the cell with
	// Date.now; HostStatsUS: the cell's stats.wall_ms over N;
	// HostParentUS: the exec timed by the parent, less a trivial cell's.
	HostCellUS   []float64 `json:"host_cell_us"`
	HostStatsUS  []float64 `json:"host_stats_us"`
	HostParentUS []float64 `json:"host_parent_us"`
	// Medians of the above.
	Floor      float64 `json:"floor_p50_us"`
	Codec      float64 `json:"codec_p50_us"`
	HostCell   float64 `json:"host_cell_p50_us"`
	HostStats  float64 `json:"host_stats_p50_us"`
	HostParent float64 `json:"host_parent_p50_us"`
	// GoBridgeCellUS: the same cell through the Go bridge, after each
	// round; GoBridgeCell its median.
	GoBridgeCellUS []float64 `json:"go_bridge_cell_us,omitempty"`
	GoBridgeCell   float64   `json:"go_bridge_cell_p50_us,omitempty"`
	// Ratio is HostCell / (Floor + Codec): the issue #20 target is 2.5.
	Ratio float64 `json:"ratio"`
	// RatioByRound is the same ratio within each round.
	RatioByRound []float64 `json:"ratio_by_round"`
}

// NodeParentTarget is issue #20's bound on a Node parent's sequential call
// against the floor plus its own codec cost.
const NodeParentTarget = 2.5

// NodeParent runs opt.Rounds rounds, each one run of bench/node/parent.mjs
// (which spawns the host over stdio and the Go echo child and measures a
// floor, a codec and a host round in the one Node process) followed, given
// a bridge, by the same cell through the Go bridge, so every figure of a
// round is measured back to back.
func NodeParent(ctx context.Context, opt NodeParentOptions, goBridge System) (*NodeParentResult, error) {
	if opt.N <= 0 {
		opt.N = 1000
	}
	if opt.Rounds <= 0 {
		opt.Rounds = 5
	}
	if opt.Write == "" {
		opt.Write = "stream"
	}
	if _, err := os.Stat(opt.Script); err != nil {
		return nil, fmt.Errorf("bench: the Node parent: %w", err)
	}
	nodeModules := filepath.Join(filepath.Dir(opt.Script), "..", "..", "node_modules", "@msgpack", "msgpack")
	if _, err := os.Stat(nodeModules); err != nil {
		return nil, fmt.Errorf("bench: the Node parent needs @msgpack/msgpack in the repository's node_modules: run `make setup`")
	}
	var res NodeParentResult
	for range opt.Rounds {
		got, err := runParentMJS(ctx, opt)
		if err != nil {
			return nil, err
		}
		res.N, res.Rounds, res.Write, res.FrameBytes = got.N, opt.Rounds, got.Write, got.FrameBytes
		res.FloorUS = append(res.FloorUS, got.FloorUS...)
		res.CodecUS = append(res.CodecUS, got.CodecUS...)
		res.HostCellUS = append(res.HostCellUS, got.HostCellUS...)
		res.HostStatsUS = append(res.HostStatsUS, got.HostStatsUS...)
		res.HostParentUS = append(res.HostParentUS, got.HostParentUS...)
		if goBridge != nil {
			us, err := bridgeCellUS(ctx, goBridge, opt.N)
			if err != nil {
				return nil, err
			}
			res.GoBridgeCellUS = append(res.GoBridgeCellUS, us)
		}
	}
	res.Floor, res.Codec = median(res.FloorUS), median(res.CodecUS)
	res.HostCell, res.HostStats, res.HostParent = median(res.HostCellUS), median(res.HostStatsUS), median(res.HostParentUS)
	res.GoBridgeCell = median(res.GoBridgeCellUS)
	if res.Floor > 0 {
		res.Ratio = res.HostCell / (res.Floor + res.Codec)
		for i := range min(len(res.FloorUS), len(res.CodecUS), len(res.HostCellUS)) {
			res.RatioByRound = append(res.RatioByRound, res.HostCellUS[i]/(res.FloorUS[i]+res.CodecUS[i]))
		}
	}
	return &res, nil
}

// seqCell is parent.mjs's measured cell: n sequential awaited echo calls,
// timed inside the cell.
func seqCell(n int) string {
	return fmt.Sprintf(`
const t0 = Date.now();
let s = 0;
for (let i = 0; i < %d; i++) { const r = await tools.echo({ i }); s += r.i; }
return { ms: Date.now() - t0, s };`, n)
}

// bridgeCellUS runs seqCell through sys and returns its per-call µs.
func bridgeCellUS(ctx context.Context, sys System, n int) (float64, error) {
	got, err := sys.Run(ctx, seqCell(n))
	if err != nil {
		return 0, fmt.Errorf("bench: %s, %d sequential calls: %w", sys.Name(), n, err)
	}
	var v struct{ Ms, S float64 }
	if err := json.Unmarshal([]byte(got), &v); err != nil || v.S != float64(n*(n-1)/2) {
		return 0, fmt.Errorf("bench: %s, %d sequential calls: returned %q", sys.Name(), n, got)
	}
	return v.Ms * 1000 / float64(n), nil
}

// runParentMJS runs parent.mjs for one round.
func runParentMJS(ctx context.Context, opt NodeParentOptions) (*NodeParentResult, error) {
	args := []string{opt.Script, "--host", opt.HostBin, "--n", strconv.Itoa(opt.N), "--rounds", "1", "--write", opt.Write}
	cmd := exec.CommandContext(ctx, "node", args...)
	if opt.FloorCmd != nil {
		fc := opt.FloorCmd()
		if fc.Err != nil {
			return nil, fmt.Errorf("bench: the floor child: %w", fc.Err)
		}
		cmd.Args = append(cmd.Args, "--floor-cmd", fc.Path)
		for _, a := range fc.Args[1:] {
			cmd.Args = append(cmd.Args, "--floor-arg", a)
		}
		// The child answers every frame with one of a tool.call's size
		// (checked against what parent.mjs encodes below).
		cmd.Env = append(os.Environ(), FrameChildEnv+"="+strconv.Itoa(sampleToolCallBody))
	}
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("bench: parent.mjs failed: %w; stderr ends: %s", err, stderr)
		}
		return nil, fmt.Errorf("bench: running node: %w", err)
	}
	var res NodeParentResult
	if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
		return nil, fmt.Errorf("bench: parent.mjs printed %q: %w", out, err)
	}
	if got := res.FrameBytes["tool_call"]; opt.FloorCmd != nil && got != 4+sampleToolCallBody {
		return nil, fmt.Errorf("bench: parent.mjs's tool.call frame is %d bytes, the floor child answers with %d: update sampleToolCallBody", got, 4+sampleToolCallBody)
	}
	return &res, nil
}

// sampleToolCallBody is the body size of parent.mjs's sample tool.call.
const sampleToolCallBody = 93

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Rows are the table's lines for the Node parent.
func (r *NodeParentResult) Rows() []Row {
	goBridgeUS := r.GoBridgeCell
	const sys = "Node parent via stdio"
	rows := []Row{
		{Item: "Node ↔ Go pipe floor (frames of a call's sizes)", System: sys, Ours: fmt.Sprintf("%.1f µs", r.Floor), Verdict: verdictInfo},
		{Item: "Node parent's codec per call", System: sys, Ours: fmt.Sprintf("%.1f µs", r.Codec), Verdict: verdictInfo},
	}
	row := Row{Item: fmt.Sprintf("sequential awaited call (%d in a cell)", r.N), System: sys, Ours: fmt.Sprintf("%.1f µs", r.HostCell)}
	if r.Floor > 0 {
		row.Ratio = r.Ratio
		row.Target = fmt.Sprintf("≤ %.1f× (floor + codec = %.1f µs)", NodeParentTarget, r.Floor+r.Codec)
		row.Verdict = verdictFail
		if r.Ratio <= NodeParentTarget {
			row.Verdict = verdictPass
		}
	} else {
		row.Verdict = verdictNoData + " (no floor)"
	}
	rows = append(rows, row,
		Row{Item: "  timed by the parent (less a trivial cell)", System: sys, Ours: fmt.Sprintf("%.1f µs", r.HostParent), Verdict: verdictInfo})
	if goBridgeUS > 0 {
		rows = append(rows, Row{Item: "  against the same cell via the Go bridge", System: sys, Ours: fmt.Sprintf("%.1f µs", r.HostCell),
			Ratio: r.HostCell / goBridgeUS, Target: fmt.Sprintf("(× %.1f µs)", goBridgeUS), Verdict: verdictInfo})
	}
	return rows
}
