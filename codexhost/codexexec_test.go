package codexhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-host/codemode-host/internal/codexbin"
	"github.com/codemode-host/codemode-host/internal/testhost"
)

// replayModel is a Responses API on 127.0.0.1 that plays a model: its
// first turn calls exec with source, and once a request carries the
// exec's output it answers with a message. It keeps that request's
// input.
type replayModel struct {
	source string
	wait   bool // answer the exec's output with a wait on its cell
	mu     sync.Mutex
	// outputs are the custom_tool_call_output items of the first
	// request that has them; waited the wait's function_call_output.
	outputs []json.RawMessage
	waited  json.RawMessage
}

var cellIDRE = regexp.MustCompile(`cell ID (\w+)`)

func (m *replayModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model string            `json:"model"`
		Input []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	var item map[string]any
	var outputs []json.RawMessage
	var waited json.RawMessage
	for _, in := range req.Input {
		var x struct{ Type string }
		if json.Unmarshal(in, &x) == nil && x.Type == "custom_tool_call_output" {
			outputs = append(outputs, in)
		}
		if x.Type == "function_call_output" {
			waited = in
		}
	}
	message := map[string]any{"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": "done", "annotations": []any{}}}}
	switch {
	case waited != nil:
		item = message
	case outputs != nil && m.wait:
		cell := "?"
		if sub := cellIDRE.FindSubmatch(outputs[0]); sub != nil {
			cell = string(sub[1])
		}
		args, _ := json.Marshal(map[string]any{"cell_id": cell, "yield_time_ms": 5000})
		item = map[string]any{"type": "function_call", "id": "fc_1", "status": "completed", "call_id": "call_wait_1", "name": "wait", "arguments": string(args)}
	case outputs != nil:
		item = message
	}
	m.mu.Lock()
	if m.outputs == nil {
		m.outputs = outputs
	}
	if m.waited == nil {
		m.waited = waited
	}
	m.mu.Unlock()
	if item == nil {
		item = map[string]any{"type": "custom_tool_call", "id": "ctc_1", "status": "completed", "call_id": "call_exec_1", "name": "exec", "input": m.source}
	}
	resp := map[string]any{"id": "resp_1", "object": "response", "created_at": time.Now().Unix(), "status": "in_progress", "model": req.Model, "output": []any{}}
	done := map[string]any{}
	for k, v := range resp {
		done[k] = v
	}
	done["status"], done["output"] = "completed", []any{item}
	done["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	w.Header().Set("content-type", "text/event-stream")
	for i, e := range []map[string]any{
		{"type": "response.created", "response": resp},
		{"type": "response.output_item.added", "output_index": 0, "item": item},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": done},
	} {
		e["sequence_number"] = i
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e["type"], b)
	}
}

// TestCodexExecRunsOnOurHost runs the real `codex exec` (test/codex)
// with protocol v1 (code_mode_host_grpc = false) and our binary in the
// place of its codex-code-mode-host, the model replayed from
// 127.0.0.1, and checks what codex hands the model back from our host:
// its own header, the script's output and the host's "Script error:".
func TestCodexExecRunsOnOurHost(t *testing.T) {
	// searchTools is ours alone: "function" shows our host ran the cell.
	model := &replayModel{source: `text("hello from exec"); text(typeof searchTools); notify("progress"); throw new Error("boom at end")`}
	runCodexExec(t, model, false)
	checkExecOutputs(t, model)
}

// TestCodexExecRunsOnOurHostGRPC is the same run on codex's default
// transport: `--listen grpc+stdio://`, gRPC over the pipe pair.
func TestCodexExecRunsOnOurHostGRPC(t *testing.T) {
	model := &replayModel{source: `text("hello from exec"); text(typeof searchTools); notify("progress"); throw new Error("boom at end")`}
	runCodexExec(t, model, true)
	checkExecOutputs(t, model)
}

