package protocol

import (
	"bytes"
	"errors"
	"io"
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
