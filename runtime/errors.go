package runtime

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("runtime: closed")

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
func addHints(e *protocol.ErrorInfo, source string) {
	switch {
	case e.Name == "SyntaxError" && (strings.Contains(e.Message, "Cannot use import") || importAt(source, e.Line)):
		e.Message += " (import is not supported in Code Mode: there are no modules; call tools as tools.<name>(args))"
	case e.Name == "ReferenceError" && strings.HasPrefix(e.Message, "require is not defined"):
		e.Message += " (require is not supported in Code Mode: there are no modules; call tools as tools.<name>(args))"
	case e.Name == "ReferenceError" && (strings.HasPrefix(e.Message, "process is not defined") ||
		strings.HasPrefix(e.Message, "fetch is not defined")):
		e.Message += " (Code Mode has no process, file system or network; use the tools bound as tools.<name>)"
	}
}

// splitName splits "SyntaxError: Unexpected token" into its name and message.
func splitName(msg string) (string, string) {
	name, rest, ok := strings.Cut(msg, ": ")
	if !ok || strings.ContainsAny(name, " \n") {
		return "Error", msg
	}
	return name, rest
}

// nulPosition returns the 1-based line and column of the first NUL byte.
func nulPosition(source string) (int, int, bool) {
	i := strings.IndexByte(source, 0)
	if i < 0 {
		return 0, 0, false
	}
	line := strings.Count(source[:i], "\n") + 1
	col := i - strings.LastIndexByte(source[:i], '\n')
	return line, col, true
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
