package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastPathMessages covers every branch of the hand codecs: each integer and
// length width, optional fields present and absent, errors with and
// without a tool.
func fastPathMessages() []Message {
	var msgs []Message
	ids := []uint64{1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffffff, 0x100000000, 1<<64 - 1}
	strs := []string{"c", strings.Repeat("s", 31), strings.Repeat("s", 32), strings.Repeat("s", 255),
		strings.Repeat("s", 256)} // names are capped at 256 bytes
	long := strings.Repeat("m", 1<<17)
	inputs := []string{`{}`, `"` + strings.Repeat("x", 253) + `"`, `"` + strings.Repeat("x", 254) + `"`,
		`"` + strings.Repeat("x", 1<<16-3) + `"`, `"` + strings.Repeat("x", 1<<16-2) + `"`}
	for i, id := range ids {
		s := strs[i%len(strs)]
		in := json.RawMessage(inputs[i%len(inputs)])
		msgs = append(msgs,
			&ToolCallRequest{ID: id, ToolCall: ToolCall{CellID: s, CallID: id, Name: "echo", Kind: KindFunction, Input: in}},
			&ToolCallRequest{ID: id, ToolCall: ToolCall{SessionID: s, CellID: "c", CallID: 0, Namespace: s,
				Name: s, Kind: KindFreeform, Input: in}},
			&ToolResult{ID: id},
			&ToolResult{ID: id, Value: in},
			&ToolResult{ID: id, Error: &ToolError{Code: CodeToolFailed, Message: s + long[:i*i*1000]}},
			&ToolResult{ID: id, Error: &ToolError{Code: CodeToolFailed, Message: "", Tool: s}},
		)
	}
	return msgs
}

func TestFastEncodeMatchesReflection(t *testing.T) {
	for _, m := range fastPathMessages() {
		fast, err := Encode(m)
		require.NoError(t, err)
		slow, err := appendReflected(nil, m)
		require.NoError(t, err)
		require.Truef(t, bytes.Equal(fast, slow), "%s %+v:\nhand       %x\nreflection %x", m.Type(), m, head(fast), head(slow))
	}
}

func TestFastDecodeMatchesReflection(t *testing.T) {
	for _, m := range fastPathMessages() {
		frame, err := Encode(m)
		require.NoError(t, err)
		fast, slow := newMessage[m.Type()](), newMessage[m.Type()]()
		_, isErr := m.(*ToolResult)
		isErr = isErr && m.(*ToolResult).Error != nil
		var env envelope
		require.NoError(t, scanFrame(frame, &env))
		require.Equal(t, !isErr, decodeFast(&env, fast), "errors go to the reflective decoder; the rest is read by hand")
		require.NoError(t, decodeInto(frame, slow))
		if !isErr {
			assert.Equal(t, slow, fast)
		}
		got, err := Decode(frame)
		require.NoError(t, err)
		assert.Equal(t, m, got, "round trip")
	}
}

// TestFastDecodeLeavesOddFormsToReflection: forms the encoder never writes
// but another msgpack library may (a str for the JSON input, a signed
// integer id, an unknown key) decode the same through either path.
func TestFastDecodeLeavesOddFormsToReflection(t *testing.T) {
	call := "\x87\xa1t\xa9tool.call\xa2id\x05\xa4cell\xa1c\xa4call\x01\xa4name\xa4echo\xa4kind\xa8function\xa5input"
	for name, frame := range map[string]string{
		"str input":   call + "\xa2{}",
		"signed id":   strings.Replace(call, "\xa2id\x05", "\xa2id\xd0\x05", 1) + "\xc4\x02{}",
		"unknown key": "\x84\xa1t\xabtool.result\xa2id\x05\xa5value\xc4\x011\xa5extra\xc0",
		"nil value":   "\x83\xa1t\xabtool.result\xa2id\x05\xa5value\xc0",
	} {
		m, err := Decode([]byte(frame))
		require.NoError(t, err, name)
		switch m := m.(type) {
		case *ToolCallRequest:
			assert.Equal(t, uint64(5), m.ID, name)
			assert.JSONEq(t, `{}`, string(m.Input), name)
		case *ToolResult:
			assert.Equal(t, uint64(5), m.ID, name)
		}
	}
}

// FuzzFastDecode: whatever the hand decoders accept, the reflective decoder
// accepts too and reads the same message.
func FuzzFastDecode(f *testing.F) {
	for _, m := range fastPathMessages()[:24] {
		b, err := Encode(m)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		var env envelope
		if scanFrame(frame, &env) != nil {
			return
		}
		newMsg, ok := newMessage[knownTag(env.tag)]
		if !ok {
			return
		}
		fast, slow := newMsg(), newMsg()
		if !decodeFast(&env, fast) {
			return
		}
		if err := decodeInto(frame, slow); err != nil {
			t.Fatalf("the hand decoder accepted what reflection refuses (%v): %x", err, frame)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("the decoders disagree on %x:\nhand       %+v\nreflection %+v", frame, fast, slow)
		}
	})
}

func head(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
