package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
)

// body encodes m's frame body, failing the test on error.
func body(t testing.TB, m Message) []byte {
	t.Helper()
	b, err := Encode(m)
	require.NoError(t, err)
	return b
}

// rawMap encodes kv (alternating string keys and values) as a msgpack map
// in that order, for hand-made hostile frames.
func rawMap(t testing.TB, kv ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	require.NoError(t, enc.EncodeMapLen(len(kv)/2))
	for _, v := range kv {
		require.NoError(t, enc.Encode(v))
	}
	return buf.Bytes()
}

// requireProtocolError asserts err is a *ProtocolError with code and
// returns it.
func requireProtocolError(t *testing.T, err error, code ErrorCode) *ProtocolError {
	t.Helper()
	require.Error(t, err)
	var pe *ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, code, pe.Code, "error: %v", err)
	assert.True(t, strings.HasPrefix(err.Error(), "protocol: "), err.Error())
	assert.False(t, pe.Fatal, "decode errors never break the connection")
	return pe
}

func TestDecodeRoundTripsEverySample(t *testing.T) {
	for _, m := range append(samples(), toolErrorResult()) {
		got, err := Decode(body(t, m))
		require.NoError(t, err, m.Type())
		assert.Equal(t, m, got)
	}
}

func TestDecodedMessageDoesNotAliasTheFrame(t *testing.T) {
	frame := body(t, sampleOf(TypeToolCall))
	m, err := Decode(frame)
	require.NoError(t, err)
	for i := range frame {
		frame[i] = 0
	}
	call := m.(*ToolCallRequest)
	assert.Equal(t, "search", call.Name)
	assert.JSONEq(t, `{"query":"go"}`, string(call.Input))
}

func TestDecodeAcceptsJSONAsStrOrBin(t *testing.T) {
	asStr := rawMap(t, "t", "tool.result", "id", 4, "value", `{"ok":true}`)
	asBin := rawMap(t, "t", "tool.result", "id", 4, "value", []byte(`{"ok":true}`))
	for name, frame := range map[string][]byte{"str": asStr, "bin": asBin} {
		m, err := Decode(frame)
		require.NoError(t, err, name)
		assert.Equal(t, json.RawMessage(`{"ok":true}`), m.(*ToolResult).Value, name)
	}
	enc := body(t, &ToolResult{ID: 1, Value: json.RawMessage(`1`)})
	assert.Equal(t, []byte{0xa5, 'v', 'a', 'l', 'u', 'e', 0xc4, 1, '1'}, enc[len(enc)-9:], "JSON is encoded as bin")
}

func TestDecodeIgnoresUnknownFields(t *testing.T) {
	frame := rawMap(t, "t", "ping", "id", 3, "future", map[string]any{"x": []any{1, "y"}})
	got, err := Decode(frame)
	require.NoError(t, err)
	assert.Equal(t, &Ping{ID: 3}, got)
}

func TestDecodeAcceptsAnyIntegerWidthForIDs(t *testing.T) {
	for _, id := range []any{uint8(7), uint16(7), uint32(7), uint64(7), int8(7), int64(7)} {
		var buf bytes.Buffer
		enc := msgpack.NewEncoder(&buf)
		require.NoError(t, enc.EncodeMapLen(2))
		require.NoError(t, enc.EncodeString("t"))
		require.NoError(t, enc.EncodeString("ping"))
		require.NoError(t, enc.EncodeString("id"))
		require.NoError(t, enc.Encode(id)) // the encoder keeps the width of typed ints
		got, err := Decode(buf.Bytes())
		require.NoError(t, err)
		assert.Equal(t, &Ping{ID: 7}, got)
	}
}

func TestDecodeUnknownTypeKeepsTagAndID(t *testing.T) {
	_, err := Decode(rawMap(t, "t", "teleport", "id", 12))
	pe := requireProtocolError(t, err, ErrCodeUnknownType)
	assert.Equal(t, "teleport", pe.Type)
	assert.Equal(t, uint64(12), pe.ID)
	reply := pe.Reply()
	assert.Equal(t, &ErrorReply{ID: 12, Code: ErrCodeUnknownType, Message: pe.Message, FailedType: "teleport"}, reply)
	_, err = Encode(reply)
	assert.NoError(t, err, "the reply to a bad request is itself encodable")
}

