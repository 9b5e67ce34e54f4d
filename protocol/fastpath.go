package protocol

import (
	"encoding/binary"
	"encoding/json"
)

// The two messages of a tool call's round trip, tool.call and tool.result,
// are encoded and decoded by hand: they are the only frames whose rate
// grows with what a script does, and the reflective codec cost about a
// third of a round trip's codec time in each process. The bytes are the
// ones the reflective encoder writes (TestFastEncodeMatchesReflection and
// FuzzFastDecode hold the two paths together); anything the hand decoder
// does not expect (an unknown key, a value in a form the encoder never
// writes) falls back to the reflective decoder, which is the reference.

// appendFastBody appends the body of m when m has a hand encoder; ok is
// false otherwise. m has passed its check.
func appendFastBody(dst []byte, m Message) (out []byte, ok bool) {
	switch m := m.(type) {
	case *ToolCallRequest:
		return appendToolCall(dst, m), true
	case *ToolResult:
		return appendToolResult(dst, m), true
	}
	return dst, false
}

func appendToolCall(dst []byte, m *ToolCallRequest) []byte {
	n := 7 // t, id, cell, call, name, kind, input
	if m.SessionID != "" {
		n++
	}
	if m.Namespace != "" {
		n++
	}
	dst = appendMapHeader(dst, n)
	dst = appendStr(appendStr(dst, "t"), TypeToolCall)
	dst = appendUint(appendStr(dst, "id"), m.ID)
	if m.SessionID != "" {
		dst = appendStr(appendStr(dst, "session"), m.SessionID)
	}
	dst = appendStr(appendStr(dst, "cell"), m.CellID)
	dst = appendUint(appendStr(dst, "call"), m.CallID)
	if m.Namespace != "" {
		dst = appendStr(appendStr(dst, "namespace"), m.Namespace)
	}
	dst = appendStr(appendStr(dst, "name"), m.Name)
	dst = appendStr(appendStr(dst, "kind"), string(m.Kind))
	return appendBin(appendStr(dst, "input"), m.Input)
}

func appendToolResult(dst []byte, m *ToolResult) []byte {
	n := 2 // t, id
	if len(m.Value) != 0 {
		n++
	}
	if m.Error != nil {
		n++
	}
	dst = appendMapHeader(dst, n)
	dst = appendStr(appendStr(dst, "t"), TypeToolResult)
	dst = appendUint(appendStr(dst, "id"), m.ID)
	if len(m.Value) != 0 {
		dst = appendBin(appendStr(dst, "value"), m.Value)
	}
	if e := m.Error; e != nil {
		dst = appendStr(dst, "error")
		if e.Tool != "" {
			dst = appendMapHeader(dst, 3)
		} else {
			dst = appendMapHeader(dst, 2)
		}
		dst = appendStr(appendStr(dst, "code"), e.Code)
		dst = appendStr(appendStr(dst, "message"), e.Message)
		if e.Tool != "" {
			dst = appendStr(appendStr(dst, "tool"), e.Tool)
		}
	}
	return dst
}

// appendUint writes n in the smallest form, as msgpack's compact ints do.
func appendUint(dst []byte, n uint64) []byte {
	switch {
	case n <= 0x7f:
		return append(dst, byte(n))
	case n <= 0xff:
		return append(dst, 0xcc, byte(n))
	case n <= 0xffff:
		return append(dst, 0xcd, byte(n>>8), byte(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, 0xce), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0xcf), n)
}

// appendBin writes b as msgpack bin (nil as nil), as msgpack does for a
// []byte.
func appendBin(dst []byte, b []byte) []byte {
	switch n := len(b); {
	case b == nil:
		return append(dst, 0xc0)
	case n < 1<<8:
		dst = append(dst, 0xc4, byte(n))
	case n < 1<<16:
		dst = append(dst, 0xc5, byte(n>>8), byte(n))
	default:
		dst = binary.BigEndian.AppendUint32(append(dst, 0xc6), uint32(n))
	}
	return append(dst, b...)
}

// decodeFast fills m from frame when m has a hand decoder and frame holds
// only what that decoder expects; ok false leaves m zero. frame has passed
// scanFrame.
func decodeFast(frame []byte, m Message) (ok bool) {
	switch m := m.(type) {
	case *ToolCallRequest:
		return decodeToolCall(frame, m)
	case *ToolResult:
		return decodeToolResult(frame, m)
	}
	return false
}

func decodeToolCall(frame []byte, m *ToolCallRequest) bool {
	d := fastDecoder{b: frame}
	ok := d.fields(func(key []byte) (ok bool) {
		switch string(key) {
		case "id":
			m.ID, ok = d.uint()
		case "session":
			m.SessionID, ok = d.string()
		case "cell":
			m.CellID, ok = d.string()
		case "call":
			m.CallID, ok = d.uint()
		case "namespace":
			m.Namespace, ok = d.string()
		case "name":
			m.Name, ok = d.string()
		case "kind":
			var k string
			k, ok = d.string()
			m.Kind = ToolKind(k)
		case "input":
			m.Input, ok = d.bytes()
		}
		return ok
	})
	if !ok {
		*m = ToolCallRequest{}
	}
	return ok
}

