package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// replay is the model's stand-in: an HTTP server on 127.0.0.1 that answers
// POST /v1/responses with recorded turns, in order, and records the body of
// every request so a test can check what the agent sent. A turn is the
// output items of one response; "$CELL" in a turn is replaced with the
// cell id of the last "Script running with cell ID …" the agent sent, as
// a model would copy it.
type replay struct {
	url string

	mu       sync.Mutex
	turns    []json.RawMessage
	requests []map[string]any
	lastCell string
	// waitArgs, when set, makes the model poll: once the recorded turns
	// are used up, it answers a request whose last item is the output of a
	// running cell with a wait call of these arguments ("$CELL" replaced),
	// and any other with the message final.
	waitArgs, final string
}

var runningCell = regexp.MustCompile(`Script running with cell ID ([A-Za-z0-9_.:-]+)`)

// newReplay serves until the test ends; play loads the turns of a
// conversation.
func newReplay(t testing.TB) *replay {
	t.Helper()
	r := &replay{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: r}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	r.url = "http://" + ln.Addr().String() + "/v1/"
	return r
}

// play starts over with the turns of a new conversation.
func (r *replay) play(turns ...json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.turns, r.requests, r.lastCell, r.waitArgs, r.final = turns, nil, "", "", ""
}

// poll starts over with a model that plays turns, then waits (with
// waitArgs) for as long as its last tool output says the cell runs, then
// answers final: the model whose turns a long cell costs.
func (r *replay) poll(waitArgs, final string, turns ...json.RawMessage) {
	r.play(turns...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waitArgs, r.final = waitArgs, final
}

// polled is the polling model's next turn for request n (from 0).
func (r *replay) polled(n int, got map[string]any) json.RawMessage {
	input, _ := got["input"].([]any)
	last, _ := input[len(input)-1].(map[string]any)
	out, _ := json.Marshal(last["output"])
	if strings.Contains(string(out), "Script running with cell ID") {
		return turn(functionCall(fmt.Sprintf("call_wait_%d", n), "wait", r.waitArgs))
	}
	return turn(message(r.final))
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
		http.Error(w, `{"error":{"message":"replay: only POST /v1/responses","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		http.Error(w, `{"error":{"message":"replay: the body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	if got["stream"] == true {
		http.Error(w, `{"error":{"message":"replay: streaming is not recorded"}}`, http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	n := len(r.requests)
	r.requests = append(r.requests, got)
	if m := runningCell.FindAllSubmatch(body, -1); len(m) > 0 {
		r.lastCell = string(m[len(m)-1][1])
	}
	cell := r.lastCell
	turns := r.turns
	if n >= len(turns) && r.waitArgs != "" {
		turns = append(slices.Clone(turns), r.polled(n, got))
		r.turns = turns
	}
	r.mu.Unlock()
	if n >= len(turns) {
		http.Error(w, fmt.Sprintf(`{"error":{"message":"replay: request %d, but only %d turns are recorded"}}`, n+1, len(turns)), http.StatusInternalServerError)
		return
	}
	output := strings.ReplaceAll(string(turns[n]), "$CELL", cell)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"resp_%d","object":"response","created_at":1764633600,"model":%q,"status":"completed","output":%s,"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}`,
		n+1, got["model"], output)
}

// request is the body of the agent's n-th request (from 1).
func (r *replay) request(t testing.TB, n int) map[string]any {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	require.GreaterOrEqual(t, len(r.requests), n, "the agent made %d requests", len(r.requests))
	return r.requests[n-1]
}

// count is how many requests the agent made.
func (r *replay) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}

// output is the text of the tool output for callID in the agent's n-th
// request (its input_text parts joined by newlines), and the output item's
// type.
func (r *replay) output(t *testing.T, n int, callID string) (text, typ string) {
	t.Helper()
	for _, it := range r.request(t, n)["input"].([]any) {
		item := it.(map[string]any)
		if item["call_id"] != callID || !strings.HasSuffix(fmt.Sprint(item["type"]), "_output") {
			continue
		}
		switch out := item["output"].(type) {
		case string:
			return out, item["type"].(string)
		case []any:
			var parts []string
			for _, p := range out {
				if pm := p.(map[string]any); pm["type"] == "input_text" {
					parts = append(parts, pm["text"].(string))
				}
			}
			return strings.Join(parts, "\n"), item["type"].(string)
		}
	}
	t.Fatalf("request %d has no output for call %s", n, callID)
	return "", ""
}

// toolNames lists the tools offered in the agent's n-th request, with
// their types ("exec:custom").
func (r *replay) toolNames(t *testing.T, n int) []string {
	t.Helper()
	var names []string
	for _, tool := range r.request(t, n)["tools"].([]any) {
		tm := tool.(map[string]any)
		names = append(names, fmt.Sprintf("%s:%s", tm["name"], tm["type"]))
	}
	return names
}

// inputTypes lists the types of the input items of the agent's n-th
// request, in order.
func (r *replay) inputTypes(t *testing.T, n int) []string {
	t.Helper()
	var types []string
	for _, it := range r.request(t, n)["input"].([]any) {
		item := it.(map[string]any)
		typ, _ := item["type"].(string)
		if typ == "" {
			typ = "message" // the type of a message is optional
		}
		if role, ok := item["role"]; ok {
			typ += ":" + fmt.Sprint(role)
		}
		types = append(types, typ)
	}
	return types
}