func TestDecodeMissingTypeTag(t *testing.T) {
	_, err := Decode(rawMap(t, "id", 5))
	pe := requireProtocolError(t, err, ErrCodeBadField)
	assert.Equal(t, uint64(5), pe.ID)
	assert.Contains(t, pe.Message, "t: missing")
}

func TestDecodeTypeTagThatIsNotAString(t *testing.T) {
	_, err := Decode(rawMap(t, "t", 42, "id", 5))
	pe := requireProtocolError(t, err, ErrCodeBadField)
	assert.Equal(t, uint64(5), pe.ID)
}

func TestDecodeRequestWithoutIDIsBadField(t *testing.T) {
	for _, typ := range []string{TypeExec, TypePing, TypeToolCall, TypeWait, TypeHello} {
		frame := rawMap(t, "t", typ)
		_, err := Decode(frame)
		pe := requireProtocolError(t, err, ErrCodeBadField)
		assert.Equal(t, typ, pe.Type)
		assert.Zero(t, pe.ID)
		assert.Contains(t, pe.Message, "id: missing")
	}
}

func TestDecodeWrongFieldTypesKeepID(t *testing.T) {
	cases := map[string][]byte{
		"id is a string":        rawMap(t, "t", "ping", "id", "seven"),
		"source is a map":       rawMap(t, "t", "exec", "id", 8, "session", "s1", "source", map[string]any{"a": 1}),
		"tools is a string":     rawMap(t, "t", "exec", "id", 8, "session", "s1", "source", "1", "tools", "search"),
		"stats is an array":     rawMap(t, "t", "cell.result", "id", 8, "session", "s", "cell", "c", "status", "completed", "stats", []int{1}),
		"input is a map":        rawMap(t, "t", "tool.call", "id", 8, "cell", "c", "name", "n", "kind", "function", "input", map[string]any{"q": 1}),
		"versions are strings":  rawMap(t, "t", "hello", "id", 8, "versions", []string{"one"}),
		"negative id":           rawMap(t, "t", "ping", "id", -8),
		"limits is a bool":      rawMap(t, "t", "session.open", "id", 8, "session", "s", "limits", true),
		"error is a string":     rawMap(t, "t", "tool.result", "id", 8, "error", "boom"),
		"items hold a number":   rawMap(t, "t", "output", "session", "s", "cell", "c", "items", []int{3}),
		"yield_ms is a float":   rawMap(t, "t", "wait", "id", 8, "session", "s", "cell", "c", "yield_ms", 1.5),
		"value is invalid JSON": rawMap(t, "t", "tool.result", "id", 8, "value", "{nope"),
	}
	for name, frame := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(frame)
			pe := requireProtocolError(t, err, ErrCodeBadField)
			if name != "id is a string" && name != "negative id" && name != "items hold a number" {
				assert.Equal(t, uint64(8), pe.ID, "the error echoes the id")
			}
			assert.NotEmpty(t, pe.Type)
		})
	}
}

func TestDecodeFieldRules(t *testing.T) {
	cases := map[string]Message{
		"exec source with NUL":       &Exec{ID: 1, Session: "s", Source: "a\x00b"},
		"exec unknown language":      &Exec{ID: 1, Session: "s", Source: "1", Language: "py"},
		"exec hidden tool":           &Exec{ID: 1, Session: "s", Source: "1", Tools: []ToolDef{{Name: "x", Exposure: ExposureHidden}}},
		"exec tool without name":     &Exec{ID: 1, Session: "s", Source: "1", Tools: []ToolDef{{Description: "x"}}},
		"exec bad schema":            &Exec{ID: 1, Session: "s", Source: "1", Tools: []ToolDef{{Name: "x", InputSchema: json.RawMessage("{")}}},
		"result unknown status":      &CellResult{ID: 1, Session: "s", Cell: "c", Status: "exploded"},
		"result unknown item type":   &CellResult{ID: 1, Session: "s", Cell: "c", Status: StatusCompleted, Items: []Item{{Type: "audio"}}},
		"tool result with both":      &ToolResult{ID: 1, Value: json.RawMessage("1"), Error: &ToolError{Code: CodeToolFailed}},
		"tool result error w/o code": &ToolResult{ID: 1, Error: &ToolError{Message: "x"}},
		"tool call without input":    &ToolCallRequest{ID: 1, ToolCall: ToolCall{CellID: "c", Name: "n", Kind: KindFunction}},
		"session id too long":        &OpenSession{ID: 1, Session: strings.Repeat("s", MaxIDLen+1)},
		"cancel without target":      &Cancel{},
		"wait without cell":          &Wait{ID: 1, Session: "s"},
		"error without code":         &ErrorReply{ID: 1, Message: "x"},
	}
	for name, msg := range cases {
		t.Run(name, func(t *testing.T) {
			frame, err := msgpack.Marshal(msg) // bypass Encode's own check
			require.NoError(t, err)
			n, hdr := mapLen(frame)
			frame = append(appendStr(append(appendMapHeader(nil, n+1), 0xa1, 't'), msg.Type()), frame[hdr:]...)
			_, err = Decode(frame)
			requireProtocolError(t, err, ErrCodeBadField)
		})
	}
}

