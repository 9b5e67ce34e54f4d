package tsdecl

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// docLineWidth is the longest doc comment kept on one line.
const docLineWidth = 100

// sameWords reports whether a title only restates a property name
// ("User Id" for user_id), ignoring case and punctuation.
func sameWords(title, name string) bool {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	return norm(title) == norm(name)
}

// docComment renders the doc comment of a property schema: its description
// (or title), then tags for the keywords a caller needs that TypeScript
// cannot express (default, format, ranges, pattern, deprecated, an
// example). A $ref without its own description borrows its target's.
func (r *renderer) docComment(name string, schema *node) string {
	if schema == nil || schema.kind != kindObject {
		return ""
	}
	text := schema.str("description")
	if text == "" && !sameWords(schema.str("title"), name) {
		text = schema.str("title")
	}
	if text == "" && schema.str("$ref") != "" {
		if t := r.resolve(schema.str("$ref")); t != nil && t.kind == kindObject {
			text = t.str("description")
		}
	}
	return r.docText(text, schema)
}

// docText renders text and schema's tags as a /** */ comment, or "".
func (r *renderer) docText(text string, schema *node) string {
	lines := descriptionLines(capRunes(text, r.opts.MaxDescription))
	tags := schemaTags(schema)
	if len(lines) == 0 && len(tags) == 0 {
		return ""
	}
	if len(lines) <= 1 {
		one := strings.TrimSpace(strings.Join(append(lines, tags...), " "))
		if len(one)+7 <= docLineWidth {
			return "/** " + one + " */"
		}
	}
	var b strings.Builder
	b.WriteString("/**\n")
	for _, l := range append(lines, tags...) {
		if l == "" {
			b.WriteString(" *\n")
			continue
		}
		b.WriteString(" * ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(" */")
	return b.String()
}

// schemaTags lists JSDoc-style tags for schema keywords worth telling a
// caller about.
func schemaTags(s *node) []string {
	if s == nil || s.kind != kindObject {
		return nil
	}
	var tags []string
	add := func(tag string, v *node) {
		if v == nil {
			return
		}
		lit := v.literalString()
		if v.kind == kindString && (tag == "@format" || tag == "@pattern") {
			lit = v.text
		}
		if len(lit) > 80 {
			return
		}
		tags = append(tags, tag+" "+commentText(lit))
	}
	if s.isTrue("deprecated") {
		tags = append(tags, "@deprecated")
	}
	add("@format", s.get("format"))
	add("@pattern", s.get("pattern"))
	for _, k := range [...]string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"} {
		if v := s.get(k); v != nil && v.kind == kindNumber {
			add("@"+k, v)
		}
	}
	add("@default", s.get("default"))
	if ex := s.get("examples"); ex != nil && ex.kind == kindArray && len(ex.items) > 0 {
		add("@example", ex.items[0])
	} else if ex := s.get("example"); ex != nil {
		add("@example", ex)
	}
	return tags
}

// descriptionLines splits a description into comment lines: trailing space
// trimmed, blank runs collapsed, leading and trailing blanks dropped, and
// "*/" escaped.
func descriptionLines(text string) []string {
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if text == "" {
		return nil
	}
	var out []string
	blank := false
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			blank = true
			continue
		}
		if blank && len(out) > 0 {
			out = append(out, "")
		}
		blank = false
		out = append(out, commentText(l))
	}
	return out
}

// commentText makes s safe inside a block comment.
func commentText(s string) string {
	return strings.ReplaceAll(s, "*/", "*\\/")
}

// capRunes shortens s to at most n runes, cutting at a word boundary when
// one is near and marking the cut with an ellipsis. n <= 0 means no cap.
func capRunes(s string, n int) string {
	s = strings.TrimSpace(s)
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	head := s[:cut]
	if sp := strings.LastIndexAny(head, " \n\t"); sp > len(head)/2 {
		head = head[:sp]
	}
	return strings.TrimRight(head, " \n\t.,;:") + "…"
}