// TestCodexExecNestedToolOnOurHostGRPC has a cell call one of codex's
// own tools over gRPC: the ToolCall on codex's subscription, its
// CompleteToolCall, the result back in the cell.
func TestCodexExecNestedToolOnOurHostGRPC(t *testing.T) {
	model := &replayModel{source: `text("hi"); const r = await tools.exec_command({cmd: "echo nested"}); ` +
		`text(JSON.stringify(r).includes("nested") ? "nested ok" : JSON.stringify(r))`}
	runCodexExec(t, model, true)
	if texts := outputTexts(t, model.outputs[0]); len(texts) != 3 || !strings.HasPrefix(texts[0], "Script completed\n") || texts[1] != "hi" || texts[2] != "nested ok" {
		t.Errorf("what codex gave the model from our host: %q", texts)
	}
}

// checkExecOutputs checks what codex gave the model for the run of
// TestCodexExecRunsOnOurHost.
func checkExecOutputs(t *testing.T, model *replayModel) {
	t.Helper()
	texts := outputTexts(t, model.outputs[0])
	if len(texts) != 4 || !strings.HasPrefix(texts[0], "Script failed\nWall time ") || texts[1] != "hello from exec" || texts[2] != "function" ||
		texts[3] != "Script error:\nError: boom at end\n    at exec_main.mjs:1:78" {
		t.Errorf("what codex gave the model from our host: %q", texts)
	}
	// The notification reaches the model as a second output of the
	// same call, as with Codex's host.
	var note struct {
		CallID string `json:"call_id"`
		Output string
	}
	if len(model.outputs) != 2 || json.Unmarshal(model.outputs[1], &note) != nil || note.CallID != "call_exec_1" || note.Output != "progress" {
		t.Errorf("the notification: %s", model.outputs)
	}
}

// TestCodexExecWaitsOnOurHost is the yield-and-wait round of codex
// exec on our host: the exec pragma's yield time, codex's "Script
// running with cell ID" and the model's wait tool.
func TestCodexExecWaitsOnOurHost(t *testing.T) {
	for _, grpc := range []bool{false, true} {
		t.Run(map[bool]string{false: "v1", true: "grpc"}[grpc], func(t *testing.T) { codexExecWaits(t, grpc) })
	}
}

func codexExecWaits(t *testing.T, grpc bool) {
	model := &replayModel{wait: true, source: "// @exec: {\"yield_time_ms\": 500}\n" +
		`text("start"); await new Promise(r => setTimeout(r, 1500)); text("end")`}
	runCodexExec(t, model, grpc)
	if texts := outputTexts(t, model.outputs[0]); len(texts) != 2 || !strings.HasPrefix(texts[0], "Script running with cell ID 1\n") || texts[1] != "start" {
		t.Errorf("the exec's output: %q", texts)
	}
	if model.waited == nil {
		t.Fatal("codex never sent the wait's output back")
	}
	if texts := outputTexts(t, model.waited); len(texts) != 2 || !strings.HasPrefix(texts[0], "Script completed\n") || texts[1] != "end" {
		t.Errorf("the wait's output: %q", texts)
	}
}

// outputTexts returns the texts of a tool call output item.
func outputTexts(t *testing.T, item json.RawMessage) []string {
	t.Helper()
	var got struct {
		Output []struct{ Type, Text string }
	}
	if err := json.Unmarshal(item, &got); err != nil {
		t.Fatalf("%v: %s", err, item)
	}
	var texts []string
	for _, it := range got.Output {
		texts = append(texts, it.Text)
	}
	return texts
}

// runCodexExec runs codex exec against model, its host our binary, on
// gRPC (codex's default) or v1.
func runCodexExec(t *testing.T, model *replayModel, grpc bool) {
	t.Helper()
	runCodexExecWith(t, model, grpc, testhost.Bin(t))
}

