package protocol

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"
)

// Structural bounds enforced by Validate and Decode on every frame.
const (
	// MaxDepth is the deepest nesting of arrays and maps; the top-level map
	// is depth 1.
	MaxDepth = 64
	// MaxItems is the most msgpack values (map keys and values, array
	// elements, scalars) one frame may hold. JSON values travel as opaque
	// bin, so real messages stay far below it; it bounds how much memory a
	// small hostile frame can make the decoder allocate.
	MaxItems = 1 << 18
)

// Validate checks that frame (one frame body, without the length prefix)
// is exactly one msgpack map with string keys and that every declared
// length and count is backed by bytes actually present, within MaxDepth and
// MaxItems, with no ext types, no never-used code 0xc1, valid UTF-8 in
// every str and no trailing bytes. It does not allocate.
//
// After Validate succeeds, no msgpack decoder can be made to allocate more
// than a small multiple of len(frame). Decode calls it; call it yourself
// only to check bytes you don't decode with this package.
func Validate(frame []byte) error {
	var env envelope
	return scanFrame(frame, &env)
}

// envelope is what scanFrame learns about a frame's "t" and "id", even
// when the frame is invalid past them.
type envelope struct {
	tag   []byte // raw bytes of the "t" string, aliasing the frame
	id    uint64
	hasID bool // "id" is a non-negative integer
	anyID bool // "id" is present, whatever its type

	// entries are the frame's first top-level entries, for the hand
	// decoders (fastpath.go); entriesAll says whether that is all of them.
	entries    [maxEntries]entry
	nEntries   int
	entriesAll bool
}

// entry is one top-level key and its encoded value, aliasing the frame.
type entry struct{ key, val []byte }

// maxEntries is how many top-level entries scanFrame keeps: the most a
// tool.call has.
const maxEntries = 9

type scanner struct {
	b     []byte
	pos   int
	items int
	fault scanFault // why the scan failed, for the encoder (encode.go)
}

// scanFault is the rule a failed scan broke, when it is one an encoder can
// break with a well-typed message: too many values, too deep, or a str that
// is not UTF-8. Any other fault means the bytes are not msgpack at all.
type scanFault uint8

const (
	faultOther scanFault = iota
	faultItems
	faultDepth
	faultUTF8
)

// scanFrame validates frame and fills env (zero on entry). On error env
// holds whatever "t" and "id" were read before the fault.
func scanFrame(frame []byte, env *envelope) error {
	s := scanner{b: frame}
	return s.frame(env)
}

// frame is scanFrame on s.b, leaving s.fault set when it fails.
func (s *scanner) frame(env *envelope) error {
	frame := s.b
	if len(frame) == 0 {
		return s.fail("empty frame")
	}
	n, err := s.mapHeader()
	if err != nil {
		return err
	}
	if err := s.count(n, 2, 2); err != nil {
		return err
	}
	for range n {
		key, err := s.key()
		if err != nil {
			return err
		}
		start := s.pos
		if err := s.value(2); err != nil {
			return err
		}
		val := frame[start:s.pos]
		switch string(key) {
		case "t":
			if tag, ok := strBytes(val); ok {
				env.tag = tag
			}
		case "id":
			env.anyID = true
			env.id, env.hasID = uintValue(val)
		}
		if env.nEntries < maxEntries {
			env.entries[env.nEntries] = entry{key, val}
			env.nEntries++
		}
	}
	if s.pos != len(frame) {
		return s.fail("%d trailing bytes after the map", len(frame)-s.pos)
	}
	env.entriesAll = n <= maxEntries
	return nil
}

func (s *scanner) fail(format string, args ...any) *ProtocolError {
	e := errorf(ErrCodeBadFrame, format, args...)
	e.Message = "at byte " + strconv.Itoa(s.pos) + ": " + e.Message
	return e
}

func (s *scanner) left() int { return len(s.b) - s.pos }

// need reports an error unless n more bytes are present.
func (s *scanner) need(n int, what string) error {
	if n < 0 || n > s.left() {
		return s.fail("%s needs %d bytes; %d left", what, n, s.left())
	}
	return nil
}

// uintN reads a big-endian unsigned integer of size bytes.
func (s *scanner) uintN(size int, what string) (int, error) {
	if err := s.need(size, what); err != nil {
		return 0, err
	}
	var n uint64
	switch size {
	case 1:
		n = uint64(s.b[s.pos])
	case 2:
		n = uint64(binary.BigEndian.Uint16(s.b[s.pos:]))
	case 4:
		n = uint64(binary.BigEndian.Uint32(s.b[s.pos:]))
	}
	s.pos += size
	return int(n), nil
}

func (s *scanner) mapHeader() (int, error) {
	c := s.b[s.pos]
	s.pos++
	switch {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f), nil
	case c == 0xde:
		return s.uintN(2, "map16 length")
	case c == 0xdf:
		return s.uintN(4, "map32 length")
	}
	s.pos--
	return 0, s.fail("frame is not a msgpack map (first byte 0x%02x)", c)
}

// count checks a container of n entries, each at least per bytes and
// holding per values, against the bytes left and the item budget.
func (s *scanner) count(n, per, values int) error {
	if n > s.left()/per {
		return s.fail("declared %d entries but only %d bytes left", n, s.left())
	}
	s.items += n * values
	if s.items > MaxItems {
		s.fault = faultItems
		return s.fail("more than %d values in one frame", MaxItems)
	}
	return nil
}

