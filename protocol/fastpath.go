package protocol

import (
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
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

// fastStringsValid reports whether every str a hand encoder writes for m
// is valid UTF-8 (its other values are a fixed few, and JSON travels as
// bin): then the body needs no finishBody scan.
func fastStringsValid(m Message) bool {
	switch m := m.(type) {
	case *ToolCallRequest:
		// Ids and tool names are short and nearly always ASCII: one OR over
		// their bytes is cheaper than five calls of utf8.ValidString.
		if asciiOnly(m.SessionID, m.CellID, m.Namespace, m.Name, string(m.Kind)) {
			return true
		}
		return utf8.ValidString(m.SessionID) && utf8.ValidString(m.CellID) &&
			utf8.ValidString(m.Namespace) && utf8.ValidString(m.Name) && utf8.ValidString(string(m.Kind))
	case *ToolResult:
		e := m.Error
		return e == nil || utf8.ValidString(e.Code) && utf8.ValidString(e.Message) && utf8.ValidString(e.Tool)
	}
	return false
}

// asciiOnly reports whether no byte of the five strings has its high bit
// set.
func asciiOnly(a, b, c, d, e string) bool {
	var x byte
	for _, s := range [...]string{a, b, c, d, e} {
		for i := 0; i < len(s); i++ {
			x |= s[i]
		}
	}
	return x < utf8.RuneSelf
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

// decodeFast fills m from the entries scanFrame kept when m has a hand
// decoder and the frame holds only what that decoder expects; ok false
// leaves m zero.
func decodeFast(env *envelope, m Message) (ok bool) {
	if !env.entriesAll {
		return false
	}
	entries := env.entries[:env.nEntries]
	switch m := m.(type) {
	case *ToolCallRequest:
		if ok = decodeToolCall(entries, m); !ok {
			*m = ToolCallRequest{}
		}
	case *ToolResult:
		if ok = decodeToolResult(entries, m); !ok {
			*m = ToolResult{}
		}
	}
	return ok
}

func decodeToolCall(entries []entry, m *ToolCallRequest) bool {
	for _, e := range entries {
		ok := false
		switch string(e.key) {
		case "t":
			ok = true // read by scanFrame
		case "id":
			m.ID, ok = uintValue(e.val)
		case "session":
			m.SessionID, ok = stringValue(e.val)
		case "cell":
			m.CellID, ok = stringValue(e.val)
		case "call":
			m.CallID, ok = uintValue(e.val)
		case "namespace":
			m.Namespace, ok = stringValue(e.val)
		case "name":
			m.Name, ok = stringValue(e.val)
		case "kind":
			var k string
			k, ok = stringValue(e.val)
			m.Kind = ToolKind(k)
		case "input":
			m.Input, ok = jsonValue(e.val)
		}
		if !ok {
			return false
		}
	}
	return true
}

func decodeToolResult(entries []entry, m *ToolResult) bool {
	for _, e := range entries {
		ok := false
		switch string(e.key) {
		case "t":
			ok = true // read by scanFrame
		case "id":
			m.ID, ok = uintValue(e.val)
		case "value":
			m.Value, ok = jsonValue(e.val)
		}
		if !ok {
			return false // an error object is rare: the reflective decoder reads it
		}
	}
	return true
}

// stringValue returns one encoded str as a string.
func stringValue(v []byte) (string, bool) {
	b, ok := strBytes(v)
	return string(b), ok
}

// jsonValue returns a copy of one encoded non-empty bin or str (the
// reflective decoder reads both into a []byte; empty and nil values are
// left to it).
func jsonValue(v []byte) (json.RawMessage, bool) {
	b, ok := binBytes(v)
	if !ok {
		b, ok = strBytes(v)
	}
	if !ok || len(b) == 0 {
		return nil, false
	}
	return append(json.RawMessage(nil), b...), true
}
