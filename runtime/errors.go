package runtime

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("runtime: closed")

// RefusedError is Prepare's (and Start's) error for a request the runtime
// does not run. Code is the protocol error code a host answers such an
// exec with.
type RefusedError struct {
	Code    protocol.ErrorCode
	Message string
}

// Error returns "runtime: " and the message.
func (e *RefusedError) Error() string { return "runtime: " + e.Message }

// wrapPrefix opens the async function the user's source runs in. It shares
// the first line with the source, so line numbers need no mapping and only
// columns on line 1 shift by its length.
const (
	wrapPrefix = "(async () => {"
	wrapSuffix = "\n})()"
)

func wrap(source string) string {
	return wrapPrefix + source + wrapSuffix
}

// posMapper maps a line and column of the code V8 ran to the user's source.
type posMapper func(line, col int) (int, int)

// position maps a line and column in the wrapped script to the user's source.
func position(line, col int) (int, int) {
	if line == 1 && col > len(wrapPrefix) {
		col -= len(wrapPrefix)
	}
	return line, col
}

// frameRE finds "<origin>:<line>:<col>" in a stack frame or location.
func frameRE(origin string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(origin) + `:(\d+):(\d+)`)
}

// locate fills in e.Line and e.Column from the first stack frame in the
// user's script, rewrites positions in the stack to the user's source and
// drops the frame of the wrapper's own call (past the user's last line).
func locate(e *protocol.ErrorInfo, origin string, lastLine int, mapPos posMapper, extra ...string) {
	re := frameRE(origin)
	for _, s := range append([]string{e.Stack}, extra...) {
		if sub := re.FindStringSubmatch(s); sub != nil {
			l, _ := strconv.Atoi(sub[1])
			c, _ := strconv.Atoi(sub[2])
			e.Line, e.Column = mapPos(l, c)
			break
		}
	}
	e.Stack = re.ReplaceAllStringFunc(e.Stack, func(m string) string {
		sub := re.FindStringSubmatch(m)
		l, _ := strconv.Atoi(sub[1])
		c, _ := strconv.Atoi(sub[2])
		l, c = mapPos(l, c)
		return origin + ":" + strconv.Itoa(l) + ":" + strconv.Itoa(c)
	})
	e.Stack = dropFramesAfter(e.Stack, re, lastLine)
}

// addHints makes the errors a model hits most often say what to do.
// tools are the cell's bound tools.
func addHints(e *protocol.ErrorInfo, source string, tools []protocol.ToolDef) {
	switch {
	case e.Name == "TypeError" && strings.Contains(e.Message, " is not a function"):
		if m := notATool.FindStringSubmatch(e.Message); m != nil {
			e.Message += closestTools(m[1], tools)
		}
	case e.Name == "SyntaxError" && (strings.Contains(e.Message, "Cannot use import") || importAt(source, e.Line)):
		e.Message += " (import is not supported in Code Mode: there are no modules; call tools as tools.<name>(args))"
	case e.Name == "ReferenceError" && strings.HasPrefix(e.Message, "require is not defined"):
		e.Message += " (require is not supported in Code Mode: there are no modules; call tools as tools.<name>(args))"
	case e.Name == "ReferenceError" && (strings.HasPrefix(e.Message, "process is not defined") ||
		strings.HasPrefix(e.Message, "fetch is not defined")):
		e.Message += " (Code Mode has no process, file system or network; use the tools bound as tools.<name>)"
	}
}

// notATool finds V8's message for a call of a tool that is not bound:
// "tools.serach_files is not a function".
var notATool = regexp.MustCompile(`(?:^|\s)tools\.([^\s()\[\].]{1,200}) is not a function`)

// maxClosest is how many bound tools a "not a function" hint names.
const maxClosest = 3

// closestTools is the hint for a call of tools.<name> that is not bound:
// the bound identifiers closest to name, nearest first.
func closestTools(name string, tools []protocol.ToolDef) string {
	if len(tools) == 0 {
		return "; no tools are bound in this cell"
	}
	want := strings.ToLower(protocol.JSIdent("", name))
	type cand struct {
		ident string
		dist  int
	}
	cands := make([]cand, 0, len(tools))
	for _, d := range tools {
		id := protocol.JSIdent(d.Namespace, d.Name)
		if id == name {
			return "" // bound after all: the value is not what failed
		}
		dist := editDistance(want, strings.ToLower(id))
		if strings.Contains(strings.ToLower(id), want) {
			dist = min(dist, 2) // a short name for a namespaced tool
		}
		cands = append(cands, cand{id, dist})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.ident, b.ident)
	})
	if len(cands) > maxClosest {
		cands = cands[:maxClosest]
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = "tools." + c.ident
	}
	if len(names) == 1 {
		return "; the closest bound tool is " + names[0]
	}
	return "; the closest bound tools are " + strings.Join(names, ", ")
}

// maxEditLen bounds the strings editDistance compares in full: a longer
// one is as far as its length.
const maxEditLen = 256

// editDistance is the optimal-string-alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours, bytes).
func editDistance(a, b string) int {
	if len(a) > maxEditLen || len(b) > maxEditLen {
		return max(len(a), len(b))
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// splitName splits "SyntaxError: Unexpected token" into its name and message.
func splitName(msg string) (string, string) {
	name, rest, ok := strings.Cut(msg, ": ")
	if !ok || strings.ContainsAny(name, " \n") {
		return "Error", msg
	}
	return name, rest
}

// dropFramesAfter removes stack lines that point past lastLine of origin.
func dropFramesAfter(stack string, re *regexp.Regexp, lastLine int) string {
	if !strings.Contains(stack, "\n") {
		return stack
	}
	lines := strings.Split(stack, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if sub := re.FindStringSubmatch(l); sub != nil && strings.HasPrefix(strings.TrimSpace(l), "at ") {
			if n, _ := strconv.Atoi(sub[1]); n > lastLine {
				continue
			}
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// importStmt matches a static import or export-from statement.
var importStmt = regexp.MustCompile(`^\s*(import\s*[\w{*'"]|export\s.*\sfrom\s)`)

// importAt reports whether line (1-based) of source is an import statement.
func importAt(source string, line int) bool {
	if line < 1 {
		return false
	}
	lines := strings.SplitN(source, "\n", line+1)
	return len(lines) >= line && importStmt.MatchString(lines[line-1])
}
