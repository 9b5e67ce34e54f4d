package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is one run of the harness: the raw measurements and the table
// made from them. It is what bench/results/<timestamp>.json holds.
type Report struct {
	Time     string   `json:"time"`
	Machine  Machine  `json:"machine"`
	Settings Settings `json:"settings"`

	Peer      PeerResults `json:"peer,omitempty"`
	PeerError string      `json:"peer_error,omitempty"`

	// Floor is the round trip of 4 bytes over a pipe pair between two Go
	// processes doing their I/O through *os.File: DESIGN §7's floor, the
	// per-call target's reference (see Floor).
	Floor      Stat   `json:"floor"`
	FloorError string `json:"floor_error,omitempty"`
	// RawFloor is the same round trip with raw blocking system calls on
	// locked threads: the kernel's share alone (see RawFloor).
	RawFloor      Stat   `json:"raw_floor"`
	RawFloorError string `json:"raw_floor_error,omitempty"`

	Systems []SystemResult `json:"systems"`

	// Memory has one entry per host launcher that ran.
	Memory []*Memory `json:"memory,omitempty"`

	// Rows is the table, in print order.
	Rows []Row `json:"rows"`
}

// Machine says where the report was made.
type Machine struct {
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	CPUs   int    `json:"cpus"`
	Go     string `json:"go"`
	Node   string `json:"node,omitempty"`
}

// Settings are the run's sizes.
type Settings struct {
	N         int `json:"n"`
	Warmup    int `json:"warmup"`
	Rounds    int `json:"rounds"`
	FloorN    int `json:"floor_n"`
	LeakCells int `json:"leak_cells"`
}