// runCodexExecWith runs codex exec against model with host as its
// codex-code-mode-host: ours, or Codex's own.
func runCodexExecWith(t *testing.T, model *replayModel, grpc bool, host string) {
	t.Helper()
	codex := codexbin.Codex(t)
	dir := t.TempDir()
	// codex starts the host next to its own executable: a hard link (or a
	// copy, across file systems) of it in dir, beside the host under the
	// host's name.
	if err := linkOrCopy(codex, filepath.Join(dir, "codex")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(dir, "codex-code-mode-host")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = "replay-model"
model_provider = "replay"
approval_policy = "never"
sandbox_mode = "danger-full-access"
suppress_unstable_features_warning = true

[model_providers.replay]
name = "replay"
base_url = "http://%s/v1"
wire_api = "responses"
env_key = "REPLAY_API_KEY"

[features]
code_mode = true
code_mode_host_grpc = %t
`, ln.Addr(), grpc)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "codex"), "exec", "--skip-git-repo-check", "--json", "run some code")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "REPLAY_API_KEY=dummy")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	if len(model.outputs) == 0 {
		t.Fatalf("codex never sent the exec's output back to the model\n%s", out)
	}
}

// linkOrCopy hard-links src to dst, or copies it (executable) when they
// are on different file systems.
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

// wallTime is the header's wall time, which differs from run to run.
var wallTime = regexp.MustCompile(`Wall time [0-9.]+ seconds`)

// sameAsCodex runs model's cell through codex exec twice, with Codex's own
// host and with ours, and checks that the model got the same outputs
// (ids and wall times aside): the exec's, the wait's if it waited, and
// the notifications.
func sameAsCodex(t *testing.T, grpc bool, source string, wait bool) {
	t.Helper()
	// norm drops what codex itself makes up per run: the item's id and
	// the wall time.
	norm := func(item json.RawMessage) string {
		var m map[string]any
		if err := json.Unmarshal(item, &m); err != nil {
			t.Fatalf("%v: %s", err, item)
		}
		delete(m, "id")
		b, _ := json.Marshal(m)
		return wallTime.ReplaceAllString(string(b), "Wall time <t> seconds")
	}
	run := func(host string) (outs []string) {
		model := &replayModel{source: source, wait: wait}
		runCodexExecWith(t, model, grpc, host)
		for _, o := range model.outputs {
			outs = append(outs, norm(o))
		}
		if model.waited != nil {
			outs = append(outs, norm(model.waited))
		}
		return outs
	}
	theirs := run(codexbin.Host(t))
	ours := run(testhost.Bin(t))
	if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
		t.Errorf("the model got from our host:\n%s\nfrom Codex's host:\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
	}
}

// TestCodexExecSameAsCodexHost is issue #22's end-to-end check: for text
// output, a call to one of codex's own tools, Promise.all, a yielded cell
// and a wait, and a thrown error, the unmodified codex exec hands the
// model the same outputs from our host as from its own, on gRPC and on v1.
func TestCodexExecSameAsCodexHost(t *testing.T) {
	cases := []struct {
		name, source string
		wait         bool
	}{
		{"text", `text("hello"); text(6 * 7); notify("half way"); text([1, 2].map(x => x * 2).join())`, false},
		{"codex tool", `const r = await tools.exec_command({cmd: "echo nested"}); text(JSON.stringify(r).includes("nested") ? "nested ok" : "missing")`, false},
		{"Promise.all", `const r = await Promise.all([1, 2, 3].map(i => tools.exec_command({cmd: "echo p" + i})));` +
			` text(r.map((x, i) => JSON.stringify(x).includes("p" + (i + 1)) ? "ok" : "bad").join())`, false},
		{"yield and wait", "// @exec: {\"yield_time_ms\": 500}\n" + `text("start"); await new Promise(r => setTimeout(r, 1500)); text("end")`, true},
		{"thrown error", `text("before"); throw new Error("boom")`, false},
	}
	for _, grpc := range []bool{true, false} {
		for _, c := range cases {
			t.Run(map[bool]string{false: "v1/", true: "grpc/"}[grpc]+c.name, func(t *testing.T) {
				sameAsCodex(t, grpc, c.source, c.wait)
			})
		}
	}
}
