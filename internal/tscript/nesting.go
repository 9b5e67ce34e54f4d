package tscript

import "fmt"

// MaxNesting is how deeply Strip lets TypeScript nest before it refuses it:
// brackets, plus the chains of operators, member accesses, calls and
// statements that esbuild's parser and printer handle by recursion
// (`!!!…x`, `a=a=…`, `x=>x=>…`, `a.a.a…`, `if(a)if(a)…`). esbuild runs on
// the host's goroutine, and a Go stack overflow kills the process; at a
// few KiB of stack a level, 1,000 levels are far from the limit and far
// beyond any script a person or model writes.
const MaxNesting = 1000

// nestingError is the error of a source nested deeper than MaxNesting.
func nestingError(line, col int) *Error {
	return &Error{Line: line, Column: col, Message: fmt.Sprintf(
		"the code is nested more than %d levels deep here (brackets, or a chain of operators, calls or statements); "+
			"the TypeScript parser accepts at most %d: split it into smaller expressions or functions", MaxNesting, MaxNesting)}
}

// level is an open bracket: the chain count of the level it opened in.
type level struct {
	run, base int
	template  bool // "${" of a template literal: its "}" resumes the template
}

// nestScan measures nesting in one linear pass. It skips the contents of
// strings, template literals, regular expressions and comments, which
// cannot nest; it errs towards counting too much, never too little.
type nestScan struct {
	src     string
	i       int
	line    int
	lineAt  int // offset of the current line's first byte
	stack   []level
	run     int  // recursion-prone tokens since the last ";" or "," of this level
	base    int  // the runs of the enclosing levels
	operand bool // the last token ends an operand (so "/" divides, "(" calls)
	newline bool // a line break since the last token
}

// checkNesting returns a nesting error at the first place source nests
// deeper than MaxNesting, or nil.
func checkNesting(source string) *Error {
	s := &nestScan{src: source, line: 1}
	return s.scan()
}

func (s *nestScan) pos() (int, int) { return s.line, s.i - s.lineAt + 1 }

// bump counts one more level at the current position.
func (s *nestScan) bump() *Error {
	s.run++
	if len(s.stack)+s.base+s.run > MaxNesting {
		return nestingError(s.pos())
	}
	return nil
}

func (s *nestScan) scan() *Error {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.lineBreak(s.i + 1)
			s.i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			s.i++
			continue
		case c == '/' && s.peek(1) == '/':
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
			continue
		case c == '/' && s.peek(1) == '*':
			s.skipBlockComment()
			continue
		}
		if err := s.token(c); err != nil {
			return err
		}
	}
	return nil
}

// token reads one token starting with c.
func (s *nestScan) token(c byte) *Error {
	newline := s.newline
	s.newline = false
	switch {
	case c == '\'' || c == '"':
		s.resetAfterBreak(newline)
		s.skipString(c)
		s.operand = true
	case c == '`':
		s.i++
		return s.template()
	case c == '/' && !s.operand:
		s.skipRegExp()
		s.operand = true
	case isIdentStart(c):
		start := s.i
		for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
			s.i++
		}
		return s.word(s.src[start:s.i], newline, start)
	case c >= '0' && c <= '9' || c == '.' && isDigit(s.peek(1)):
		s.resetAfterBreak(newline)
		for s.i < len(s.src) && (isIdentPart(s.src[s.i]) || s.src[s.i] == '.') {
			s.i++
		}
		s.operand = true
	case c == '(' || c == '[' || c == '{':
		if s.operand && c != '{' {
			if err := s.bump(); err != nil { // a call or an index
				return err
			}
		}
		s.i++
		return s.open(false)
	case c == ')' || c == ']' || c == '}':
		s.i++
		if s.close() {
			return s.template()
		}
		s.operand = true
	case c == ';' || c == ',':
		s.i++
		s.run = 0
		s.operand = false
	default:
		return s.punctuator()
	}
	return nil
}

// word handles an identifier or keyword that started at start.
func (s *nestScan) word(w string, newline bool, start int) *Error {
	switch w {
	case "in", "of", "instanceof", "as", "satisfies", "extends", "keyof", "infer", "is":
		s.operand = false // a binary operator: it continues the expression
		return nil
	}
	s.resetAfterBreak(newline)
	switch w {
	case "typeof", "void", "delete", "await", "new", "yield", "if", "while", "for", "with", "do":
		s.operand = false
		at := s.i
		s.i = start
		err := s.bump()
		s.i = at
		return err
	case "return", "throw", "case", "else", "default", "export", "import":
		s.operand = false
	default:
		s.operand = true
	}
	return nil
}