// SystemResult is one of our systems' scenario measurements by key.
type SystemResult struct {
	Name string `json:"name"`
	// Host is true for a system that runs cells in a host process: the
	// targets are for those.
	Host      bool            `json:"host"`
	Scenarios map[string]Stat `json:"scenarios,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// Memory is a host process's start-up time and memory, launched one way.
type Memory struct {
	// System is how the host was launched.
	System string `json:"system"`
	// ColdReady is spawn → handshake done and a session open;
	// ColdFirstCell is spawn → the first trivial cell's result.
	ColdReady     Stat `json:"cold_ready"`
	ColdFirstCell Stat `json:"cold_first_cell"`
	// IdleHostMB is the RSS of a host with one open, unused session.
	IdleHostMB float64 `json:"idle_host_mb"`
	// PerSessionMB is the RSS growth per extra session that ran one cell,
	// averaged over Sessions sessions.
	PerSessionMB float64 `json:"per_session_mb"`
	Sessions     int     `json:"sessions"`
	// RSSSamples are the RSS every tenth of the leak check's LeakCells
	// cells; HeapPeak* are the V8 heap peaks of its first and last cell.
	LeakCells       int         `json:"leak_cells"`
	RSSSamples      []RSSSample `json:"rss_samples"`
	HeapPeakFirstMB float64     `json:"heap_peak_first_mb"`
	HeapPeakLastMB  float64     `json:"heap_peak_last_mb"`
	// Error says why a measurement stopped early.
	Error string `json:"error,omitempty"`
}

// RSSSample is the host's RSS after Cells cells.
type RSSSample struct {
	Cells int     `json:"cells"`
	RSSMB float64 `json:"rss_mb"`
}

// notRun starts the error of a part that was not asked for.
const notRun = "not run"

// Row is one line of the table.
type Row struct {
	Item    string  `json:"item"`
	System  string  `json:"system,omitempty"`
	Ours    string  `json:"ours"`
	Peer    string  `json:"peer,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"`
	Target  string  `json:"target,omitempty"`
	Verdict string  `json:"verdict"`
}

// Verdicts. The in-process rows get the starred ones: they pay no process
// boundary, so the targets (set for the host process) only inform.
const (
	verdictPass     = "pass"
	verdictFail     = "FAIL"
	verdictInfo     = "info"
	verdictNoData   = "n/a"
	verdictInfoPass = "pass*"
	verdictInfoFail = "fail*"
)

// Limits of DESIGN §7 that are not ratios to the peer.
const (
	floorFactor       = 3.0  // per sequential call overhead, × floor
	idleHostLimitMB   = 40.0 // RSS of an idle host
	perSessionLimitMB = 5.0  // RSS per extra idle session
	leakSlackMB       = 8.0  // RSS growth over the leak check still called none
	leakSlackFraction = 0.10 // … or this fraction of the RSS, whichever is more
)

// rows builds the table: host process first (the targets are its), then
// in-process, then the floor and the memory lines.
func (r *Report) rows() []Row {
	var rows []Row
	for _, sys := range r.systemsHostFirst() {
		rows = append(rows, r.scenarioRows(sys)...)
	}
	rows = append(rows, floorRow("pipe floor, Go I/O (the per-call reference)", r.Floor, r.FloorError),
		floorRow("pipe floor, raw system calls", r.RawFloor, r.RawFloorError))
	return append(rows, r.memoryRows()...)
}

func floorRow(item string, s Stat, errMsg string) Row {
	if errMsg != "" {
		return Row{Item: item, Ours: "—", Verdict: problem(errMsg)}
	}
	return Row{Item: item, Ours: usPair(s), Verdict: verdictInfo}
}

func (r *Report) systemsHostFirst() []SystemResult {
	var host, other []SystemResult
	for _, s := range r.Systems {
		if s.Host {
			host = append(host, s)
		} else {
			other = append(other, s)
		}
	}
	return append(host, other...)
}

func (r *Report) scenarioRows(sys SystemResult) []Row {
	informational := !sys.Host
	verdict := func(pass bool) string {
		switch {
		case pass && informational:
			return verdictInfoPass
		case informational:
			return verdictInfoFail
		case pass:
			return verdictPass
		}
		return verdictFail
	}
	var rows []Row
	if sys.Error != "" && len(sys.Scenarios) == 0 {
		return []Row{{Item: "all scenarios", System: sys.Name, Ours: "—", Verdict: problem(sys.Error)}}
	}
	for _, sc := range Scenarios {
		row := Row{Item: sc.Title, System: sys.Name, Target: fmt.Sprintf("≤ %.1f× peer", sc.Target)}
		ours, ok := sys.Scenarios[sc.Key]
		peer, havePeer := r.Peer[sc.Key]
		switch {
		case !ok:
			row.Ours, row.Verdict = "—", problem(sys.Error)
		case !havePeer:
			row.Ours, row.Verdict = msPair(ours), verdictNoData+" (no peer)"
		default:
			row.Ours, row.Peer = msPair(ours), msPair(peer)
			row.Ratio = ours.P50 / peer.P50
			row.Verdict = verdict(row.Ratio <= sc.Target)
		}
		rows = append(rows, row)
	}
	if perCall, ok := perCallUS(sys); ok {
		row := Row{Item: "per sequential call overhead", System: sys.Name, Ours: fmt.Sprintf("%.1f µs", perCall)}
		if r.FloorError == "" && r.Floor.P50 > 0 {
			floorUS := r.Floor.P50 * 1000
			row.Ratio = perCall / floorUS
			row.Target = fmt.Sprintf("≤ %.0f× floor (%.1f µs)", floorFactor, floorFactor*floorUS)
			row.Verdict = verdict(row.Ratio <= floorFactor)
		} else {
			row.Verdict = verdictNoData + " (no floor)"
		}
		rows = append(rows, row)
		if r.RawFloorError == "" && r.RawFloor.P50 > 0 {
			rows = append(rows, Row{Item: "  against the raw floor", System: sys.Name, Ours: fmt.Sprintf("%.1f µs", perCall),
				Ratio: perCall / (r.RawFloor.P50 * 1000), Target: "(× raw floor)", Verdict: verdictInfo})
		}
		if ipc, ok := r.ipcShare(sys, perCall); ok {
			rows = append(rows, ipc)
		}
	}
	return rows
}

// perCallUS is what one sequential awaited tool call costs sys, in µs:
// the 100-call scenario less the trivial cell, over 100 calls.
func perCallUS(sys SystemResult) (float64, bool) {
	trivial, ok1 := sys.Scenarios["trivial"]
	seq, ok2 := sys.Scenarios["seq100"]
	if !ok1 || !ok2 {
		return 0, false
	}
	return (seq.P50 - trivial.P50) / 100 * 1000, true
}

// ipcShare is the part of a host's per-call time that the in-process
// runtime does not pay: what the process boundary costs a call.
func (r *Report) ipcShare(sys SystemResult, hostPerCall float64) (Row, bool) {
	if !sys.Host {
		return Row{}, false
	}
	for _, other := range r.Systems {
		inProcess, ok := perCallUS(other)
		if other.Host || !ok {
			continue
		}
		share := hostPerCall - inProcess
		row := Row{Item: "  of which the process boundary", System: sys.Name, Ours: fmt.Sprintf("%.1f µs", share), Verdict: verdictInfo}
		if r.FloorError == "" && r.Floor.P50 > 0 {
			row.Ratio = share / (r.Floor.P50 * 1000)
			row.Target = "(× floor)"
		}
		return row, true
	}
	return Row{}, false
}

func (r *Report) memoryRows() []Row {
	var rows []Row
	for _, m := range r.Memory {
		rows = append(rows, m.rows()...)
	}
	return rows
}

func (m *Memory) rows() []Row {
	sys := m.System
	limit := func(v, max float64) string {
		if v < max {
			return verdictPass
		}
		return verdictFail
	}
	var rows []Row
	if m.ColdReady.N > 0 {
		rows = append(rows,
			Row{Item: "host cold start: spawn → session open", System: sys, Ours: msPair(m.ColdReady), Verdict: verdictInfo},
			Row{Item: "host cold start: spawn → first cell", System: sys, Ours: msPair(m.ColdFirstCell), Verdict: verdictInfo})
	}
	if m.IdleHostMB > 0 {
		rows = append(rows, Row{Item: "RSS of an idle host", System: sys, Ours: fmt.Sprintf("%.1f MB", m.IdleHostMB),
			Target: fmt.Sprintf("< %.0f MB", idleHostLimitMB), Verdict: limit(m.IdleHostMB, idleHostLimitMB)})
	}
	if m.Sessions > 0 {
		rows = append(rows, Row{Item: "RSS per extra idle session", System: sys,
			Ours:   fmt.Sprintf("%.2f MB (%d sessions)", m.PerSessionMB, m.Sessions),
			Target: fmt.Sprintf("< %.0f MB", perSessionLimitMB), Verdict: limit(m.PerSessionMB, perSessionLimitMB)})
	}
	if n := len(m.RSSSamples); n >= 2 {
		// The RSS saw-tooths as isolates are replaced and collected; a
		// leak shows as an end above everything the first half reached.
		last, early := m.RSSSamples[n-1], m.RSSSamples[:n/2]
		peak := early[0]
		for _, s := range early {
			if s.RSSMB > peak.RSSMB {
				peak = s
			}
		}
		growth := last.RSSMB - peak.RSSMB
		slack := max(leakSlackMB, leakSlackFraction*peak.RSSMB)
		rows = append(rows,
			Row{Item: fmt.Sprintf("RSS after %d cells", last.Cells), System: sys,
				Ours:   fmt.Sprintf("%.1f MB (peak %.1f MB by %d: %+.1f MB)", last.RSSMB, peak.RSSMB, early[len(early)-1].Cells, growth),
				Target: fmt.Sprintf("no growth (≤ %.0f MB)", slack), Verdict: limit(growth, slack+1e-9)},
			Row{Item: fmt.Sprintf("V8 heap peak, cell 1 → cell %d", last.Cells), System: sys,
				Ours: fmt.Sprintf("%.2f → %.2f MB", m.HeapPeakFirstMB, m.HeapPeakLastMB), Verdict: verdictInfo})
	}
	if m.Error != "" {
		rows = append(rows, Row{Item: "host start-up and memory", System: sys, Ours: "—", Verdict: problem(m.Error)})
	}
	return rows
}

// problem is the verdict of a part that did not run: skipped when it was
// not asked for, else the error.
func problem(msg string) string {
	if strings.HasPrefix(msg, notRun) {
		return "skipped (" + msg + ")"
	}
	return "error: " + msg
}

// Failed reports whether a target of the host process was missed.
func (r *Report) Failed() bool {
	for _, row := range r.Rows {
		if row.Verdict == verdictFail {
			return true
		}
	}
	return false
}

// WriteTable prints the report as one aligned table, with the peer's and
// the floor's provenance underneath.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tsystem\tours p50 / p99\tpeer p50 / p99\tours/peer\ttarget\tresult")
	for _, row := range r.Rows {
		ratio := ""
		if row.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f×", row.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.Item, row.System, row.Ours, dash(row.Peer), dash(ratio), dash(row.Target), row.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	peer := "peer: @utcp/code-mode 1.2.12 on isolated-vm (bench/peer), echo tool in-process"
	if r.PeerError != "" {
		peer += " — " + r.PeerError
	}
	_, err := fmt.Fprintf(w, "\n%s\nN=%d measured runs per scenario in %d interleaved rounds, each after %d warm-up runs; ratios compare p50s; %s, %d CPUs, %s, node %s\n"+
		"* in-process rows pay no process boundary: informational, the targets are the host process's.\n",
		peer, r.Settings.N, r.Settings.Rounds, r.Settings.Warmup, r.Machine.GOOS+"/"+r.Machine.GOARCH, r.Machine.CPUs, r.Machine.Go, dash(r.Machine.Node))
	return err
}

// WriteJSON writes the report to dir/<timestamp>.json and returns the path.
func (r *Report) WriteJSON(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	if t, err := time.Parse(time.RFC3339, r.Time); err == nil {
		stamp = t.UTC().Format("20060102T150405Z")
	}
	path := filepath.Join(dir, stamp+".json")
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}

func msPair(s Stat) string { return fmt.Sprintf("%.2f / %.2f ms", s.P50, s.P99) }

func usPair(s Stat) string { return fmt.Sprintf("%.1f / %.1f µs", s.P50*1000, s.P99*1000) }

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Incomplete reports whether a part that was asked for could not run: a
// system, the peer, a floor or the memory measurements.
func (r *Report) Incomplete() bool {
	failed := func(msg string) bool { return msg != "" && !strings.HasPrefix(msg, notRun) }
	if failed(r.PeerError) || failed(r.FloorError) || failed(r.RawFloorError) {
		return true
	}
	for _, s := range r.Systems {
		if failed(s.Error) {
			return true
		}
	}
	for _, m := range r.Memory {
		if failed(m.Error) {
			return true
		}
	}
	return false
}
