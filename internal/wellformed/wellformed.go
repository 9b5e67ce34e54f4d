// Package wellformed makes text that leaves V8 valid UTF-8. V8 hands out a
// lone UTF-16 surrogate (which any script that slices text with emoji can
// make) as its three-byte generalised UTF-8 form (ED A0..BF xx), which no
// msgpack str may carry. Every string that crosses from a script into Go
// passes through String once, where it crosses. Safe from any goroutine.
package wellformed

import (
	"strings"
	"unicode/utf8"
)

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

// String returns s unchanged when it is valid UTF-8 (the common case costs
// one scan and no allocation); otherwise a copy in which each encoded lone
// surrogate becomes one U+FFFD, as String.prototype.toWellFormed does, and
// every other invalid byte becomes one U+FFFD.
func String(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
			b.WriteString(replacement) // a surrogate, paired or not: V8 pairs valid ones itself
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(replacement)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