func decodeToolResult(frame []byte, m *ToolResult) bool {
	d := fastDecoder{b: frame}
	ok := d.fields(func(key []byte) (ok bool) {
		switch string(key) {
		case "id":
			m.ID, ok = d.uint()
		case "value":
			m.Value, ok = d.bytes()
		}
		return ok // an error object is rare: the reflective decoder reads it
	})
	if !ok {
		*m = ToolResult{}
	}
	return ok
}

// fields walks the map that is the whole of d's buffer, skipping the "t"
// entry and handing every other key to field, which reads the value from d
// and reports whether it could (false for a key it does not know). It
// reports whether the whole buffer was read.
func (d *fastDecoder) fields(field func(key []byte) bool) bool {
	n, ok := d.mapHeader()
	if !ok {
		return false
	}
	for range n {
		key, ok := d.str()
		if !ok {
			return false
		}
		if string(key) == "t" {
			ok = d.skipStr()
		} else {
			ok = field(key)
		}
		if !ok {
			return false
		}
	}
	return d.pos == len(d.b)
}

// fastDecoder reads the few msgpack forms the hand decoders accept. Every
// method returns ok false on any other form, and on a short buffer.
type fastDecoder struct {
	b   []byte
	pos int
}

func (d *fastDecoder) mapHeader() (int, bool) {
	if d.pos >= len(d.b) {
		return 0, false
	}
	c := d.b[d.pos]
	switch {
	case c >= 0x80 && c <= 0x8f:
		d.pos++
		return int(c & 0x0f), true
	case c == 0xde && d.pos+3 <= len(d.b):
		n := int(binary.BigEndian.Uint16(d.b[d.pos+1:]))
		d.pos += 3
		return n, true
	}
	return 0, false
}

// length reads the header of a str (fixstr, str8/16/32) or, with bin
// set, of a bin (bin8/16/32), and checks that its bytes are present.
func (d *fastDecoder) length(bin bool) (int, bool) {
	if d.pos >= len(d.b) {
		return 0, false
	}
	c, c8 := d.b[d.pos], byte(0xd9)
	if bin {
		c8 = 0xc4
	}
	var n, hdr int
	switch {
	case !bin && c >= 0xa0 && c <= 0xbf:
		n, hdr = int(c&0x1f), 1
	case c == c8 && d.pos+2 <= len(d.b):
		n, hdr = int(d.b[d.pos+1]), 2
	case c == c8+1 && d.pos+3 <= len(d.b):
		n, hdr = int(binary.BigEndian.Uint16(d.b[d.pos+1:])), 3
	case c == c8+2 && d.pos+5 <= len(d.b):
		n, hdr = int(binary.BigEndian.Uint32(d.b[d.pos+1:])), 5
	default:
		return 0, false
	}
	if n > len(d.b)-d.pos-hdr {
		return 0, false
	}
	d.pos += hdr
	return n, true
}

// raw returns the bytes of a str or bin, aliasing the frame.
func (d *fastDecoder) raw(bin bool) ([]byte, bool) {
	n, ok := d.length(bin)
	if !ok {
		return nil, false
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s, true
}

// str returns a msgpack str's bytes, aliasing the frame.
func (d *fastDecoder) str() ([]byte, bool) { return d.raw(false) }

func (d *fastDecoder) skipStr() bool {
	_, ok := d.str()
	return ok
}

func (d *fastDecoder) string() (string, bool) {
	s, ok := d.str()
	return string(s), ok
}

// bytes returns a copy of a non-empty bin or str (the reflective decoder
// reads both into a []byte; empty and nil values are left to it).
func (d *fastDecoder) bytes() (json.RawMessage, bool) {
	bin := d.pos < len(d.b) && d.b[d.pos] >= 0xc4 && d.b[d.pos] <= 0xc6
	b, ok := d.raw(bin)
	if !ok || len(b) == 0 {
		return nil, false
	}
	return append(json.RawMessage(nil), b...), true
}

// uint reads a non-negative integer in an unsigned form.
func (d *fastDecoder) uint() (uint64, bool) {
	if d.pos >= len(d.b) {
		return 0, false
	}
	c, rest := d.b[d.pos], d.b[d.pos+1:]
	switch {
	case c <= 0x7f:
		d.pos++
		return uint64(c), true
	case c == 0xcc && len(rest) >= 1:
		d.pos += 2
		return uint64(rest[0]), true
	case c == 0xcd && len(rest) >= 2:
		d.pos += 3
		return uint64(binary.BigEndian.Uint16(rest)), true
	case c == 0xce && len(rest) >= 4:
		d.pos += 5
		return uint64(binary.BigEndian.Uint32(rest)), true
	case c == 0xcf && len(rest) >= 8:
		d.pos += 9
		return binary.BigEndian.Uint64(rest), true
	}
	return 0, false
}
