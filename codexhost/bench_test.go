package codexhost_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/codemode-host/codemode-host/internal/codexbin"
)

// BenchmarkV1ToolCall measures one awaited tool call of a cell over
// real pipes: delegate/request out, delegate/response in, the script's
// next call out; through `codemode-host codex-host` and, when test/codex
// has it, Codex's own codex-code-mode-host.
func BenchmarkV1ToolCall(b *testing.B) {
	b.Run("ours", func(b *testing.B) { benchToolCalls(b, openSession(b, nil, nil)) })
	b.Run("codex", func(b *testing.B) { benchToolCalls(b, openSessionOn(b, startPeer(b, codexbin.Host(b)), nil)) })
}

func benchToolCalls(b *testing.B, s *session) {
	echo := map[string]any{"name": "echo", "tool_name": map[string]any{"name": "echo", "namespace": nil},
		"description": "echo", "kind": "function", "input_schema": nil, "output_schema": nil}
	b.ResetTimer()
	s.send(map[string]any{"type": "operation/request", "id": 2, "request": map[string]any{"method": "session/execute", "sessionId": "s",
		"request": map[string]any{"tool_call_id": "c", "enabled_tools": []any{echo}, "yield_time_ms": 600000,
			"source": "for (let i = 0; i < " + strconv.Itoa(b.N) + "; i++) await tools.echo({i}); text('done')"}}})
	for {
		var f struct {
			Type    string
			ID      int64
			Request struct{ Type string }
		}
		if err := json.Unmarshal(s.next(), &f); err != nil {
			b.Fatal(err)
		}
		switch {
		case f.Type == "delegate/request" && f.Request.Type == "tool/invoke":
			s.send(map[string]any{"type": "delegate/response", "id": f.ID,
				"result": map[string]any{"status": "ok", "value": map[string]any{"type": "tool/result", "result": 1}}})
		case f.Type == "execute/initialResponse":
			return
		}
	}
}
