package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// hostileSeeds are frame bodies that once crashed or ballooned decoders.
var hostileSeeds = [][]byte{
	{0xc6, 0xff, 0xff, 0xff, 0xff},
	{0xdd, 0xff, 0xff, 0xff, 0xff},
	{0xdf, 0xff, 0xff, 0xff, 0xff},
	{0x93, 0xdd, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30},
	bytes.Repeat([]byte{0x91}, 1000),
	withValue(0xdd, 0x0f, 0xff, 0xff, 0xff),
	withValue(0xc9, 0xff, 0xff, 0xff, 0xff, 0x01),
	{0x82, 0xa1, 't', 0xa4, 'e', 'x', 'e', 'c', 0xa2, 'i', 'd', 0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
}

func addSeeds(f *testing.F) {
	for _, m := range append(samples(), toolErrorResult()) {
		b, err := Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, b := range hostileSeeds {
		f.Add(b)
	}
}

// FuzzDecode feeds arbitrary frame bodies to Decode. It must never panic
// or balloon; what it accepts must re-encode to a fixed point.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := Decode(frame)
		if err != nil {
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Fatal {
				t.Fatalf("Decode error is not a non-fatal *ProtocolError: %v", err)
			}
			return
		}
		if Validate(frame) != nil {
			t.Fatal("Decode accepted a frame Validate refuses")
		}
		once, err := Encode(m)
		if err != nil {
			t.Fatalf("decoded %s does not re-encode: %v", m.Type(), err)
		}
		m2, err := Decode(once)
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", m.Type(), err)
		}
		twice, err := Encode(m2)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("encoding of %s is not a fixed point: %x vs %x (%v)", m.Type(), once, twice, err)
		}
	})
}

// FuzzValidate checks that whatever Validate accepts, a generic msgpack
// decode accepts too (so the guard never lets a malformed value through to
// a decoder) without allocating much more than the frame.
func FuzzValidate(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, frame []byte) {
		if Validate(frame) != nil {
			return
		}
		var v map[string]any
		dec := msgpack.NewDecoder(bytes.NewReader(frame))
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("Validate accepted what msgpack refuses: %v", err)
		}
	})
}

// FuzzFrameReader feeds arbitrary byte streams to a FrameReader with a
// small cap: it must end with io.EOF or a fatal error, never panic, and
// never hand out a frame above the cap.
func FuzzFrameReader(f *testing.F) {
	stream := frames(f, &Ping{ID: 1}, sampleOf(TypeToolCall), &Pong{ID: 1})
	f.Add(stream)
	f.Add(stream[:len(stream)-3])
	f.Add([]byte{0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x80})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 1, 0x80})
	f.Fuzz(func(t *testing.T, stream []byte) {
		const capBytes = 4 << 10
		fr := NewFrameReader(bytes.NewReader(stream), capBytes)
		consumed := 0
		for {
			frame, err := fr.ReadFrame()
			if err != nil {
				if err != io.EOF && !IsFatal(err) {
					t.Fatalf("ReadFrame error is neither EOF nor fatal: %v", err)
				}
				if err == io.EOF && consumed != len(stream) {
					t.Fatalf("EOF after %d of %d bytes", consumed, len(stream))
				}
				return
			}
			if len(frame) == 0 || len(frame) > capBytes {
				t.Fatalf("frame of %d bytes handed out", len(frame))
			}
			consumed += 4 + len(frame)
		}
	})
}

