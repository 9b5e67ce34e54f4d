package applypatch

import (
	"fmt"
	"strings"
)

// Action is what a file operation of a patch does.
type Action uint8

const (
	// Add creates a file ("*** Add File: ").
	Add Action = iota + 1
	// Delete removes a file ("*** Delete File: ").
	Delete
	// Update edits a file, and may move it ("*** Update File: ").
	Update
)

// String is the action's header without the colon: "Add File",
// "Delete File" or "Update File".
func (a Action) String() string {
	switch a {
	case Add:
		return "Add File"
	case Delete:
		return "Delete File"
	case Update:
		return "Update File"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Patch is a parsed patch: its file operations, in order.
type Patch struct {
	Files []FileOp
}

// FileOp is one file operation (the grammar's hunk: add, delete or update).
type FileOp struct {
	// Action says what the operation does.
	Action Action
	// Path is the file, as written in the patch.
	Path string
	// Line is the operation's header line in the patch (1-based).
	Line int
	// Content is an Add's lines, without the "+" prefix.
	Content []string
	// MoveTo is an Update's "*** Move to:" path; "" when it has none.
	MoveTo string
	// Hunks are an Update's changes, in order.
	Hunks []Hunk
	// EndOfFile is true when an Update ends with "*** End of File": its
	// last hunk must match the end of the file.
	EndOfFile bool
}

// Hunk is one change of an Update: an optional "@@" line and the lines
// after it.
type Hunk struct {
	// Marked is true when the hunk starts with an "@@" line. Only the
	// first hunk of an Update may lack one.
	Marked bool
	// Context is the text after "@@ " ("" for a bare "@@"): the line to
	// jump to before looking for the hunk's old lines.
	Context string
	// Lines are the hunk's " ", "-" and "+" lines.
	Lines []Line
	// Line is the hunk's first line in the patch (1-based).
	Line int
}

// Line is one line of a hunk.
type Line struct {
	// Op is ' ' (context), '-' (removed) or '+' (added).
	Op byte
	// Text is the line without its prefix.
	Text string
}

// Old is the hunk's old lines: its context and removed lines, in order.
func (h Hunk) Old() []string { return h.side('+') }

// New is the hunk's new lines: its context and added lines, in order.
func (h Hunk) New() []string { return h.side('-') }

func (h Hunk) side(skip byte) []string {
	out := make([]string, 0, len(h.Lines))
	for _, l := range h.Lines {
		if l.Op != skip {
			out = append(out, l.Text)
		}
	}
	return out
}

// String formats p in the patch language. Parse(p.String()) gives p back
// for every patch Parse returned.
func (p *Patch) String() string {
	var b strings.Builder
	b.WriteString(beginPatch + "\n")
	for _, f := range p.Files {
		switch f.Action {
		case Add:
			b.WriteString(addFile + f.Path + "\n")
			for _, l := range f.Content {
				b.WriteString("+" + l + "\n")
			}
		case Delete:
			b.WriteString(deleteFile + f.Path + "\n")
		case Update:
			b.WriteString(updateFile + f.Path + "\n")
			if f.MoveTo != "" {
				b.WriteString(moveTo + f.MoveTo + "\n")
			}
			for _, h := range f.Hunks {
				switch {
				case h.Marked && h.Context != "":
					b.WriteString(contextSpace + h.Context + "\n")
				case h.Marked:
					b.WriteString(contextMark + "\n")
				}
				for _, l := range h.Lines {
					b.WriteString(string(l.Op) + l.Text + "\n")
				}
			}
			if f.EndOfFile {
				b.WriteString(endOfFile + "\n")
			}
		}
	}
	b.WriteString(endPatch + "\n")
	return b.String()
}

// SyntaxError is a patch that does not follow Grammar.
type SyntaxError struct {
	// Line is the offending line of the patch (1-based).
	Line int
	// Text is that line (shortened when long).
	Text string
	// Msg says what was expected there and how to fix it.
	Msg string
}

// Error says where the patch is wrong and what to write instead.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("applypatch: invalid patch at line %d (%q): %s", e.Line, e.Text, e.Msg)
}

// parser reads a patch line by line. lines[i] is line i+1; every line but
// the last was followed by "\n".
type parser struct {
	lines []string
	i     int
}

// Parse parses a patch. It accepts exactly the sentences of Grammar: no
// text before "*** Begin Patch" or after "*** End Patch" (but one final
// newline), no blank lines, "\n" line ends. It returns a *SyntaxError
// naming the first line that breaks the grammar.
func Parse(patch string) (*Patch, error) {
	p := &parser{lines: strings.Split(patch, "\n")}
	if p.line() != beginPatch || !p.hasLF() {
		return nil, p.fail("a patch starts with the line %q", beginPatch)
	}
	p.i++
	var out Patch
	for {
		l := p.line()
		if l == endPatch && len(out.Files) > 0 {
			if p.i == len(p.lines)-1 || (p.i == len(p.lines)-2 && p.lines[p.i+1] == "") {
				return &out, nil
			}
			p.i++
			return nil, p.fail("nothing may follow %q; end the patch there", endPatch)
		}
		f, err := p.fileOp()
		if err != nil {
			return nil, err
		}
		out.Files = append(out.Files, f)
	}
}

func (p *parser) line() string {
	if p.i < len(p.lines) {
		return p.lines[p.i]
	}
	return ""
}

// hasLF reports whether the current line was followed by "\n".
func (p *parser) hasLF() bool { return p.i < len(p.lines)-1 }

// atEOF reports whether the whole input has been read.
func (p *parser) atEOF() bool {
	return p.i >= len(p.lines) || (p.i == len(p.lines)-1 && p.lines[p.i] == "")
}

func (p *parser) fail(format string, args ...any) *SyntaxError {
	text := p.line()
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	line := p.i + 1
	if p.atEOF() {
		text = "<end of input>"
	}
	return &SyntaxError{Line: line, Text: text, Msg: fmt.Sprintf(format, args...)}
}

// header reads the filename after prefix on the current line, which must
// end with "\n".
func (p *parser) header(prefix string) (string, error) {
	name := strings.TrimPrefix(p.line(), prefix)
	if name == "" {
		return "", p.fail("%q must be followed by a file path", strings.TrimSpace(prefix))
	}
	if !p.hasLF() {
		return "", p.fail("the patch ends too early; finish it with %q", endPatch)
	}
	p.i++
	return name, nil
}

func (p *parser) fileOp() (FileOp, error) {
	l := p.line()
	f := FileOp{Line: p.i + 1}
	var err error
	switch {
	case strings.HasPrefix(l, addFile):
		f.Action = Add
		if f.Path, err = p.header(addFile); err != nil {
			return f, err
		}
		for strings.HasPrefix(p.line(), "+") && p.hasLF() {
			f.Content = append(f.Content, p.line()[1:])
			p.i++
		}
		if len(f.Content) == 0 {
			return f, p.fail("%s needs at least one line prefixed with \"+\" (the new file's content)", addFile+f.Path)
		}
	case strings.HasPrefix(l, deleteFile):
		f.Action = Delete
		f.Path, err = p.header(deleteFile)
	case strings.HasPrefix(l, updateFile):
		f.Action = Update
		if f.Path, err = p.header(updateFile); err != nil {
			return f, err
		}
		err = p.update(&f)
	case p.atEOF() || !p.hasLF():
		return f, p.fail("the patch ends without %q; add it as the last line", endPatch)
	case l == endPatch:
		return f, p.fail("a patch needs at least one %q, %q or %q section", addFile+"<path>", deleteFile+"<path>", updateFile+"<path>")
	default:
		return f, p.fail("expected %q, %q, %q or %q", addFile+"<path>", deleteFile+"<path>", updateFile+"<path>", endPatch)
	}
	return f, err
}

// update reads an Update's optional move, hunks and end-of-file marker.
func (p *parser) update(f *FileOp) error {
	if strings.HasPrefix(p.line(), moveTo) {
		var err error
		if f.MoveTo, err = p.header(moveTo); err != nil {
			return err
		}
	}
	for p.hasLF() {
		l := p.line()
		switch {
		case l == contextMark || strings.HasPrefix(l, contextSpace):
			if l == contextSpace {
				return p.fail("\"@@ \" must be followed by a line of the file; write \"@@\" alone to start a hunk without one")
			}
			h := Hunk{Marked: true, Line: p.i + 1}
			if l != contextMark {
				h.Context = l[len(contextSpace):]
			}
			f.Hunks = append(f.Hunks, h)
		case strings.HasPrefix(l, contextMark):
			return p.fail("a hunk header is \"@@\" or \"@@ <line of the file>\" (with one space); no line numbers")
		case l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+'):
			if len(f.Hunks) == 0 {
				f.Hunks = append(f.Hunks, Hunk{Line: p.i + 1})
			}
			h := &f.Hunks[len(f.Hunks)-1]
			h.Lines = append(h.Lines, Line{Op: l[0], Text: l[1:]})
		case l == endOfFile && len(f.Hunks) > 0:
			f.EndOfFile = true
			p.i++
			return nil
		case l == "":
			return p.fail("blank line in an update; a blank context line is written as a single space, an added one as \"+\"")
		default:
			return nil
		}
		p.i++
	}
	return nil
}
