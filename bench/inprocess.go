package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// InProcess runs cells in this process's runtime, the echo tool answered
// directly by a ToolCaller: no process boundary, no framing.
type InProcess struct {
	rt *runtime.Runtime
}

// NewInProcess starts a runtime with its default configuration.
func NewInProcess() *InProcess {
	return &InProcess{rt: runtime.New(runtime.Config{})}
}

// Name implements System.
func (*InProcess) Name() string { return "in-process (no IPC)" }

// Run implements System.
func (s *InProcess) Run(ctx context.Context, source string) (string, error) {
	res, err := s.rt.Run(ctx, runtime.CellRequest{
		Source: source,
		Tools:  []protocol.ToolDef{echoTool},
		Caller: echoCaller{},
	})
	if err != nil {
		return "", err
	}
	return returnValue(res.Status, res.Error, res.Items)
}

// Close implements System.
func (s *InProcess) Close() error {
	s.rt.Close()
	return nil
}

type echoCaller struct{}

func (echoCaller) CallTool(_ context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	return echo(call)
}

// returnValue is the text of a completed cell's last item: its return
// value, JSON-formatted.
func returnValue(status protocol.Status, cellErr *protocol.ErrorInfo, items []protocol.Item) (string, error) {
	if status != protocol.StatusCompleted {
		if cellErr != nil {
			return "", fmt.Errorf("cell %s: %s: %s", status, cellErr.Name, cellErr.Message)
		}
		return "", fmt.Errorf("cell %s", status)
	}
	if len(items) == 0 {
		return "", nil
	}
	return items[len(items)-1].Text, nil
}
