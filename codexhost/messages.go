package codexhost

import "encoding/json"

// The host's v1 frames, in the field order Codex's host writes them.

type readyMsg struct {
	Type            string   `json:"type"`
	SelectedVersion int      `json:"selectedVersion"`
	Capabilities    []string `json:"capabilities"`
}

type rejectedMsg struct {
	Type   string `json:"type"`
	Reason any    `json:"reason"`
}

type rejectVersion struct {
	Type              string `json:"type"`
	SupportedVersions []int  `json:"supportedVersions"`
}

type rejectCapability struct {
	Type       string `json:"type"`
	Capability string `json:"capability"`
}

type rejectHello struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// idMsg is operation/response and execute/initialResponse.
type idMsg struct {
	Type   string `json:"type"`
	ID     int64  `json:"id"`
	Result any    `json:"result"`
}

type okResult struct {
	Status string `json:"status"`
	Value  any    `json:"value"`
}

type errResult struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

type sessionValue struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
}

type startedValue struct {
	Type   string `json:"type"`
	CellID string `json:"cellId"`
}

type waitValue struct {
	Type    string         `json:"type"`
	Outcome map[string]any `json:"outcome"`
}

type delegateMsg struct {
	Type      string `json:"type"`
	ID        int64  `json:"id"`
	SessionID string `json:"sessionId"`
	Request   any    `json:"request"`
}

type toolInvoke struct {
	Type       string     `json:"type"`
	Invocation invocation `json:"invocation"`
}

type invocation struct {
	CellID            string          `json:"cell_id"`
	RuntimeToolCallID string          `json:"runtime_tool_call_id"`
	ToolName          toolName        `json:"tool_name"`
	ToolKind          string          `json:"tool_kind"`
	Input             json.RawMessage `json:"input"`
}

type notificationSend struct {
	Type   string `json:"type"`
	CallID string `json:"callId"`
	CellID string `json:"cellId"`
	Text   string `json:"text"`
}

type cancelMsg struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

type closedMsg struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	CellID    string `json:"cellId"`
}

// contentItem is WireContentItem.
type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// MarshalJSON writes an input_text with its text even when empty, as
// Codex's host does (text("") is {"type":"input_text","text":""}), and
// an input_image with its URL and detail.
func (c contentItem) MarshalJSON() ([]byte, error) {
	if c.Type == "input_image" {
		return json.Marshal(struct {
			Type     string `json:"type"`
			ImageURL string `json:"image_url"`
			Detail   string `json:"detail"`
		}{c.Type, c.ImageURL, c.Detail})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{c.Type, c.Text})
}

// liveBody is the body of Yielded and Terminated.
type liveBody struct {
	CellID       string        `json:"cell_id"`
	ContentItems []contentItem `json:"content_items"`
	DurationNS   int64         `json:"code_mode_host_duration_ns"`
}

// resultBody is the body of Result.
type resultBody struct {
	CellID       string        `json:"cell_id"`
	ContentItems []contentItem `json:"content_items"`
	ErrorText    *string       `json:"error_text"`
	BufferedNS   int64         `json:"result_buffered_for_ns"`
	DurationNS   int64         `json:"code_mode_host_duration_ns"`
}

func ok(v any) okResult { return okResult{Status: "ok", Value: v} }

func fail(msg string) errResult { return errResult{Status: "error", Message: msg} }
