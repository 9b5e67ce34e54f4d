package protocol

import "encoding/binary"

// ValidJSON reports whether b is one JSON value (RFC 8259) with optional
// whitespace around it: exactly what encoding/json.Valid reports (like it,
// it does not check UTF-8 and refuses nesting deeper than 10,000), at a
// fraction of the cost — tool inputs and results are checked on every
// call, and encoding/json's scanner spends a function call per byte.
func ValidJSON(b []byte) bool {
	var buf [64]byte
	stack := buf[:0] // open containers: '{' or '['
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		ok := true
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxJSONDepth {
				return false
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closer {
				i++
				break // an empty container is a complete value
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = scanKey(b, i); !ok {
					return false
				}
			}
			continue // its first value
		case '"':
			i, ok = scanString(b, i)
		case 't':
			i, ok = scanLiteral(b, i, "true")
		case 'f':
			i, ok = scanLiteral(b, i, "false")
		case 'n':
			i, ok = scanLiteral(b, i, "null")
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return false
		}
		// A value ended at i: close containers until one wants more.
		for {
			i = skipSpace(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if top == '{' {
					if i, ok = scanKey(b, i); !ok {
						return false
					}
				}
				break // the next value
			}
			if (top == '{' && b[i] != '}') || (top == '[' && b[i] != ']') {
				return false
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// jsonSpecial marks the bytes a string scan must stop at: the quote, the
// backslash and the control characters.
var jsonSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanKey scans `"key" :` and the space after it.
func scanKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// scanString scans the string whose opening quote is at i.
func scanString(b []byte, i int) (int, bool) {
	i++
	for {
		i = skipPlain(b, i)
		for i < len(b) && !jsonSpecial[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 6
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
}

// Eight-byte words with every byte set to one value, for skipPlain.
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
	bslash = '\\' * ones
	spaces = 0x20 * ones
)

// skipPlain skips, eight bytes at a time, the words of b from i on that
// hold no special byte (see jsonSpecial), and returns where the first word
// that may hold one starts; the byte loop of scanString takes it from there.
// Long strings (file contents, pasted text) are most of a big tool result,
// and this reads them about eight times faster than the byte loop.
func skipPlain(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// A byte of x is zero or below n exactly when (x - n*ones) &^ x has
		// its high bit set (for n <= 0x80; bytes >= 0x80 never match).
		q, s := w^quotes, w^bslash
		if ((w-spaces)&^w|(q-ones)&^q|(s-ones)&^s)&highs != 0 {
			break
		}
	}
	return i
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// scanNumber scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