// key reads a map key, which must be a str, and returns its bytes.
func (s *scanner) key() ([]byte, error) {
	if s.left() == 0 {
		return nil, s.fail("truncated: map key missing")
	}
	c := s.b[s.pos]
	var n int
	var err error
	switch {
	case c >= 0xa0 && c <= 0xbf:
		s.pos++
		n = int(c & 0x1f)
	case c == 0xd9:
		s.pos++
		n, err = s.uintN(1, "str8 length")
	case c == 0xda:
		s.pos++
		n, err = s.uintN(2, "str16 length")
	case c == 0xdb:
		s.pos++
		n, err = s.uintN(4, "str32 length")
	default:
		return nil, s.fail("map key is not a string (code 0x%02x)", c)
	}
	if err != nil {
		return nil, err
	}
	return s.str(n)
}

func (s *scanner) str(n int) ([]byte, error) {
	if err := s.need(n, "str"); err != nil {
		return nil, err
	}
	b := s.b[s.pos : s.pos+n]
	if !utf8.Valid(b) {
		s.fault = faultUTF8
		return nil, s.fail("str is not valid UTF-8")
	}
	s.pos += n
	return b, nil
}

func (s *scanner) skip(n int, what string) error {
	if err := s.need(n, what); err != nil {
		return err
	}
	s.pos += n
	return nil
}

// value validates one value at the given depth (the top-level map's
// entries are at depth 2).
func (s *scanner) value(depth int) error {
	if s.left() == 0 {
		return s.fail("truncated: value missing")
	}
	c := s.b[s.pos]
	s.pos++
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		return nil // fixint, nil, false, true
	case c <= 0x8f:
		return s.mapBody(int(c&0x0f), depth)
	case c <= 0x9f:
		return s.arrayBody(int(c&0x0f), depth)
	case c <= 0xbf:
		_, err := s.str(int(c & 0x1f))
		return err
	}
	switch c {
	case 0xc4, 0xc5, 0xc6: // bin8, bin16, bin32
		n, err := s.uintN(1<<(c-0xc4), "bin length")
		if err != nil {
			return err
		}
		return s.skip(n, "bin")
	case 0xca:
		return s.skip(4, "float32")
	case 0xcb:
		return s.skip(8, "float64")
	case 0xcc, 0xcd, 0xce, 0xcf:
		return s.skip(1<<(c-0xcc), "uint")
	case 0xd0, 0xd1, 0xd2, 0xd3:
		return s.skip(1<<(c-0xd0), "int")
	case 0xd9, 0xda, 0xdb: // str8, str16, str32
		n, err := s.uintN(1<<(c-0xd9), "str length")
		if err != nil {
			return err
		}
		_, err = s.str(n)
		return err
	case 0xdc, 0xdd: // array16, array32
		n, err := s.uintN(2<<(c-0xdc), "array length")
		if err != nil {
			return err
		}
		return s.arrayBody(n, depth)
	case 0xde, 0xdf: // map16, map32
		n, err := s.uintN(2<<(c-0xde), "map length")
		if err != nil {
			return err
		}
		return s.mapBody(n, depth)
	case 0xc1:
		s.pos--
		return s.fail("code 0xc1 is never used in msgpack")
	}
	// 0xc7-0xc9 ext8/16/32 and 0xd4-0xd8 fixext.
	s.pos--
	return s.fail("ext types are not used in this protocol (code 0x%02x)", c)
}

func (s *scanner) arrayBody(n, depth int) error {
	if depth > MaxDepth {
		s.fault = faultDepth
		return s.fail("nesting deeper than %d", MaxDepth)
	}
	if err := s.count(n, 1, 1); err != nil {
		return err
	}
	for range n {
		if err := s.value(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

func (s *scanner) mapBody(n, depth int) error {
	if depth > MaxDepth {
		s.fault = faultDepth
		return s.fail("nesting deeper than %d", MaxDepth)
	}
	if err := s.count(n, 2, 2); err != nil {
		return err
	}
	for range n {
		if _, err := s.key(); err != nil {
			return err
		}
		if err := s.value(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

// strBytes returns the contents of one encoded str value.
func strBytes(v []byte) ([]byte, bool) {
	if len(v) > 0 && v[0] >= 0xa0 && v[0] <= 0xbf {
		return v[1:], true // fixstr
	}
	return sizedBytes(v, 0xd9) // str8, str16, str32
}

// binBytes returns the contents of one encoded bin value.
func binBytes(v []byte) ([]byte, bool) {
	return sizedBytes(v, 0xc4) // bin8, bin16, bin32
}

// sizedBytes returns the contents of one whole encoded value whose type
// byte is base, base+1 or base+2: a length of 1, 2 or 4 bytes follows it.
func sizedBytes(v []byte, base byte) ([]byte, bool) {
	if len(v) == 0 || v[0] < base || v[0] > base+2 {
		return nil, false
	}
	hdr := [3]int{2, 3, 5}[v[0]-base]
	if len(v) < hdr {
		return nil, false
	}
	return v[hdr:], true
}

// uintValue returns the value of one encoded non-negative integer.
func uintValue(v []byte) (uint64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	c, rest := v[0], v[1:]
	switch {
	case c <= 0x7f:
		return uint64(c), true
	case (c == 0xcc || c == 0xd0) && len(rest) == 1:
		return uint64(rest[0]), c == 0xcc || rest[0] < 0x80
	case (c == 0xcd || c == 0xd1) && len(rest) == 2:
		n := binary.BigEndian.Uint16(rest)
		return uint64(n), c == 0xcd || n < 1<<15
	case (c == 0xce || c == 0xd2) && len(rest) == 4:
		n := binary.BigEndian.Uint32(rest)
		return uint64(n), c == 0xce || n < 1<<31
	case (c == 0xcf || c == 0xd3) && len(rest) == 8:
		n := binary.BigEndian.Uint64(rest)
		return n, c == 0xcf || n < 1<<63
	}
	return 0, false
}
