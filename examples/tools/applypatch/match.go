package applypatch

import (
	"fmt"
	"regexp"
	"strings"
)

// lineNumbers matches the "@@ -1,2 +1,3 @@" of a unified diff.
var lineNumbers = regexp.MustCompile(`^-\d+(,\d+)? \+\d+`)

// maxListed caps how many match positions an ambiguity error lists.
const maxListed = 5

// replacement replaces del lines at index at with add.
type replacement struct {
	at, del int
	add     []string
}

// patchLines applies an Update's hunks to a file's lines (see the package
// doc for the rules). A failure is an *ApplyError with Hunk, Line, Err and
// Detail set.
func patchLines(lines []string, f FileOp) ([]string, *ApplyError) {
	var reps []replacement
	cursor := 0
	eol := lineEnding(lines)
	for i, h := range f.Hunks {
		fail := func(err error, format string, args ...any) ([]string, *ApplyError) {
			return nil, &ApplyError{Hunk: i + 1, Line: h.Line, Err: err, Detail: fmt.Sprintf(format, args...)}
		}
		start := cursor
		if h.Context != "" {
			at := seekLine(lines, start, h.Context)
			if at < 0 {
				hint := "copy the @@ line from the file as it is now"
				if lineNumbers.MatchString(h.Context) {
					hint = "\"@@\" takes a line of the file, not line numbers; write \"@@\" alone or \"@@ <line of the file>\""
				}
				return fail(ErrContextNotFound, "no line %s reads %q; %s", after(start), h.Context, hint)
			}
			start = at + 1
		}
		old := h.Old()
		last := f.EndOfFile && i == len(f.Hunks)-1
		if len(old) == 0 {
			at := len(lines)
			if h.Context != "" && !last {
				at = start
			}
			reps = append(reps, replacement{at: at, add: keepContext(h, nil, eol)})
			cursor = at
			continue
		}
		var at int
		switch {
		case last:
			at = len(lines) - len(old)
			if at < start || !matchAt(lines, at, old, exact) && !matchAt(lines, at, old, trimRight) {
				return fail(ErrContextNotFound, "the hunk ends with %q, but these lines are not the last lines of the file:\n%s\nremove that marker or fix the lines", endOfFile, quote(old))
			}
		default:
			found := findAll(lines, start, old)
			switch {
			case len(found) == 0:
				return fail(ErrContextNotFound, "these lines (the hunk's context and - lines) are not in the file %s:\n%s\nre-read the file and copy them exactly", after(start), quote(old))
			case len(found) > 1 && h.Context == "":
				return fail(ErrAmbiguousContext, "the hunk's context and - lines match the file at lines %s; add an \"@@ <line>\" header naming the enclosing function or class, or more context lines", listLines(found))
			}
			at = found[0]
		}
		reps = append(reps, replacement{at: at, del: len(old), add: keepContext(h, lines[at:at+len(old)], eol)})
		cursor = at + len(old)
	}
	return splice(lines, reps), nil
}

// lineEnding is "\r" when every line of a file ends with it (the file
// uses CRLF line ends), else "".
func lineEnding(lines []string) string {
	for _, l := range lines {
		if !strings.HasSuffix(l, "\r") {
			return ""
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "\r"
}

// keepContext is the hunk's new lines, with each context line taken from
// the file (matched may differ from the patch in trailing white space) and
// added lines given the file's line end eol.
func keepContext(h Hunk, matched []string, eol string) []string {
	out := make([]string, 0, len(h.Lines))
	j := 0
	for _, l := range h.Lines {
		switch l.Op {
		case ' ':
			out = append(out, matched[j])
			j++
		case '-':
			j++
		default:
			if !strings.HasSuffix(l.Text, eol) {
				l.Text += eol
			}
			out = append(out, l.Text)
		}
	}
	return out
}

// splice applies replacements in ascending, non-overlapping order.
func splice(lines []string, reps []replacement) []string {
	out := make([]string, 0, len(lines))
	pos := 0
	for _, r := range reps {
		out = append(out, lines[pos:r.at]...)
		out = append(out, r.add...)
		pos = r.at + r.del
	}
	return append(out, lines[pos:]...)
}

func exact(a, b string) bool { return a == b }
func trimRight(a, b string) bool {
	return strings.TrimRight(a, " \t\r") == strings.TrimRight(b, " \t\r")
}
func trimBoth(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// seekLine is the first line at or after from that is text: exactly, else
// ignoring surrounding white space. -1 if none.
func seekLine(lines []string, from int, text string) int {
	for _, eq := range []func(a, b string) bool{exact, trimBoth} {
		for i := from; i < len(lines); i++ {
			if eq(lines[i], text) {
				return i
			}
		}
	}
	return -1
}

// findAll lists where old appears at or after from: exact matches, else
// matches ignoring trailing white space.
func findAll(lines []string, from int, old []string) []int {
	for _, eq := range []func(a, b string) bool{exact, trimRight} {
		var found []int
		for i := from; i+len(old) <= len(lines); i++ {
			if matchAt(lines, i, old, eq) {
				found = append(found, i)
			}
		}
		if len(found) > 0 {
			return found
		}
	}
	return nil
}

func matchAt(lines []string, at int, old []string, eq func(a, b string) bool) bool {
	if at < 0 || at+len(old) > len(lines) {
		return false
	}
	for j, o := range old {
		if !eq(lines[at+j], o) {
			return false
		}
	}
	return true
}

func after(line int) string {
	if line == 0 {
		return "from the start of the file"
	}
	return fmt.Sprintf("after line %d", line)
}

func quote(lines []string) string {
	const max = 8
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(&b, "  ... (%d more)\n", len(lines)-max)
			break
		}
		fmt.Fprintf(&b, "  %q\n", l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func listLines(found []int) string {
	var parts []string
	for i, f := range found {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(found)-maxListed))
			break
		}
		parts = append(parts, fmt.Sprint(f+1))
	}
	return strings.Join(parts, ", ")
}
