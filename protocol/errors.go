package protocol

import (
	"errors"
	"fmt"
	"io"
)

// ErrorCode is a protocol error code: a closed set, spelled the same on the
// wire (ErrorReply.Code) and in Go (ProtocolError.Code).
type ErrorCode string

// Protocol error codes.
const (
	// ErrCodeBadFrame: the frame is not one well-formed msgpack map (bad
	// length prefix, truncated value, trailing bytes, nesting deeper than
	// MaxDepth, more than MaxItems values, a non-string map key, an ext
	// type, invalid UTF-8 in a str).
	ErrCodeBadFrame ErrorCode = "bad_frame"
	// ErrCodeUnknownType: the "t" tag names no message this side knows.
	ErrCodeUnknownType ErrorCode = "unknown_type"
	// ErrCodeBadField: a field is missing, has the wrong msgpack type or an
	// invalid value (for example a request without an id, or bad JSON).
	ErrCodeBadField ErrorCode = "bad_field"
	// ErrCodeUnsupportedVersion: no protocol version in common.
	ErrCodeUnsupportedVersion ErrorCode = "unsupported_version"
	// ErrCodeHandshakeRequired: a message other than hello arrived before the
	// handshake finished.
	ErrCodeHandshakeRequired ErrorCode = "handshake_required"
	// ErrCodeUnexpected: a well-formed message that is not valid now or from
	// this side (a second hello, a host-to-parent message sent to the host).
	ErrCodeUnexpected ErrorCode = "unexpected"
	// ErrCodeDuplicateID: a request reused an id that is still in flight.
	ErrCodeDuplicateID ErrorCode = "duplicate_id"
	// ErrCodeUnknownSession: no open session has that id.
	ErrCodeUnknownSession ErrorCode = "unknown_session"
	// ErrCodeSessionExists: session.open named a session that is already open.
	ErrCodeSessionExists ErrorCode = "session_exists"
	// ErrCodeUnknownCell: the session has no live cell with that id (it
	// finished and was closed, or it belonged to a previous host process).
	ErrCodeUnknownCell ErrorCode = "unknown_cell"
	// ErrCodeLimitExceeded: a Limits value refused the request (too many
	// sessions or cells, source too long).
	ErrCodeLimitExceeded ErrorCode = "limit_exceeded"
	// ErrCodeTooLarge: a frame, or the reply to a request, exceeds the
	// negotiated frame size. The encoder also refuses with it a message that
	// holds more than MaxItems values (the decoder's bound): either way the
	// sender should send a smaller message instead.
	ErrCodeTooLarge ErrorCode = "too_large"
	// ErrCodeShuttingDown: the host is shutting down and takes no new work.
	ErrCodeShuttingDown ErrorCode = "shutting_down"
	// ErrCodeInternal: a bug or an unexpected failure on the replying side.
	ErrCodeInternal ErrorCode = "internal"
)

// Valid reports whether c is one of the codes above.
func (c ErrorCode) Valid() bool {
	switch c {
	case ErrCodeBadFrame, ErrCodeUnknownType, ErrCodeBadField, ErrCodeUnsupportedVersion,
		ErrCodeHandshakeRequired, ErrCodeUnexpected, ErrCodeDuplicateID,
		ErrCodeUnknownSession, ErrCodeSessionExists, ErrCodeUnknownCell,
		ErrCodeLimitExceeded, ErrCodeTooLarge, ErrCodeShuttingDown, ErrCodeInternal:
		return true
	}
	return false
}

// ErrProtocol matches every *ProtocolError with errors.Is.
var ErrProtocol = errors.New("protocol error")

// ProtocolError is an error in the wire protocol: a broken frame, a bad
// message, or an error reply received from the peer.
//
// errors.Is(err, ErrProtocol) matches any ProtocolError, and
// errors.Is(err, &ProtocolError{Code: c}) matches one with code c.
type ProtocolError struct {
	// Code is one of the ErrCode* constants.
	Code ErrorCode
	// Message says what went wrong, for humans.
	Message string
	// Type is the "t" of the offending message, when it could be read.
	Type string
	// ID is the "id" of the offending message, 0 when it had none or it
	// could not be read.
	ID uint64
	// Fatal is true when the byte stream itself is broken (bad length
	// prefix, truncated frame): the connection must be closed.
	Fatal bool
	// Err is the underlying cause, if any (for example io.ErrUnexpectedEOF).
	Err error
}

// Error returns "protocol: <code>: <message>" with the type and id when known.
func (e *ProtocolError) Error() string {
	s := "protocol: " + string(e.Code) + ": " + e.Message
	switch {
	case e.Type != "" && e.ID != 0:
		s += fmt.Sprintf(" (t=%q id=%d)", e.Type, e.ID)
	case e.Type != "":
		s += fmt.Sprintf(" (t=%q)", e.Type)
	case e.ID != 0:
		s += fmt.Sprintf(" (id=%d)", e.ID)
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *ProtocolError) Unwrap() error { return e.Err }

// Is reports whether target is ErrProtocol, or a *ProtocolError whose Code
// is empty or equal to e.Code.
func (e *ProtocolError) Is(target error) bool {
	if target == ErrProtocol {
		return true
	}
	t, ok := target.(*ProtocolError)
	return ok && (t.Code == "" || t.Code == e.Code)
}

// Reply is the error message to send back for e: it echoes e.ID and e.Type.
// A reply with ID 0 answers no request; send it only when the receiver
// should log it (for example just before closing on a fatal error).
func (e *ProtocolError) Reply() *ErrorReply {
	return &ErrorReply{ID: e.ID, Code: e.Code, Message: e.Message, FailedType: e.Type}
}

// Err turns an error reply received from the peer into a *ProtocolError.
func (m *ErrorReply) Err() *ProtocolError {
	return &ProtocolError{Code: m.Code, Message: m.Message, Type: m.FailedType, ID: m.ID}
}

// IsFatal reports whether err is a *ProtocolError that breaks the
// connection, or any non-protocol error (an I/O error): either way the
// connection can't be used any more. io.EOF is not fatal: it is the clean
// end of the stream, and nil is not fatal.
func IsFatal(err error) bool {
	if err == nil || errors.Is(err, io.EOF) {
		return false
	}
	var pe *ProtocolError
	if errors.As(err, &pe) {
		return pe.Fatal
	}
	return true
}

func errorf(code ErrorCode, format string, args ...any) *ProtocolError {
	return &ProtocolError{Code: code, Message: fmt.Sprintf(format, args...)}
}
