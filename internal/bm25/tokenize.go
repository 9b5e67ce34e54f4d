package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Tokenize turns text into the terms the index stores and queries with:
// lowercase words split on anything that is not a letter or digit and on
// camelCase boundaries ("createIssue", "HTTPServer", "list_repos" each give
// two words), English stop words dropped, each word stemmed with the
// Snowball English stemmer. Letters and digits stay together ("s3", "v2").
// Safe from any goroutine.
func Tokenize(text string) []string {
	var out []string
	eachTerm(text, nil, func(t string) { out = append(out, t) })
	return out
}

// stem is a cached word's term; stop marks a stop word (no term).
type stem struct {
	term string
	stop bool
}

// eachTerm calls f with each term of text, in order (see Tokenize). stems,
// if not nil, caches each word as written to its term: tool texts repeat
// words a lot, and a cached word costs neither lowercasing nor stemming.
func eachTerm(text string, stems map[string]stem, f func(string)) {
	eachWord(text, func(w string) {
		if stems != nil {
			if s, ok := stems[w]; ok {
				if !s.stop {
					f(s.term)
				}
				return
			}
		}
		lw := strings.ToLower(w)
		var s stem
		if english.IsStopWord(lw) {
			s.stop = true
		} else {
			s.term = english.Stem(lw, false)
		}
		if stems != nil {
			stems[w] = s
		}
		if !s.stop {
			f(s.term)
		}
	})
}

// splitWords splits text into words (see eachWord).
func splitWords(text string) []string {
	var words []string
	eachWord(text, func(w string) { words = append(words, w) })
	return words
}

// eachWord calls f with each word of text, a substring of it: words split
// at non-alphanumeric runes and at camelCase boundaries: lower→Upper
// ("createIssue") and the last capital of an acronym that starts a new
// word ("HTTPServer" → "HTTP", "Server"). Invalid UTF-8 separates words.
func eachWord(text string, f func(string)) {
	start := -1
	var prev rune
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if !isAlnum(r) {
			if start >= 0 {
				f(text[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		} else if isUpper(r) {
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			nextLower := i+size < len(text) && isLower(next)
			if isLower(prev) || isDigit(prev) || (isUpper(prev) && nextLower) {
				f(text[start:i])
				start = i
			}
		}
		prev = r
		i += size
	}
	if start >= 0 {
		f(text[start:])
	}
}

func isAlnum(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}