// resetAfterBreak ends the current chain when a line break came between
// an operand and a token that starts a new one: automatic semicolon
// insertion ended the statement there.
func (s *nestScan) resetAfterBreak(newline bool) {
	if newline && s.operand {
		s.run = 0
	}
}

// punctuator reads an operator.
func (s *nestScan) punctuator() *Error {
	n := punctLen(s.src[s.i:])
	op := s.src[s.i : s.i+n]
	counts := false
	switch {
	case op == "=>" || op == "?" || op == ":" || op == "**" || op == "!" || op == "~" || op == "?." || op == ".":
		counts = true // right-associative, prefix, or a link of a member chain
	case op == "++" || op == "--" || op == "+" || op == "-":
		counts = !s.operand
	case n >= 2 && op[n-1] == '=' && op != "==" && op != "===" && op != "!=" && op != "!==" && op != "<=" && op != ">=":
		counts = true // a compound assignment
	case op == "=":
		counts = true
	}
	if counts {
		if err := s.bump(); err != nil {
			return err
		}
	}
	s.i += n
	// a++, and TypeScript's non-null a!, still end an operand.
	s.operand = (op == "++" || op == "--" || op == "!") && s.operand
	return nil
}

// punctLen is the length of the operator at the start of src.
func punctLen(src string) int {
	for _, op := range [...]string{">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
		"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
		"**", "<<", ">>"} {
		if len(src) >= len(op) && src[:len(op)] == op {
			if op == "?." && len(src) > 2 && isDigit(src[2]) {
				continue // a?.5:1 is a conditional
			}
			return len(op)
		}
	}
	return 1
}

// open enters a bracket level.
func (s *nestScan) open(template bool) *Error {
	s.stack = append(s.stack, level{run: s.run, base: s.base, template: template})
	s.base += s.run
	s.run = 0
	s.operand = false
	if len(s.stack)+s.base > MaxNesting {
		s.i-- // at the bracket
		return nestingError(s.pos())
	}
	return nil
}

// close leaves a bracket level and reports whether it was a template's
// "${", whose template text follows.
func (s *nestScan) close() bool {
	if len(s.stack) == 0 {
		return false
	}
	top := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.run, s.base = top.run, top.base
	return top.template
}

// template skips template text up to its end (the literal is an operand)
// or to a "${", whose expression it opens as a level.
func (s *nestScan) template() *Error {
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == '\\':
			s.i++
			if s.i < len(s.src) && s.src[s.i] == '\n' {
				s.lineBreak(s.i + 1)
			}
		case c == '\n':
			s.lineBreak(s.i + 1)
		case c == '`':
			s.i++
			s.operand = true
			return nil
		case c == '$' && s.peek(1) == '{':
			s.i += 2
			return s.open(true)
		}
		s.i++
	}
	return nil
}

// skipString skips a quoted string; an unescaped line break ends it (it
// is a syntax error that esbuild reports).
func (s *nestScan) skipString(quote byte) {
	s.i++
	for s.i < len(s.src) {
		switch c := s.src[s.i]; c {
		case '\\':
			s.i++
			if s.i < len(s.src) && s.src[s.i] == '\n' {
				s.lineBreak(s.i + 1)
			}
		case quote:
			s.i++
			return
		case '\n':
			return
		}
		s.i++
	}
}

// skipRegExp skips a regular expression literal and its flags; a line
// break ends it.
func (s *nestScan) skipRegExp() {
	s.i++
	class := false
	for s.i < len(s.src) {
		switch c := s.src[s.i]; {
		case c == '\\':
			s.i++
		case c == '\n':
			return
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			s.i++
			for s.i < len(s.src) && isIdentPart(s.src[s.i]) {
				s.i++
			}
			return
		}
		s.i++
	}
}

func (s *nestScan) skipBlockComment() {
	s.i += 2
	for s.i < len(s.src) {
		if s.src[s.i] == '*' && s.peek(1) == '/' {
			s.i += 2
			return
		}
		if s.src[s.i] == '\n' {
			s.lineBreak(s.i + 1)
		}
		s.i++
	}
}

func (s *nestScan) lineBreak(next int) {
	s.line++
	s.lineAt = next
	s.newline = true
}

func (s *nestScan) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '\\' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }
