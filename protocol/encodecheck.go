package protocol

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/codemode-host/codemode-host/internal/wellformed"
)

// The encoder never writes a frame its own decoder refuses. Before
// encoding, a message passes the checks Decode makes (check with strict
// on, so JSON values are JSON); after encoding, finishBody scans the body
// with Validate's scanner, the decoder's own structural rules:
//
//   - a str that is not valid UTF-8 (text a script made: V8 hands out a
//     lone surrogate as ED A0..BF xx) is rewritten to be well-formed, each
//     bad sequence becoming U+FFFD (internal/wellformed.String), and the
//     rewritten body is then decoded to be sure the peer takes it. This is
//     the slow path, taken only when the fast scan fails;
//   - more values than MaxItems, or a body over HardMaxFrame, cannot be
//     fixed while encoding: the message is refused with code too_large, so
//     the caller can send a smaller one (fewer items or store entries).
//
// The hand encoders of fastpath.go write a fixed number of values, so they
// skip the scan and only check their few strings.

// finishBody checks the body the encoder wrote at dst[start:] for m and
// returns dst, with the body rewritten when a str in it was not UTF-8, or
// dst[:start] and a *ProtocolError when the body must not be sent.
func finishBody(dst []byte, start int, m Message) ([]byte, error) {
	body := dst[start:]
	if err := checkBodySize(len(body), m); err != nil {
		return dst[:start], err
	}
	var env envelope
	s := scanner{b: body}
	err := s.frame(&env)
	if err == nil {
		return dst, nil
	}
	if s.fault != faultUTF8 {
		return dst[:start], encodeFault(&s, err, m)
	}
	fixed, ok := appendWellformed(make([]byte, 0, len(body)+len(body)/8+16), body)
	if !ok {
		return dst[:start], internalFault(m, "the encoded body is not one msgpack value")
	}
	if err := checkBodySize(len(fixed), m); err != nil {
		return dst[:start], err
	}
	env = envelope{}
	s = scanner{b: fixed}
	if err := s.frame(&env); err != nil {
		return dst[:start], encodeFault(&s, err, m)
	}
	// A rewritten str is longer (one byte became three), which can push a
	// field past a bound of its own (an id past MaxIDLen): decode it as the
	// peer will.
	if _, err := Decode(fixed); err != nil {
		return dst[:start], withEnvelope(err, m.Type(), idOf(m))
	}
	return append(dst[:start], fixed...), nil
}

// checkBodySize refuses a body no peer may accept, whatever cap it
// negotiated (Sender and FrameWriter check the negotiated one).
func checkBodySize(n int, m Message) error {
	if n > HardMaxFrame {
		return &ProtocolError{Code: ErrCodeTooLarge, Message: fmt.Sprintf("%s body of %d bytes exceeds the %d-byte frame limit; send less", m.Type(), n, HardMaxFrame), Type: m.Type(), ID: idOf(m)}
	}
	return nil
}

// encodeFault is the encoder's error for a body that broke a structural
// rule it cannot repair.
func encodeFault(s *scanner, err error, m Message) error {
	switch s.fault {
	case faultItems:
		return &ProtocolError{Code: ErrCodeTooLarge, Message: fmt.Sprintf("%s holds more than %d msgpack values, more than any peer decodes; send fewer items or store entries", m.Type(), MaxItems), Type: m.Type(), ID: idOf(m)}
	case faultDepth:
		return &ProtocolError{Code: ErrCodeTooLarge, Message: fmt.Sprintf("%s nests deeper than %d levels, more than any peer decodes", m.Type(), MaxDepth), Type: m.Type(), ID: idOf(m)}
	}
	return internalFault(m, err.Error())
}

func internalFault(m Message, why string) error {
	return &ProtocolError{Code: ErrCodeInternal, Message: "encoding " + m.Type() + " made a frame the decoder refuses (a bug): " + why, Type: m.Type(), ID: idOf(m)}
}

// appendWellformed appends to dst a copy of b, one msgpack value this
// package's encoder wrote, with every str that is not valid UTF-8 made
// well-formed (its header rewritten for the new length). ok is false when
// b is not exactly one msgpack value.
func appendWellformed(dst, b []byte) (out []byte, ok bool) {
	// Every value takes at least one byte, so the loop ends within len(b)
	// steps whatever counts the headers declare.
	for pending := 1; pending > 0; pending-- {
		h, ok := headerOf(b)
		if !ok || h.size+h.payload > len(b) {
			return dst, false
		}
		pending += h.children
		if !h.str {
			dst = append(dst, b[:h.size+h.payload]...)
			b = b[h.size+h.payload:]
			continue
		}
		s := b[h.size : h.size+h.payload]
		if utf8.Valid(s) {
			dst = append(dst, b[:h.size+h.payload]...)
		} else {
			dst = appendStr(dst, wellformed.String(string(s)))
		}
		b = b[h.size+h.payload:]
	}
	return dst, len(b) == 0
}

// header is what the first bytes of a msgpack value say: the header's
// size, the bytes that follow it (a str's or bin's contents, a number),
// how many values follow as its contents (array elements, map keys and
// values) and whether it is a str.
type header struct {
	size, payload, children int
	str                     bool
}

// headerOf reads the header of the value b starts with; ok is false for
// an ext type, code 0xc1 or a header cut short.
func headerOf(b []byte) (h header, ok bool) {
	if len(b) == 0 {
		return h, false
	}
	c := b[0]
	length := func(n int) (int, bool) {
		if len(b) < 1+n {
			return 0, false
		}
		switch n {
		case 1:
			return int(b[1]), true
		case 2:
			return int(binary.BigEndian.Uint16(b[1:])), true
		}
		return int(binary.BigEndian.Uint32(b[1:])), true
	}
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
		return header{size: 1}, true
	case c <= 0x8f:
		return header{size: 1, children: 2 * int(c&0x0f)}, true
	case c <= 0x9f:
		return header{size: 1, children: int(c & 0x0f)}, true
	case c <= 0xbf:
		return header{size: 1, payload: int(c & 0x1f), str: true}, true
	}
	switch c {
	case 0xc4, 0xc5, 0xc6: // bin8, bin16, bin32
		w := 1 << (c - 0xc4)
		n, ok := length(w)
		return header{size: 1 + w, payload: n}, ok
	case 0xd9, 0xda, 0xdb: // str8, str16, str32
		w := 1 << (c - 0xd9)
		n, ok := length(w)
		return header{size: 1 + w, payload: n, str: true}, ok
	case 0xca:
		return header{size: 1, payload: 4}, true
	case 0xcb:
		return header{size: 1, payload: 8}, true
	case 0xcc, 0xcd, 0xce, 0xcf:
		return header{size: 1, payload: 1 << (c - 0xcc)}, true
	case 0xd0, 0xd1, 0xd2, 0xd3:
		return header{size: 1, payload: 1 << (c - 0xd0)}, true
	case 0xdc, 0xdd: // array16, array32
		w := 2 << (c - 0xdc)
		n, ok := length(w)
		return header{size: 1 + w, children: n}, ok
	case 0xde, 0xdf: // map16, map32
		w := 2 << (c - 0xde)
		n, ok := length(w)
		return header{size: 1 + w, children: 2 * n}, ok
	}
	return h, false
}
