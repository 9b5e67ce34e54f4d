package protocol

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// typicalToolCall is a tool.call as a script makes it.
func typicalToolCall() *ToolCallRequest {
	return &ToolCallRequest{ID: 4242, ToolCall: ToolCall{
		SessionID: "session-1", CellID: "cell-17", CallID: 3, Namespace: "mcp__docs", Name: "search", Kind: KindFunction,
		Input: json.RawMessage(`{"query":"msgpack framing","limit":8,"filters":{"lang":["go","rust"]}}`),
	}}
}

// typicalCellResult is a finished cell with a dozen lines of output.
func typicalCellResult() *CellResult {
	items := make([]Item, 12)
	for i := range items {
		items[i] = Item{Type: ItemText, Text: "result line with a little bit of text in it", Level: "log"}
	}
	return &CellResult{ID: 99, Session: "session-1", Cell: "cell-17", Status: StatusCompleted, Items: items,
		Stats: Stats{WallMS: 12.5, CPUMS: 3.25, HeapPeak: 3 << 20, ToolCalls: 7}}
}

func benchEncode(b *testing.B, m Message) {
	buf, _ := AppendFrame(nil, m)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		buf, err = AppendFrame(buf[:0], m)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecode(b *testing.B, m Message) {
	frame := body(b, m)
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeToolCall(b *testing.B)   { benchEncode(b, typicalToolCall()) }
func BenchmarkDecodeToolCall(b *testing.B)   { benchDecode(b, typicalToolCall()) }
func BenchmarkEncodeCellResult(b *testing.B) { benchEncode(b, typicalCellResult()) }
func BenchmarkDecodeCellResult(b *testing.B) { benchDecode(b, typicalCellResult()) }

func BenchmarkEncodeToolResult(b *testing.B) {
	benchEncode(b, &ToolResult{ID: 4242, Value: json.RawMessage(`{"hits":[{"title":"a","score":0.9},{"title":"b","score":0.7}]}`)})
}

func BenchmarkDecodeToolResult(b *testing.B) {
	benchDecode(b, &ToolResult{ID: 4242, Value: json.RawMessage(`{"hits":[{"title":"a","score":0.9},{"title":"b","score":0.7}]}`)})
}

func BenchmarkValidateCellResult(b *testing.B) {
	frame := body(b, typicalCellResult())
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrameRoundTrip writes a tool call through a FrameWriter and
// reads it back through a FrameReader on one in-memory stream.
func BenchmarkFrameRoundTrip(b *testing.B) {
	var stream bytes.Buffer
	fw := NewFrameWriter(&stream, 0)
	fr := NewFrameReader(&stream, 0)
	m := typicalToolCall()
	b.ReportAllocs()
	for b.Loop() {
		if err := fw.WriteMessage(m); err != nil {
			b.Fatal(err)
		}
		if err := fw.Flush(); err != nil {
			b.Fatal(err)
		}
		if _, err := fr.ReadMessage(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSenderParallel sends tool calls from many goroutines through one
// Sender into io.Discard.
func BenchmarkSenderParallel(b *testing.B) {
	s := NewSender(io.Discard, 0)
	m := typicalToolCall()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Send(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}
