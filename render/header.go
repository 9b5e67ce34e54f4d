package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/tsdecl"
)

// RunningPrefix starts the header of a cell that is still running (status
// yielded); the cell's id follows it. Its one home is tsdecl, whose wait
// description quotes it.
const RunningPrefix = tsdecl.RunningPrefix

// MaxStackFrames is how many stack frames a failed cell's output keeps;
// the rest are counted.
const MaxStackFrames = 5

// NoOutput is the line a result with no items and no error carries.
const NoOutput = "(no output)"

// truncatedNote ends the header of a result the output budget cut.
const truncatedNote = " · output truncated"

// Header is the one-line status of a result: what state the cell is in,
// its wall time so far, and, while it runs, how to keep waiting:
//
//	Script completed · 1.2 s
//	Script timed out · 60.0 s · output truncated
//	Script running with cell ID c3 · 10.0 s — call wait with cell_id "c3" to keep waiting
func Header(res *protocol.CellResult) string {
	var b strings.Builder
	if res.Status == protocol.StatusYielded {
		b.WriteString(RunningPrefix)
		b.WriteString(res.Cell)
	} else {
		b.WriteString("Script ")
		b.WriteString(statusWords(res.Status))
	}
	b.WriteString(" · ")
	b.WriteString(wallTime(res.Stats.WallMS))
	if res.Truncated {
		b.WriteString(truncatedNote)
	}
	if res.Status == protocol.StatusYielded {
		fmt.Fprintf(&b, " — call wait with cell_id %s to keep waiting", strconv.Quote(res.Cell))
	}
	return b.String()
}

// statusWords says a final status in words.
func statusWords(s protocol.Status) string {
	switch s {
	case protocol.StatusTimedOut:
		return "timed out"
	case protocol.StatusOutOfMemory:
		return "ran out of memory"
	case "":
		return "ended without a status"
	}
	return string(s)
}

// wallTime renders a measured wall time: whole milliseconds under a
// second, else seconds with one decimal.
func wallTime(ms float64) string {
	if ms < 999.5 {
		return strconv.FormatFloat(max(ms, 0), 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
}

// IsError reports whether the result is a failure the model should see as
// one (failed, timed out, out of memory): Anthropic's is_error.
func IsError(res *protocol.CellResult) bool {
	switch res.Status {
	case protocol.StatusFailed, protocol.StatusTimedOut, protocol.StatusOutOfMemory:
		return true
	}
	return false
}
