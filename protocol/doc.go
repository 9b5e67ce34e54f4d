// Package protocol is the wire protocol between a Code Mode parent (the
// agent that owns the tool registry) and codemode-host (the process that
// runs scripts in V8).
//
// A frame is a 4-byte big-endian length followed by one msgpack map. Every
// map carries a string type tag under the key "t"; requests carry a
// sender-chosen "id" (never 0) and replies echo it. docs/PROTOCOL.md is the
// language-neutral specification; this package is the Go implementation
// shared by the host and by the Go client.
//
// Reading: a [FrameReader] reads length-prefixed frames with a size cap
// checked before anything is allocated, and [Decode] turns one frame into a
// typed [Message] after an allocation-free structural validation pass
// ([Validate]) that bounds nesting depth, item counts and declared lengths.
// An error from FrameReader.ReadFrame means the byte stream is broken and the
// connection must be closed; an error from Decode fails only that message
// (reply with [ProtocolError.Reply] when it names an id).
//
// Writing: [Encode] and [AppendFrame] produce deterministic bytes (the type
// tag first, then the struct's fields in declaration order). A [FrameWriter]
// serves one goroutine; a [Sender] is safe from any goroutine, never blocks
// its callers on I/O, and writes every frame queued meanwhile with one write
// call.
//
// JSON values (tool inputs, tool results, schemas, store values) travel as
// JSON text inside msgpack bin; decoders accept str too. See [JSON rules] in
// docs/PROTOCOL.md.
//
// [JSON rules]: https://github.com/codemode-host/codemode-host/blob/main/docs/PROTOCOL.md#json-values
package protocol