func TestEncodeRefusesInvalidMessages(t *testing.T) {
	_, err := Encode(&Exec{Session: "s", Source: "1"})
	pe := requireProtocolError(t, err, ErrCodeBadField)
	assert.Equal(t, TypeExec, pe.Type)
	_, err = Encode(nil)
	requireProtocolError(t, err, ErrCodeBadField)
	frame, err := AppendFrame([]byte("keep"), &Ping{})
	require.Error(t, err)
	assert.Equal(t, []byte("keep"), frame, "a failed append leaves dst as it was")
}

func TestProtocolErrorMatchesWithIsAndAs(t *testing.T) {
	_, err := Decode(rawMap(t, "t", "nope", "id", 1))
	assert.ErrorIs(t, err, ErrProtocol)
	assert.ErrorIs(t, err, &ProtocolError{Code: ErrCodeUnknownType})
	assert.NotErrorIs(t, err, &ProtocolError{Code: ErrCodeBadFrame})
	assert.ErrorIs(t, err, &ProtocolError{}, "an empty code matches any protocol error")
	assert.False(t, IsFatal(err))
	assert.Equal(t, `protocol: unknown_type: unknown message type "nope" (t="nope" id=1)`, err.Error())
	assert.True(t, errors.Is((&ErrorReply{Code: ErrCodeInternal}).Err(), &ProtocolError{Code: ErrCodeInternal}))
}

func TestErrorCodesAreAClosedSet(t *testing.T) {
	assert.True(t, ErrCodeTooLarge.Valid())
	assert.False(t, ErrorCode("teapot").Valid())
}

func TestSentByCoversEveryType(t *testing.T) {
	for _, typ := range Types() {
		assert.NotZero(t, SentBy(typ), typ)
	}
	assert.Equal(t, FromParent, SentBy(TypeExec))
	assert.Equal(t, FromHost, SentBy(TypeToolCall))
	assert.Equal(t, FromEither, SentBy(TypePing))
	assert.Zero(t, SentBy("teleport"))
}

func TestEveryRequestAndReplyHasItsID(t *testing.T) {
	for _, msg := range samples() {
		switch msg.(type) {
		case *Cancel, *CellClosed, *Notify, *Output, *Shutdown:
			assert.Zero(t, idOf(msg), "%s is an event", msg.Type())
		default:
			assert.NotZero(t, idOf(msg), "%s carries an id", msg.Type())
		}
	}
}

func TestItemCustomEncodingMatchesItsStructTags(t *testing.T) {
	type plainItem Item // same fields and tags, without EncodeMsgpack
	for _, it := range []Item{
		{Type: ItemText},
		{Type: ItemText, Text: "hi", Level: "warn"},
		{Type: ItemImage, ImageURL: "data:image/png;base64,AAAA", Detail: "low"},
		{Type: ItemText, Text: strings.Repeat("x", 70000)},
	} {
		custom, err := msgpack.Marshal(it)
		require.NoError(t, err)
		plain, err := msgpack.Marshal(plainItem(it))
		require.NoError(t, err)
		assert.Equal(t, plain, custom)
	}
}
