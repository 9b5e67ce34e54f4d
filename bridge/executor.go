package bridge

import (
	"context"
	"encoding/json"

	"github.com/codemode-host/codemode-host/protocol"
)

// ToolExecutor runs the tool calls scripts make. The bridge calls it from
// many goroutines at once, one per call in flight (a call that arrives
// alone runs on the connection's reader goroutine, which a new goroutine
// replaces within a millisecond or two if the call blocks); ctx is
// cancelled when the host cancels the call or the cell ends.
//
// CallTool returns the tool's structured result as JSON text, or an error.
// A *protocol.ToolError keeps its code; any other error reaches the script
// as code "tool_failed".
type ToolExecutor interface {
	CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error)
}

// ToolExecutorFunc adapts a function to ToolExecutor.
type ToolExecutorFunc func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error)

// CallTool calls f.
func (f ToolExecutorFunc) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	return f(ctx, call)
}
