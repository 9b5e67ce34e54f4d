package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
)

// These tests check that every part of the harness runs and reports what
// it measured; they never judge a timing.

// TestMain serves as the floor's child process when Floor re-executes the
// test binary, and removes the host binary the tests built.
func TestMain(m *testing.M) {
	ServeFloorChildIfAsked()
	ServeFrameChildIfAsked()
	code := m.Run()
	testhost.Cleanup()
	os.Exit(code)
}

func TestPercentileIsNearestRank(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	assert.Equal(t, 5.0, percentile(sorted, 50))
	assert.Equal(t, 10.0, percentile(sorted, 99))
	assert.Equal(t, 1.0, percentile(sorted, 0))
	assert.Equal(t, 7.0, percentile([]float64{7}, 99))
}

func TestStatOfConvertsToMilliseconds(t *testing.T) {
	s := statOf([]time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond})
	assert.Equal(t, Stat{P50: 2, P99: 3, N: 3}, s)
	assert.Equal(t, Stat{}, statOf(nil))
}

// floorCmd re-executes the test binary, which TestMain turns into the
// floor's child.
func floorCmd() *exec.Cmd {
	return exec.Command(os.Args[0], "-test.run=^$")
}

func TestFloorsTimeEveryRoundTrip(t *testing.T) {
	for name, floor := range map[string]func(*exec.Cmd, int, int) ([]time.Duration, error){"go": Floor, "raw": RawFloor} {
		t.Run(name, func(t *testing.T) {
			times, err := floor(floorCmd(), 200, 20)
			require.NoError(t, err)
			assert.Len(t, times, 200)
			for _, d := range times {
				assert.Positive(t, d)
			}
		})
	}
}

func TestInProcessRunsEveryScenario(t *testing.T) {
	sys := NewInProcess()
	defer sys.Close()
	for _, sc := range Scenarios {
		require.NoError(t, checkRun(context.Background(), sys, sc))
	}
}

func TestInProcessReportsAFailedCell(t *testing.T) {
	sys := NewInProcess()
	defer sys.Close()
	_, err := sys.Run(context.Background(), "throw new Error('boom')")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom")
}

// hostBin is the host binary for this package's tests (internal/testhost).
func hostBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the host binary")
	}
	return testhost.Bin(t)
}

func TestHostSystemsRunEveryScenario(t *testing.T) {
	bin := hostBin(t)
	for _, l := range hostLaunchers {
		t.Run(l.name, func(t *testing.T) {
			ctx := context.Background()
			h, err := l.start(ctx, bin)
			require.NoError(t, err)
			for _, sc := range Scenarios {
				require.NoError(t, checkRun(ctx, h, sc))
			}
			require.NoError(t, h.OpenSession(ctx, "second"))
			res, err := h.Exec(ctx, "second", "store('k', 2); return 2")
			require.NoError(t, err)
			got, err := returnValue(res.Status, res.Error, res.Items)
			require.NoError(t, err)
			assert.Equal(t, "2", got)
			rss, err := h.RSS()
			require.NoError(t, err)
			assert.Positive(t, rss)
			require.NoError(t, h.Close())
		})
	}
}

func TestMeasureMemoryFillsEveryField(t *testing.T) {
	bin := hostBin(t)
	opt := Options{HostBin: bin, ColdStarts: 2, Sessions: 2, LeakCells: 20}
	opt.fill()
	mem, err := measureMemory(context.Background(), hostLaunchers[1], opt)
	require.NoError(t, err)
	assert.Equal(t, 2, mem.ColdReady.N)
	assert.Equal(t, 2, mem.ColdFirstCell.N)
	assert.Positive(t, mem.IdleHostMB)
	assert.Equal(t, 2, mem.Sessions)
	assert.Len(t, mem.RSSSamples, 10)
	assert.Equal(t, 20, mem.RSSSamples[9].Cells)
	assert.Positive(t, mem.HeapPeakLastMB)
}

func TestPeerRunsEveryScenario(t *testing.T) {
	if _, err := os.Stat("peer/node_modules/@utcp/code-mode"); err != nil {
		t.Skip("the peer is not installed: npm ci --prefix bench/peer")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node in PATH")
	}
	res, err := RunPeer(context.Background(), "peer", 2, 0)
	require.NoError(t, err)
	for _, sc := range Scenarios {
		require.Len(t, res[sc.Key], 2, sc.Key)
		assert.Positive(t, res[sc.Key][0], sc.Key)
	}
}

func TestRunPeerSaysHowToInstallIt(t *testing.T) {
	_, err := RunPeer(context.Background(), t.TempDir(), 1, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "npm ci --prefix")
}

func TestRunWithoutHostOrPeerReportsWhatDidNotRun(t *testing.T) {
	rep, err := Run(context.Background(), Options{N: 3, Warmup: 1, Rounds: 2, FloorCmd: floorCmd, FloorN: 100})
	require.NoError(t, err)
	assert.False(t, rep.Incomplete(), "parts not asked for are not failures")
	assert.Empty(t, rep.FloorError)
	assert.Equal(t, 100, rep.Floor.N)
	assert.Empty(t, rep.RawFloorError)
	assert.Equal(t, 100, rep.RawFloor.N)
	var names []string
	for _, s := range rep.Systems {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"in-process (no IPC)", "host via bridge (go-plugin)", "host via stdio"}, names)
	assert.Equal(t, 3, rep.Systems[0].Scenarios["trivial"].N, "2 rounds of 2 and 1 runs")
	var b strings.Builder
	require.NoError(t, rep.WriteTable(&b))
	assert.Contains(t, b.String(), "skipped (not run: no host binary given (-host))")
	assert.Contains(t, b.String(), "n/a (no peer)")
}