// FuzzEncodeDecode holds the encoder and the decoder together on the
// messages that carry script data, built from adversarial values (text
// that is not UTF-8, lone surrogates, JSON that is not JSON or nests too
// deep, empty strings, huge counts): Encode either refuses the message
// with a *ProtocolError (too_large, bad_field) or makes a frame Decode
// takes, and re-encoding what Decode returns gives the same bytes. A
// message whose JSON values are JSON, whose ids are plain and whose counts
// are small must encode.
func FuzzEncodeDecode(f *testing.F) {
	f.Add([]byte("plain text"), []byte(`{"a":[1,2]}`), uint8(3), uint8(0))
	f.Add([]byte("a\xed\xa0\x80b\x00\xed\xb0\x80\x00\xff"), []byte(`"\ud800"`), uint8(2), uint8(1))
	f.Add([]byte("\x00\x00"), []byte(`{`), uint8(0), uint8(3))
	f.Add([]byte("😀"[:2]+"\x00x"), []byte(`[]`), uint8(255), uint8(0x82))
	f.Add([]byte(strings.Repeat("s", MaxIDLen-1)+"\xff"), []byte(`1`), uint8(1), uint8(4))
	f.Fuzz(func(t *testing.T, text, js []byte, n, kind uint8) {
		parts := strings.Split(string(text), "\x00")
		part := func(i int) string { return parts[i%len(parts)] }
		count := int(n % 16)
		huge := n == 255 && kind&0x80 != 0
		if huge {
			count = MaxItems/4 + int(kind)
		}
		value := json.RawMessage(js) // raw fuzz bytes: often not JSON
		if kind&1 == 0 {
			value, _ = json.Marshal(string(text)) // JSON of invalid text: still JSON
		}
		if kind&2 != 0 { // nest it, at times past the JSON depth limit
			d := int(n) * 40
			value = json.RawMessage(strings.Repeat("[", d) + string(value) + strings.Repeat("]", d))
		}
		session, cell := "s", "c"
		if kind&4 != 0 {
			session = part(1) // empty, too long or not UTF-8
		}
		mustEncode := ValidJSON(value) && !huge && kind&4 == 0

		items := make([]Item, count)
		store := make([]StoreEntry, count)
		for i := range items {
			items[i] = Item{Type: ItemText, Text: part(i), Level: part(i + 1)}
			if i%3 == 2 {
				items[i] = Item{Type: ItemImage, ImageURL: "data:image/png;base64," + part(i), Detail: part(i + 2)}
			}
			store[i] = StoreEntry{Key: "k" + part(i), Value: json.RawMessage(`1`)}
			if i == 0 {
				store[i].Value = value
			}
		}
		msgs := []Message{
			&CellResult{ID: 1, Session: session, Cell: cell, Status: StatusFailed, Items: items, Truncated: kind&8 != 0,
				Error: &ErrorInfo{Name: part(0), Message: part(1), Stack: part(2), Line: int(n)}, Store: store},
			&CellResult{ID: 2, Session: session, Cell: cell, Status: StatusYielded, Items: items},
			&Output{Session: session, Cell: cell, Items: items},
			&Notify{Session: session, Cell: cell, Text: string(text)},
			&ToolCallRequest{ID: 3, ToolCall: ToolCall{SessionID: session, CellID: cell, CallID: uint64(n),
				Namespace: part(1), Name: "t" + part(0), Kind: KindFunction, Input: value}},
			&ToolResult{ID: 4, Value: value},
			&ToolResult{ID: 5, Error: &ToolError{Code: "c" + part(0), Message: part(1), Tool: part(2)}},
			&ErrorReply{ID: 6, Code: ErrCodeInternal, Message: string(text), FailedType: part(1)},
			&OpenSession{ID: 7, Session: session, Store: store},
		}
		for _, m := range msgs {
			b, err := Encode(m)
			if err != nil {
				var pe *ProtocolError
				if !errors.As(err, &pe) || pe.Fatal || (pe.Code != ErrCodeTooLarge && pe.Code != ErrCodeBadField) {
					t.Fatalf("Encode(%s) failed with %v; want a non-fatal too_large or bad_field *ProtocolError", m.Type(), err)
				}
				if mustEncode {
					t.Fatalf("Encode(%s) refused a message it must encode: %v", m.Type(), err)
				}
				continue
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Encode(%s) made a frame Decode refuses: %v", m.Type(), err)
			}
			again, err := Encode(got)
			if err != nil || !bytes.Equal(b, again) {
				t.Fatalf("%s: re-encoding the decoded message differs (%v)", m.Type(), err)
			}
		}
	})
}
