package codexhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The v1 messages, as Codex's host decodes them: every struct refuses
// unknown fields, envelopes are camelCase and payloads snake_case
// (/work/notes/codex-host/v1-messages.md).

var (
	clientTypes = []string{"connection/hello", "operation/request", "operation/cancel", "operation/yield", "delegate/response"}
	methods     = []string{"session/open", "session/execute", "session/wait", "session/terminate", "session/shutdown"}
)

// hello is connection/hello.
type hello struct {
	SupportedVersions    []json.Number `json:"supportedVersions"`
	RequiredCapabilities []string      `json:"requiredCapabilities"`
	OptionalCapabilities []string      `json:"optionalCapabilities"`
}

// limitsWire is session/open's cellExecutionLimits.
type limitsWire struct {
	MaxYieldTimeMS   *uint64 `json:"maxYieldTimeMs"`
	MaxHeapSizeBytes *uint64 `json:"maxHeapSizeBytes"`
}

// toolName is a tool's name and namespace.
type toolName struct {
	Name      string  `json:"name"`
	Namespace *string `json:"namespace"`
}

// toolDef is WireToolDefinition.
type toolDef struct {
	Name         string          `json:"name"`
	ToolName     toolName        `json:"tool_name"`
	Description  string          `json:"description"`
	Kind         string          `json:"kind"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
}

// executeReq is WireExecuteRequest.
type executeReq struct {
	ToolCallID      string    `json:"tool_call_id"`
	EnabledTools    []toolDef `json:"enabled_tools"`
	Source          string    `json:"source"`
	YieldTimeMS     *uint64   `json:"yield_time_ms"`
	MaxOutputTokens *uint64   `json:"max_output_tokens"`
}

// waitReq is WireWaitRequest.
type waitReq struct {
	CellID      string `json:"cell_id"`
	YieldTimeMS uint64 `json:"yield_time_ms"`
}

// request is a decoded operation/request.
type request struct {
	ID         int64
	Method     string
	SessionID  string
	Limits     *limitsWire
	Truncation string // "", "client" or "server"
	Execute    executeReq
	Wait       waitReq
	CellID     string
	// MaxOutputTokens is a wait's or terminate's output budget
	// (server-side truncation only).
	MaxOutputTokens *uint64
}

// delegateResp is a decoded delegate/response.
type delegateResp struct {
	ID     int64
	OK     bool
	Kind   string // tool/result or notification/delivered
	Result json.RawMessage
	Error  string
}

// message is one decoded client frame.
type message struct {
	Type     string
	Hello    *hello
	Request  *request
	ID       int64 // operation/cancel, operation/yield
	Delegate *delegateResp
}

// expected formats serde's list of what it expected.
func expected(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	switch len(q) {
	case 0:
		return "there are no fields"
	case 1:
		return "expected " + q[0]
	case 2:
		return "expected " + q[0] + " or " + q[1]
	}
	return "expected one of " + strings.Join(q, ", ")
}

// tagKeys are the tags of the internally tagged enums.
var tagKeys = []string{"type", "method", "status"}

// object splits a JSON object into its fields, checking them against
// the allowed names (tag included) and the required ones.
func object(raw json.RawMessage, allowed, required []string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, typeError(raw, "a map")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, jsonError(raw, err)
	}
	for k := range m {
		if !contains(allowed, k) {
			names := allowed
			if len(names) > 0 && contains(tagKeys, names[0]) {
				names = names[1:] // serde does not list an enum's tag
			}
			return nil, fmt.Errorf("unknown field `%s`, %s", k, expected(names))
		}
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("missing field `%s`", k)
		}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// typeError is serde's "invalid type" for a value that is not what was
// wanted.
func typeError(raw json.RawMessage, want string) error {
	raw = bytes.TrimSpace(raw)
	var got string
	switch {
	case len(raw) == 0:
		return fmt.Errorf("EOF while parsing a value")
	case raw[0] == '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		got = fmt.Sprintf("string %q", s)
	case raw[0] == '{':
		got = "map"
	case raw[0] == '[':
		got = "sequence"
	case string(raw) == "null":
		got = "null"
	case string(raw) == "true" || string(raw) == "false":
		got = "boolean `" + string(raw) + "`"
	case bytes.ContainsAny(raw, ".eE"):
		got = "floating point `" + string(raw) + "`"
	default:
		got = "integer `" + string(raw) + "`"
	}
	return fmt.Errorf("invalid type: %s, expected %s", got, want)
}

// jsonError turns encoding/json's syntax error into serde's wording
// where they agree on the cause.
func jsonError(b []byte, err error) error {
	if se, ok := err.(*json.SyntaxError); ok {
		line, col := lineCol(b, int(se.Offset))
		if strings.Contains(se.Error(), "unexpected end") {
			return fmt.Errorf("EOF while parsing a value at line %d column %d", line, col)
		}
		return fmt.Errorf("%s at line %d column %d", se.Error(), line, col)
	}
	return err
}

// lineCol is serde_json's 1-based line and column of byte offset off.
func lineCol(b []byte, off int) (int, int) {
	off = min(off, len(b))
	nl := bytes.LastIndexByte(b[:off], '\n')
	return bytes.Count(b[:off], []byte("\n")) + 1, off - nl - 1
}

// afterTopValue is the offset just past the value of the top-level key
// (for an array, its first element): where serde_json reports an error in
// an enum's tag.
func afterTopValue(b []byte, key string) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return 0
	}
	if t == json.Delim('[') {
		_, _ = dec.Token()
		return int(dec.InputOffset())
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0
		}
		if k == key {
			return int(dec.InputOffset())
		}
	}
	return 0
}

// str decodes a required string field.
func str(m map[string]json.RawMessage, k string) (string, error) {
	var s string
	if err := json.Unmarshal(m[k], &s); err != nil {
		return "", typeError(m[k], "a string")
	}
	return s, nil
}

// ident decodes a non-blank identifier (session ids, capabilities).
func ident(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", typeError(raw, "a string")
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("identifier must not be empty")
	}
	return s, nil
}

// i64 decodes a RequestId.
func i64(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	isNum := len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
	if isNum && bytes.ContainsAny(raw, ".eE") {
		// Codex's host buffers the tagged enum, and a buffered float
		// id reaches serde as a map: its words for 1.5.
		return 0, fmt.Errorf("invalid type: map, expected i64")
	}
	if !isNum {
		return 0, typeError(raw, "i64")
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid value: integer `%s`, expected i64", raw)
	}
	return n, nil
}

// u64 decodes an optional unsigned integer (null is absent).
func u64(raw json.RawMessage) (*uint64, error) {
	raw = bytes.TrimSpace(raw)
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return nil, typeError(raw, "u64")
	}
	return &n, nil
}

// tag reads an internally tagged enum's tag.
func tag(m map[string]json.RawMessage, key string, variants []string) (string, error) {
	if _, ok := m[key]; !ok {
		return "", fmt.Errorf("missing field `%s`", key)
	}
	t, err := str(m, key)
	if err != nil {
		return "", err
	}
	if !contains(variants, t) {
		return "", fmt.Errorf("unknown variant `%s`, %s", t, expected(variants))
	}
	return t, nil
}

// decode decodes one client frame; its errors are the fatal decode
// errors (their text follows serde's where it can).
func decode(frame []byte) (*message, error) {
	b := bytes.TrimSpace(frame)
	if len(b) == 0 {
		return nil, fmt.Errorf("EOF while parsing a value at line 1 column 0")
	}
	if b[0] != '{' {
		if !json.Valid(b) {
			var v any
			return nil, jsonError(frame, json.Unmarshal(frame, &v))
		}
		if b[0] == '[' {
			var arr []json.RawMessage
			_ = json.Unmarshal(b, &arr)
			if len(arr) > 0 {
				line, col := lineCol(frame, afterTopValue(frame, ""))
				return nil, fmt.Errorf("%w at line %d column %d", typeError(arr[0], "variant identifier"), line, col)
			}
		}
		return nil, typeError(b, "internally tagged enum ClientToHost")
	}
	if !json.Valid(b) {
		var v any
		return nil, jsonError(frame, json.Unmarshal(frame, &v))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, jsonError(frame, err)
	}
	t, err := tag(top, "type", clientTypes)
	if err != nil {
		if _, ok := top["type"]; ok {
			line, col := lineCol(frame, afterTopValue(frame, "type"))
			return nil, fmt.Errorf("%w at line %d column %d", err, line, col)
		}
		return nil, err
	}
	msg := &message{Type: t}
	switch t {
	case "connection/hello":
		m, err := object(b, []string{"type", "supportedVersions", "requiredCapabilities", "optionalCapabilities"},
			[]string{"supportedVersions", "requiredCapabilities", "optionalCapabilities"})
		if err != nil {
			return nil, err
		}
		h, err := decodeHello(m)
		if err != nil {
			return nil, err
		}
		msg.Hello = h
	case "operation/request":
		m, err := object(b, []string{"type", "id", "request"}, []string{"id", "request"})
		if err != nil {
			return nil, err
		}
		id, err := i64(m["id"])
		if err != nil {
			return nil, err
		}
		r, err := decodeRequest(m["request"])
		if err != nil {
			return nil, err
		}
		r.ID = id
		msg.Request = r
	case "operation/cancel", "operation/yield":
		m, err := object(b, []string{"type", "id"}, []string{"id"})
		if err != nil {
			return nil, err
		}
		if msg.ID, err = i64(m["id"]); err != nil {
			return nil, err
		}
	case "delegate/response":
		m, err := object(b, []string{"type", "id", "result"}, []string{"id", "result"})
		if err != nil {
			return nil, err
		}
		id, err := i64(m["id"])
		if err != nil {
			return nil, err
		}
		d, err := decodeDelegate(m["result"])
		if err != nil {
			return nil, err
		}
		d.ID = id
		msg.Delegate = d
	}
	return msg, nil
}

// seq decodes a JSON array (null is not one).
func seq(raw json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' || json.Unmarshal(t, &items) != nil {
		return nil, typeError(raw, "a sequence")
	}
	return items, nil
}

func decodeHello(m map[string]json.RawMessage) (*hello, error) {
	h := &hello{}
	versions, err := seq(m["supportedVersions"])
	if err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("at least one protocol version is required")
	}
	seen := map[uint64]bool{}
	for _, v := range versions {
		n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 32)
		if err != nil {
			return nil, typeError(v, "a nonzero u32")
		}
		if n == 0 {
			return nil, fmt.Errorf("invalid value: integer `0`, expected a nonzero u32")
		}
		if seen[n] {
			return nil, fmt.Errorf("duplicate protocol version %d", n)
		}
		seen[n] = true
		h.SupportedVersions = append(h.SupportedVersions, json.Number(strconv.FormatUint(n, 10)))
	}
	all := map[string]bool{}
	for _, f := range []struct {
		key string
		dst *[]string
	}{{"requiredCapabilities", &h.RequiredCapabilities}, {"optionalCapabilities", &h.OptionalCapabilities}} {
		caps, err := seq(m[f.key])
		if err != nil {
			return nil, err
		}
		local := map[string]bool{}
		for _, c := range caps {
			s, err := ident(c)
			if err != nil {
				return nil, err
			}
			if local[s] {
				return nil, fmt.Errorf("duplicate capability `%s`", s)
			}
			local[s] = true
			if all[s] {
				return nil, fmt.Errorf("capability `%s` cannot be both required and optional", s)
			}
			*f.dst = append(*f.dst, s)
		}
		for s := range local {
			all[s] = true
		}
	}
	return h, nil
}

func decodeRequest(raw json.RawMessage) (*request, error) {
	top, err := object(raw, []string{"method", "sessionId", "cellExecutionLimits", "outputTruncation", "request", "cellId", "maxOutputTokens"}, nil)
	if err != nil && !strings.HasPrefix(err.Error(), "unknown field") {
		return nil, err
	}
	if top == nil {
		_ = json.Unmarshal(raw, &top)
	}
	method, err := tag(top, "method", methods)
	if err != nil {
		return nil, err
	}
	r := &request{Method: method}
	var fields, required []string
	switch method {
	case "session/open":
		fields, required = []string{"method", "sessionId", "cellExecutionLimits", "outputTruncation"}, []string{"sessionId"}
	case "session/execute":
		fields, required = []string{"method", "sessionId", "request"}, []string{"sessionId", "request"}
	case "session/wait":
		fields, required = []string{"method", "sessionId", "request", "maxOutputTokens"}, []string{"sessionId", "request"}
	case "session/terminate":
		fields, required = []string{"method", "sessionId", "cellId", "maxOutputTokens"}, []string{"sessionId", "cellId"}
	case "session/shutdown":
		fields, required = []string{"method", "sessionId"}, []string{"sessionId"}
	}
	m, err := object(raw, fields, required)
	if err != nil {
		return nil, err
	}
	if r.SessionID, err = ident(m["sessionId"]); err != nil {
		return nil, err
	}
	if r.MaxOutputTokens, err = u64(m["maxOutputTokens"]); err != nil {
		return nil, err
	}
	switch method {
	case "session/open":
		if l, ok := m["cellExecutionLimits"]; ok && string(bytes.TrimSpace(l)) != "null" {
			lm, err := object(l, []string{"maxYieldTimeMs", "maxHeapSizeBytes"}, nil)
			if err != nil {
				return nil, err
			}
			r.Limits = &limitsWire{}
			if r.Limits.MaxYieldTimeMS, err = u64(lm["maxYieldTimeMs"]); err != nil {
				return nil, err
			}
			if r.Limits.MaxHeapSizeBytes, err = u64(lm["maxHeapSizeBytes"]); err != nil {
				return nil, err
			}
		}
		if t, ok := m["outputTruncation"]; ok && string(bytes.TrimSpace(t)) != "null" {
			var s string
			if err := json.Unmarshal(t, &s); err != nil {
				return nil, typeError(t, "a string")
			}
			if s != "client" && s != "server" {
				return nil, fmt.Errorf("unknown variant `%s`, expected `client` or `server`", s)
			}
			r.Truncation = s
		}
	case "session/execute":
		em, err := object(m["request"], []string{"tool_call_id", "enabled_tools", "source", "yield_time_ms", "max_output_tokens"},
			[]string{"tool_call_id", "enabled_tools", "source"})
		if err != nil {
			return nil, err
		}
		e := &r.Execute
		if e.ToolCallID, err = str(em, "tool_call_id"); err != nil {
			return nil, err
		}
		if e.Source, err = str(em, "source"); err != nil {
			return nil, err
		}
		if e.YieldTimeMS, err = u64(em["yield_time_ms"]); err != nil {
			return nil, err
		}
		if e.MaxOutputTokens, err = u64(em["max_output_tokens"]); err != nil {
			return nil, err
		}
		tools, err := seq(em["enabled_tools"])
		if err != nil {
			return nil, err
		}
		for _, t := range tools {
			d, err := decodeTool(t)
			if err != nil {
				return nil, err
			}
			e.EnabledTools = append(e.EnabledTools, d)
		}
	case "session/wait":
		wm, err := object(m["request"], []string{"cell_id", "yield_time_ms"}, []string{"cell_id", "yield_time_ms"})
		if err != nil {
			return nil, err
		}
		if r.Wait.CellID, err = str(wm, "cell_id"); err != nil {
			return nil, err
		}
		y, err := u64(wm["yield_time_ms"])
		if err != nil {
			return nil, err
		}
		if y == nil {
			return nil, typeError(wm["yield_time_ms"], "u64")
		}
		r.Wait.YieldTimeMS = *y
	case "session/terminate":
		if r.CellID, err = str(m, "cellId"); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func decodeTool(raw json.RawMessage) (toolDef, error) {
	var d toolDef
	m, err := object(raw, []string{"name", "tool_name", "description", "kind", "input_schema", "output_schema"},
		[]string{"name", "tool_name", "description", "kind"})
	if err != nil {
		return d, err
	}
	if d.Name, err = str(m, "name"); err != nil {
		return d, err
	}
	if d.Description, err = str(m, "description"); err != nil {
		return d, err
	}
	if d.Kind, err = str(m, "kind"); err != nil {
		return d, err
	}
	if d.Kind != "function" && d.Kind != "freeform" {
		return d, fmt.Errorf("unknown variant `%s`, expected `function` or `freeform`", d.Kind)
	}
	tm, err := object(m["tool_name"], []string{"name", "namespace"}, []string{"name"})
	if err != nil {
		return d, err
	}
	if d.ToolName.Name, err = str(tm, "name"); err != nil {
		return d, err
	}
	if ns, ok := tm["namespace"]; ok && string(bytes.TrimSpace(ns)) != "null" {
		s, err := str(tm, "namespace")
		if err != nil {
			return d, err
		}
		d.ToolName.Namespace = &s
	}
	for k, dst := range map[string]*json.RawMessage{"input_schema": &d.InputSchema, "output_schema": &d.OutputSchema} {
		if v, ok := m[k]; ok && string(bytes.TrimSpace(v)) != "null" {
			*dst = v
		}
	}
	return d, nil
}

func decodeDelegate(raw json.RawMessage) (*delegateResp, error) {
	top, err := object(raw, []string{"status", "value", "message"}, nil)
	if err != nil {
		return nil, err
	}
	status, err := tag(top, "status", []string{"ok", "error"})
	if err != nil {
		return nil, err
	}
	d := &delegateResp{}
	if status == "error" {
		m, err := object(raw, []string{"status", "message"}, []string{"message"})
		if err != nil {
			return nil, err
		}
		if d.Error, err = str(m, "message"); err != nil {
			return nil, err
		}
		return d, nil
	}
	m, err := object(raw, []string{"status", "value"}, []string{"value"})
	if err != nil {
		return nil, err
	}
	d.OK = true
	vm, err := object(m["value"], []string{"type", "result"}, nil)
	if err != nil && !strings.HasPrefix(err.Error(), "unknown field") {
		return nil, err
	}
	if vm == nil {
		_ = json.Unmarshal(m["value"], &vm)
	}
	if d.Kind, err = tag(vm, "type", []string{"tool/result", "notification/delivered"}); err != nil {
		return nil, err
	}
	if d.Kind == "tool/result" {
		vm, err = object(m["value"], []string{"type", "result"}, []string{"result"})
		if err != nil {
			return nil, err
		}
		d.Result = vm["result"]
	} else if _, err = object(m["value"], []string{"type"}, nil); err != nil {
		return nil, err
	}
	return d, nil
}
