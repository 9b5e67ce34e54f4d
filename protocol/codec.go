package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// Encode returns the frame body of m (one msgpack map, without the length
// prefix): "t" first, then m's fields in declaration order, absent when
// they are zero and tagged omitempty. The bytes are deterministic.
//
// Encode never returns a body Decode refuses (encodecheck.go). It checks
// m the way Decode would (JSON values included) and fails with a
// *ProtocolError: code bad_field for a field Decode refuses (a missing id,
// JSON text that is not JSON), code too_large for a message with more than
// MaxItems values or a body over HardMaxFrame (send a smaller one). A str
// that is not valid UTF-8 (a lone surrogate from V8) is not an error: it is
// encoded well-formed, each bad sequence as U+FFFD.
func Encode(m Message) ([]byte, error) {
	return appendBody(nil, m)
}

// AppendFrame appends the whole frame of m to dst: the 4-byte big-endian
// body length, then the body Encode returns, with Encode's errors. It
// does not check the negotiated frame cap; FrameWriter and Sender do.
func AppendFrame(dst []byte, m Message) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst, err := appendBody(dst, m)
	if err != nil {
		return dst[:start], err
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst, nil
}

type encoderState struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

var encoders = sync.Pool{New: func() any {
	s := &encoderState{enc: msgpack.NewEncoder(nil)}
	s.enc.Reset(&s.buf)
	s.enc.UseCompactInts(true)
	return s
}}

// appendBody encodes m as a map with "t" as its first key: msgpack
// encodes the struct as a map of N fields, and appendReflected rewrites the
// map header to N+1 and puts the tag entry in front. The tool-call messages
// have hand encoders writing the same bytes (fastpath.go). Either way the
// body then passes finishBody, or the few strings of a hand-encoded one
// their UTF-8 check.
func appendBody(dst []byte, m Message) ([]byte, error) {
	if m == nil {
		return dst, errorf(ErrCodeBadField, "cannot encode a nil message")
	}
	if err := m.check(true); err != nil {
		return dst, withEnvelope(err, m.Type(), idOf(m))
	}
	start := len(dst)
	if out, ok := appendFastBody(dst, m); ok {
		if !fastStringsValid(m) {
			return finishBody(out, start, m)
		}
		if err := checkBodySize(len(out)-start, m); err != nil {
			return dst, err
		}
		return out, nil
	}
	out, err := appendReflected(dst, m)
	if err != nil {
		return dst, err
	}
	return finishBody(out, start, m)
}

// appendReflected is appendBody's encoder for every message: msgpack by
// reflection.
func appendReflected(dst []byte, m Message) ([]byte, error) {
	st := encoders.Get().(*encoderState)
	defer func() {
		if st.buf.Cap() <= 64<<10 {
			st.buf.Reset()
			encoders.Put(st)
		}
	}()
	if err := st.enc.Encode(m); err != nil {
		return dst, &ProtocolError{Code: ErrCodeInternal, Message: "encoding " + m.Type() + ": " + err.Error(), Type: m.Type(), ID: idOf(m), Err: err}
	}
	body := st.buf.Bytes()
	n, hdr := mapLen(body)
	if hdr == 0 {
		return dst, errorf(ErrCodeInternal, "encoding %s: struct did not encode as a map", m.Type())
	}
	dst = appendMapHeader(dst, n+1)
	dst = append(dst, 0xa1, 't')
	dst = appendStr(dst, m.Type())
	return append(dst, body[hdr:]...), nil
}

// mapLen reads a msgpack map header: its entry count and its size in bytes
// (0 if b does not start with a map header).
func mapLen(b []byte) (n, size int) {
	switch {
	case len(b) >= 1 && b[0] >= 0x80 && b[0] <= 0x8f:
		return int(b[0] & 0x0f), 1
	case len(b) >= 3 && b[0] == 0xde:
		return int(binary.BigEndian.Uint16(b[1:])), 3
	case len(b) >= 5 && b[0] == 0xdf:
		return int(binary.BigEndian.Uint32(b[1:])), 5
	}
	return 0, 0
}

