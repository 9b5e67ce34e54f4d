package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loneSurrogate is how V8 hands a lone UTF-16 surrogate to Go ("😀".slice(0, 1)
// gives ED A0 BD): three bytes that are not UTF-8.
const loneSurrogate = "\xed\xa0\xbd"

// roundTrip encodes m, requires the decoder to take the frame, and returns
// what it decoded.
func roundTrip(t *testing.T, m Message) Message {
	t.Helper()
	b, err := Encode(m)
	require.NoError(t, err)
	got, err := Decode(b)
	require.NoError(t, err, "Encode made a %s frame Decode refuses", m.Type())
	return got
}

func TestEncodeMakesScriptTextWellFormed(t *testing.T) {
	bad := "a" + loneSurrogate + "b\xff"
	const good = "a\uFFFDb\uFFFD"

	res := roundTrip(t, &CellResult{ID: 1, Session: "s", Cell: "c", Status: StatusFailed,
		Items: []Item{{Type: ItemText, Text: bad, Level: "log"}, {Type: ItemImage, ImageURL: "data:," + bad}},
		Error: &ErrorInfo{Name: bad, Message: bad, Stack: bad},
		Store: []StoreEntry{{Key: bad, Value: json.RawMessage(`"\ud800"`)}},
	}).(*CellResult)
	assert.Equal(t, good, res.Items[0].Text)
	assert.Equal(t, "data:,"+good, res.Items[1].ImageURL)
	assert.Equal(t, ErrorInfo{Name: good, Message: good, Stack: good}, *res.Error)
	assert.Equal(t, good, res.Store[0].Key)
	assert.JSONEq(t, `"\ud800"`, string(res.Store[0].Value), "JSON travels as bin, untouched")

	assert.Equal(t, good, roundTrip(t, &Notify{Session: "s", Cell: "c", Text: bad}).(*Notify).Text)
	assert.Equal(t, good, roundTrip(t, &Output{Session: "s", Cell: "c", Items: []Item{{Type: ItemText, Text: bad}}}).(*Output).Items[0].Text)
	assert.Equal(t, good, roundTrip(t, &ErrorReply{ID: 3, Code: ErrCodeInternal, Message: bad}).(*ErrorReply).Message)
	assert.Equal(t, good, roundTrip(t, &OpenSession{ID: 2, Session: "s", Store: []StoreEntry{{Key: bad, Value: json.RawMessage(`1`)}}}).(*OpenSession).Store[0].Key)
}

func TestEncodeMakesHandEncodedTextWellFormed(t *testing.T) {
	bad := "tool" + loneSurrogate
	call := roundTrip(t, &ToolCallRequest{ID: 1, ToolCall: ToolCall{SessionID: "s", CellID: "c", CallID: 1,
		Namespace: bad, Name: bad, Kind: KindFunction, Input: json.RawMessage(`{}`)}}).(*ToolCallRequest)
	assert.Equal(t, "tool\uFFFD", call.Name)
	assert.Equal(t, "tool\uFFFD", call.Namespace)

	res := roundTrip(t, &ToolResult{ID: 2, Error: &ToolError{Code: CodeToolFailed, Message: bad, Tool: bad}}).(*ToolResult)
	assert.Equal(t, ToolError{Code: CodeToolFailed, Message: "tool\uFFFD", Tool: "tool\uFFFD"}, *res.Error)
}

func TestEncodeLeavesValidTextAsIs(t *testing.T) {
	for _, m := range append(samples(), toolErrorResult()) {
		b, err := Encode(m)
		require.NoError(t, err)
		var env envelope
		s := scanner{b: b}
		require.NoError(t, s.frame(&env))
		fixed, ok := appendWellformed(nil, b)
		require.True(t, ok, m.Type())
		assert.Equal(t, b, fixed, "%s: nothing to rewrite", m.Type())
	}
}

func TestEncodeRefusesMoreValuesThanTheDecoderAccepts(t *testing.T) {
	items := make([]Item, MaxItems/4) // each item is a map of two entries: 5 values
	for i := range items {
		items[i] = Item{Type: ItemText, Text: "x"}
	}
	m := &CellResult{ID: 8, Session: "s", Cell: "c", Status: StatusCompleted, Items: items}
	_, err := Encode(m)
	pe := requireProtocolError(t, err, ErrCodeTooLarge)
	assert.Equal(t, TypeCellResult, pe.Type)
	assert.Equal(t, uint64(8), pe.ID)
	assert.Contains(t, pe.Message, "send fewer")

	var out bytes.Buffer
	s := NewSender(&out, 0)
	requireProtocolError(t, s.Send(m), ErrCodeTooLarge)
	require.NoError(t, s.Send(&Ping{ID: 1}), "a refused message leaves the sender usable")
	require.NoError(t, s.Close())
	assert.Equal(t, frames(t, &Ping{ID: 1}), out.Bytes(), "nothing of the refused message was written")

	store := make([]StoreEntry, MaxItems/4)
	for i := range store {
		store[i] = StoreEntry{Key: "k", Value: json.RawMessage(`1`)}
	}
	_, err = Encode(&CellResult{ID: 9, Session: "s", Cell: "c", Status: StatusCompleted, Store: store})
	requireProtocolError(t, err, ErrCodeTooLarge)

	// Just under the bound still goes.
	roundTrip(t, &CellResult{ID: 9, Session: "s", Cell: "c", Status: StatusCompleted, Items: items[:MaxItems/5-20]})
}

func TestEncodeRefusesJSONValuesThatAreNotJSON(t *testing.T) {
	for _, m := range []Message{
		&CellResult{ID: 1, Session: "s", Cell: "c", Status: StatusCompleted, Store: []StoreEntry{{Key: "k", Value: json.RawMessage(`{"a":`)}}},
		&OpenSession{ID: 2, Session: "s", Store: []StoreEntry{{Key: "k", Value: json.RawMessage(`undefined`)}}},
		&ToolCallRequest{ID: 3, ToolCall: ToolCall{CellID: "c", CallID: 1, Name: "t", Kind: KindFunction, Input: json.RawMessage(`{a:1}`)}},
		&ToolResult{ID: 4, Value: json.RawMessage(`NaN`)},
		&ToolResult{ID: 5, Value: json.RawMessage(strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1))},
	} {
		_, err := Encode(m)
		pe := requireProtocolError(t, err, ErrCodeBadField)
		assert.Contains(t, pe.Message, "not valid JSON", m.Type())
	}
}

func TestEncodeRefusesAnIDThatWellFormingPushesPastItsBound(t *testing.T) {
	id := strings.Repeat("s", MaxIDLen-1) + "\xff" // 256 bytes; U+FFFD makes it 258
	_, err := Encode(&Notify{Session: id, Cell: "c", Text: "x"})
	pe := requireProtocolError(t, err, ErrCodeBadField)
	assert.Contains(t, pe.Message, "session")
}
