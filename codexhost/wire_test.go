package codexhost

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzDecode checks that no client frame panics the decoder and that a
// decoded one is a known message with what its type needs. The seeds
// are every client frame of the recorded exchanges.
func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "v1", "*.jsonl"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var e struct {
				Dir   string          `json:"dir"`
				Frame json.RawMessage `json:"frame"`
			}
			if json.Unmarshal(line, &e) == nil && e.Dir == "client->host" && e.Frame != nil {
				f.Add([]byte(e.Frame))
			}
		}
	}
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := decode(frame)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if !slices.Contains(clientTypes, m.Type) {
			t.Fatalf("decoded an unknown type %q", m.Type)
		}
		switch m.Type {
		case "connection/hello":
			if m.Hello == nil || len(m.Hello.SupportedVersions) == 0 {
				t.Fatal("a hello without versions")
			}
		case "operation/request":
			if m.Request == nil || !slices.Contains(methods, m.Request.Method) || m.Request.SessionID == "" {
				t.Fatalf("a bad request: %+v", m.Request)
			}
		case "delegate/response":
			if m.Delegate == nil {
				t.Fatal("a delegate response without its result")
			}
		}
	})
}

// TestDecodeErrors checks serde's words for frames the traces do not
// cover.
func TestDecodeErrors(t *testing.T) {
	for frame, want := range map[string]string{
		`{"type":"operation/cancel"}`: "missing field `id`",
		`{"type":"operation/request","id":1,"request":{"method":"session/wait","sessionId":"s","request":{"cell_id":"1"}}}`: "missing field `yield_time_ms`",
		`{"type":"delegate/response","id":1,"result":{"status":"maybe"}}`:                                                   "unknown variant `maybe`, expected `ok` or `error`",
		`{"type":"operation/request","id":1,"request":{"method":"session/execute","sessionId":"s","request":{"tool_call_id":"c","enabled_tools":[{"name":"a","tool_name":{"name":"a"},"description":"","kind":"magic"}],"source":""}}}`: "unknown variant `magic`, expected `function` or `freeform`",
		"{\n\"type\": ": "EOF while parsing a value at line 2 column 8",
		`{"type":"connection/hello","supportedVersions":null,"requiredCapabilities":[],"optionalCapabilities":[]}`: "invalid type: null, expected a sequence",
	} {
		if _, err := decode([]byte(frame)); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", frame, err, want)
		}
	}
}