func appendMapHeader(dst []byte, n int) []byte {
	switch {
	case n < 16:
		return append(dst, 0x80|byte(n))
	case n < 1<<16:
		return append(dst, 0xde, byte(n>>8), byte(n))
	}
	return append(dst, 0xdf, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendStr(dst []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		dst = append(dst, 0xa0|byte(n))
	case n < 1<<8:
		dst = append(dst, 0xd9, byte(n))
	case n < 1<<16:
		dst = append(dst, 0xda, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(dst, s...)
}

type decoderState struct {
	r   bytes.Reader
	dec *msgpack.Decoder
}

var decoders = sync.Pool{New: func() any {
	return &decoderState{dec: msgpack.NewDecoder(nil)}
}}

// Decode turns one frame body (without the length prefix) into a typed
// message. It first runs the structural validation of Validate, so hostile
// bytes cannot make it allocate much more than the frame's size, then
// decodes into the struct the "t" tag names and checks the fields
// (required ids and names, enum values, JSON validity).
//
// Errors are *ProtocolError with Fatal false, carrying the message's Type
// and ID whenever they could be read, so the caller can answer with
// err.Reply(): bad_frame (structure), unknown_type, bad_field. The message
// does not alias frame: the caller may reuse the buffer.
func Decode(frame []byte) (Message, error) {
	var env envelope
	err := scanFrame(frame, &env)
	tag := knownTag(env.tag)
	if err != nil {
		return nil, withEnvelope(err, tag, env.id)
	}
	if env.tag == nil {
		return nil, &ProtocolError{Code: ErrCodeBadField, Message: "t: missing; every message needs a string type tag", ID: env.id}
	}
	if env.anyID && !env.hasID {
		return nil, &ProtocolError{Code: ErrCodeBadField, Message: "id: must be a positive integer", Type: tag}
	}
	newMsg, ok := newMessage[tag]
	if !ok {
		return nil, &ProtocolError{Code: ErrCodeUnknownType, Message: fmt.Sprintf("unknown message type %q", tag), Type: tag, ID: env.id}
	}
	m := newMsg()
	if !decodeFast(&env, m) {
		if err := decodeInto(frame, m); err != nil {
			return nil, &ProtocolError{Code: ErrCodeBadField, Message: "wrong field type: " + err.Error(), Type: tag, ID: env.id, Err: err}
		}
	}
	if err := m.check(true); err != nil {
		return nil, withEnvelope(err, tag, env.id)
	}
	return m, nil
}

func decodeInto(frame []byte, m Message) (err error) {
	st := decoders.Get().(*decoderState)
	st.r.Reset(frame)
	st.dec.Reset(&st.r) // flags cleared: no preallocation from declared lengths
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decoder panic: %v", p)
		}
		st.r.Reset(nil)
		st.dec.Reset(nil)
		decoders.Put(st)
	}()
	return st.dec.Decode(m)
}

// knownTag returns the canonical constant for a known tag (no allocation),
// else a copy of the raw tag cut to 64 bytes for error messages.
func knownTag(raw []byte) string {
	if raw == nil {
		return ""
	}
	if t, ok := tagNames[string(raw)]; ok {
		return t
	}
	if len(raw) > 64 {
		raw = raw[:64]
	}
	return string(raw)
}

var tagNames = func() map[string]string {
	m := make(map[string]string, len(newMessage))
	for t := range newMessage {
		m[t] = t
	}
	return m
}()

// idOf returns a message's request or reply id, 0 for events.
func idOf(m Message) uint64 {
	switch m := m.(type) {
	case Request:
		return m.RequestID()
	case Reply:
		return m.ReplyTo()
	case *ToolCancelled:
		return m.ID
	}
	return 0
}

// withEnvelope fills in Type and ID of a *ProtocolError when unset.
func withEnvelope(err error, t string, id uint64) error {
	if pe, ok := err.(*ProtocolError); ok {
		if pe.Type == "" {
			pe.Type = t
		}
		if pe.ID == 0 {
			pe.ID = id
		}
	}
	return err
}