func TestRunMeasuresEverySystemInRounds(t *testing.T) {
	bin := hostBin(t)
	if _, err := os.Stat("peer/node_modules/@utcp/code-mode"); err != nil {
		t.Skip("the peer is not installed: npm ci --prefix bench/peer")
	}
	rep, err := Run(context.Background(), Options{HostBin: bin, PeerDir: "peer", N: 2, Warmup: 1, Rounds: 2,
		FloorCmd: floorCmd, FloorN: 100, ColdStarts: 1, Sessions: 1, LeakCells: 10})
	require.NoError(t, err)
	assert.False(t, rep.Incomplete(), "%+v", rep)
	for _, sys := range rep.Systems {
		assert.Len(t, sys.Scenarios, len(Scenarios), sys.Name)
	}
	assert.Equal(t, 2, rep.Peer["fib27"].N)
	assert.Len(t, rep.Memory, 2)
}

// syntheticReport has a host at half the peer's times, a floor of 10 µs
// and a raw floor of 4 µs.
func syntheticReport() *Report {
	peer := PeerResults{}
	ours := map[string]Stat{}
	for _, sc := range Scenarios {
		peer[sc.Key] = Stat{P50: 10, P99: 20, N: 5}
		ours[sc.Key] = Stat{P50: 5, P99: 6, N: 5}
	}
	ours["seq100"] = Stat{P50: 7, P99: 8, N: 5} // 20 µs a call over trivial
	inproc := map[string]Stat{"trivial": {P50: 1, N: 5}, "seq100": {P50: 2, N: 5}}
	r := &Report{
		Time:     "2026-01-02T03:04:05Z",
		Peer:     peer,
		Floor:    Stat{P50: 0.010, P99: 0.020, N: 100},
		RawFloor: Stat{P50: 0.004, P99: 0.008, N: 100},
		Systems: []SystemResult{
			{Name: "in-process (no IPC)", Scenarios: inproc},
			{Name: "host via stdio", Host: true, Scenarios: ours},
		},
		Memory: []*Memory{{System: "host via stdio", IdleHostMB: 30, PerSessionMB: 6, Sessions: 4,
			RSSSamples: []RSSSample{{Cells: 10, RSSMB: 40}, {Cells: 100, RSSMB: 60}}}},
	}
	r.Rows = r.rows()
	return r
}

func TestRowsJudgeRatiosAgainstTheTargets(t *testing.T) {
	r := syntheticReport()
	verdicts := map[string]string{}
	for _, row := range r.Rows {
		verdicts[row.System+" | "+row.Item] = row.Verdict
	}
	assert.Equal(t, "FAIL", verdicts["host via stdio | trivial cell"], "0.5× is over 0.3×")
	assert.Equal(t, "FAIL", verdicts["host via stdio | 100 sequential echo calls"], "0.7× is over 0.6×")
	assert.Equal(t, "pass", verdicts["host via stdio | Promise.all of 1,000 echo calls"], "0.5× is 0.5×")
	assert.Equal(t, "pass", verdicts["host via stdio | fib(27)"])
	assert.Equal(t, "pass", verdicts["host via stdio | per sequential call overhead"], "20 µs is within 3× of 10 µs")
	assert.Equal(t, "info", verdicts["host via stdio |   of which the process boundary"])
	assert.Equal(t, "info", verdicts["host via stdio |   against the raw floor"], "the raw floor is not the target's reference")
	assert.Equal(t, "pass", verdicts["host via stdio | RSS of an idle host"])
	assert.Equal(t, "FAIL", verdicts["host via stdio | RSS per extra idle session"])
	assert.Equal(t, "FAIL", verdicts["host via stdio | RSS after 100 cells"], "20 MB of growth")
	assert.Equal(t, "pass*", verdicts["in-process (no IPC) | per sequential call overhead"], "10 µs is 1× the floor")
	assert.True(t, r.Failed())
	assert.False(t, r.Incomplete())
	assert.Equal(t, "host via stdio", r.Rows[0].System, "host rows come first")
}

func TestReportWritesTableAndJSON(t *testing.T) {
	r := syntheticReport()
	var b strings.Builder
	require.NoError(t, r.WriteTable(&b))
	table := b.String()
	assert.Contains(t, table, "scenario")
	assert.Contains(t, table, "ours/peer")
	assert.Contains(t, table, "0.50×")
	assert.Contains(t, table, "10.0 / 20.0 µs")
	assert.Contains(t, table, "5.00×", "20 µs a call is 5× the 4 µs raw floor")

	path, err := r.WriteJSON(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, "20260102T030405Z.json", filepath.Base(path))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var back Report
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, r.Rows, back.Rows)
	assert.Equal(t, r.Peer, back.Peer)
}
