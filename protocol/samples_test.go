package protocol

import "encoding/json"

// samples holds one representative message per wire type. The golden
// files under testdata/golden pin their encodings; the fuzz targets and
// benchmarks start from them.
func samples() []Message {
	return []Message{
		&Hello{ID: 1, Versions: []uint32{1}, Capabilities: []string{CapStreamOutput, CapStore}, MaxFrame: 8 << 20, Client: "codemode-bridge/0.1.0"},
		&HelloOK{ID: 1, Version: 1, Capabilities: []string{CapStreamOutput, CapStore}, Limits: DefaultLimits, V8Version: "10.9.194.9", HostVersion: "0.1.0"},
		&HelloRejected{ID: 1, Reason: RejectNoCommonVersion, Message: "no protocol version in common: the host speaks [1]; upgrade the parent's client", Versions: []uint32{1}},
		&OpenSession{ID: 2, Session: "s1", Limits: &Limits{WallTimeMS: 60_000, HeapMiB: 128}, Store: []StoreEntry{{Key: "seen", Value: json.RawMessage(`[1,2]`)}}},
		&SessionOpened{ID: 2, Session: "s1", Limits: DefaultLimits.Merge(Limits{WallTimeMS: 60_000, HeapMiB: 128})},
		&CloseSession{ID: 9, Session: "s1"},
		&SessionClosed{ID: 9, Session: "s1"},
		&Exec{
			ID: 3, Session: "s1", Language: LangJS, YieldMS: 5000,
			Source: "const r = await tools.search({query: \"go\"});\ntext(r.hits.length);",
			Tools: []ToolDef{{
				Name: "search", Description: "Search the docs.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
			}},
		},
		&ExecStarted{ID: 3, Session: "s1", Cell: "c1"},
		&Wait{ID: 5, Session: "s1", Cell: "c1", YieldMS: 10_000},
		&Terminate{ID: 6, Session: "s1", Cell: "c1"},
		&Cancel{Target: 5},
		&CellResult{
			ID: 3, Session: "s1", Cell: "c1", Status: StatusCompleted,
			Items: []Item{{Type: ItemText, Text: "searching", Level: "log"}, {Type: ItemText, Text: "2"}},
			Stats: Stats{WallMS: 1.5, CPUMS: 0.25, HeapPeak: 1 << 20, ToolCalls: 1},
		},
		&CellClosed{Session: "s1", Cell: "c1"},
		&Notify{Session: "s1", Cell: "c1", Text: "halfway there"},
		&Output{Session: "s1", Cell: "c1", Items: []Item{{Type: ItemText, Text: "searching", Level: "log"}}},
		&ToolCallRequest{ID: 1, ToolCall: ToolCall{SessionID: "s1", CellID: "c1", CallID: 1, Name: "search", Kind: KindFunction, Input: json.RawMessage(`{"query":"go"}`)}},
		&ToolResult{ID: 1, Value: json.RawMessage(`{"hits":["a","b"]}`)},
		&ToolCancelled{ID: 1, Session: "s1", Cell: "c1", Call: 1},
		&Ping{ID: 7},
		&Pong{ID: 7},
		&Shutdown{GraceMS: 2000},
		&ErrorReply{ID: 4, Code: ErrCodeUnknownSession, Message: "no open session \"s9\"; open it with session.open first", FailedType: TypeExec},
	}
}

// sampleOf returns the sample of type t.
func sampleOf(t string) Message {
	for _, m := range samples() {
		if m.Type() == t {
			return m
		}
	}
	panic("no sample for " + t)
}

// toolErrorResult is a failed tool.result (not in the golden set's main
// list because the type is already pinned; it gets its own golden file).
func toolErrorResult() *ToolResult {
	return &ToolResult{ID: 2, Error: &ToolError{Code: CodeDenied, Message: "the user denied the call", Tool: "search"}}
}

// variantSamples are further frames of types already pinned, each with its
// own golden file named <t>.<variant>: the shapes docs/PROTOCOL.md cites
// for a rule.
func variantSamples() map[string]Message {
	return map[string]Message{
		// A request whose id could not be read: an error with no id, a
		// notice that answers no request.
		"error.notice": &ErrorReply{Code: ErrCodeBadField, Message: "id: must be a positive integer", FailedType: TypeExec},
		// A ping reusing the id of an exec still in flight: the error
		// answers the ping only.
		"error.duplicate": &ErrorReply{ID: 3, Code: ErrCodeDuplicateID,
			Message:    "request id 3 is still in flight (exec, not answered yet); this error answers only this ping: send it again with a fresh id",
			FailedType: TypePing},
		// The host's answer to a first frame over the cap, before it
		// closes: no id (the body was never read).
		"error.toolarge": &ErrorReply{Code: ErrCodeTooLarge, Message: "frame of 9000000 bytes exceeds the 8388608-byte cap"},
		// A model's wait: output and notify do not answer it.
		"wait.quiet": &Wait{ID: 6, Session: "s1", Cell: "c1", YieldMS: 300_000, Quiet: true},
		// A result whose cell deleted "draft" (no value) and stored "seen".
		"cell.result.store": &CellResult{
			ID: 3, Session: "s1", Cell: "c2", Status: StatusCompleted,
			Stats: Stats{WallMS: 1.5, CPUMS: 0.25, HeapPeak: 1 << 20},
			Store: []StoreEntry{{Key: "draft"}, {Key: "seen", Value: json.RawMessage(`[1,2,3]`)}},
		},
	}
}
