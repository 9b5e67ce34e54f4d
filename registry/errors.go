package registry

import (
	"fmt"

	"github.com/codemode-host/codemode-host/protocol"
)

// CollisionError is returned by Finalize in strict mode when two tools
// claimed one name.
type CollisionError struct {
	// Tool is the first name that collided.
	Tool ToolName
}

// Error says which name collided and how to fix it.
func (e *CollisionError) Error() string {
	return fmt.Sprintf("registry: tool name collision: %q is registered more than once (or uses a reserved name); rename or remove one of the tools, or turn off Config.Strict to keep the first", e.Tool.String())
}

// DuplicateToolError is returned when a trusted tool's name is taken (see
// Config.TrustedDuplicates).
type DuplicateToolError struct {
	// Tool is the canonical name that was already registered.
	Tool ToolName
}

// Error says which name is taken and how to fix it.
func (e *DuplicateToolError) Error() string {
	return fmt.Sprintf("registry: tool %q is already registered; built-in tool names must be unique, remove one of the registrations", e.Tool.String())
}

// toolError builds the *protocol.ToolError the pipeline fails a call with.
func toolError(code string, name ToolName, format string, args ...any) *protocol.ToolError {
	return &protocol.ToolError{Code: code, Tool: name.String(), Message: fmt.Sprintf(format, args...)}
}
