package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DefaultNamespace is the namespace of tools that name none. An empty
// namespace and "functions" are the same key.
const DefaultNamespace = "functions"

// ToolKind says how a tool takes its input.
type ToolKind string

const (
	// KindFunction tools take a JSON object validated against an input schema.
	KindFunction ToolKind = "function"
	// KindFreeform tools take one string (for example a patch in a grammar).
	KindFreeform ToolKind = "freeform"
)

// Valid reports whether k is one of the known kinds. The empty kind is
// valid and means KindFunction.
func (k ToolKind) Valid() bool {
	return k == "" || k == KindFunction || k == KindFreeform
}

// Exposure strings as they appear in files, flags and on the wire. Only
// the ones CodeModeCallable accepts are ever sent to the host.
const (
	ExposureDirect            = "direct"
	ExposureDeferred          = "deferred"
	ExposureCodeModeOnly      = "code_mode_only"
	ExposureDirectModelOnly   = "direct_model_only"
	ExposureDeferredModelOnly = "deferred_model_only"
	ExposureHidden            = "hidden"
)

// CodeModeCallable reports whether scripts may call a tool of this
// exposure: "" (direct), direct, deferred and code_mode_only. It is the
// one rule of which tools reach the host: the host refuses the others in
// exec.tools, the runtime does not bind them, and parents (the registry's
// Code Mode set, `codemode-host run`) never send them.
func CodeModeCallable(exposure string) bool {
	switch exposure {
	case "", ExposureDirect, ExposureDeferred, ExposureCodeModeOnly:
		return true
	}
	return false
}

// ToolDef is one tool the parent enables for a cell. The host binds it into
// the script as tools.<JSIdent(Namespace, Name)>.
type ToolDef struct {
	// Namespace is empty or "functions" for the default namespace.
	Namespace string `msgpack:"namespace,omitempty" json:"namespace,omitempty"`
	// Name is the tool's name inside its namespace. Required.
	Name string `msgpack:"name" json:"name"`
	// Description is shown to the model and to scripts (ALL_TOOLS).
	Description string `msgpack:"description,omitempty" json:"description,omitempty"`
	// Kind defaults to KindFunction.
	Kind ToolKind `msgpack:"kind,omitempty" json:"kind,omitempty"`
	// InputSchema is a JSON Schema (JSON text) for function tools.
	InputSchema json.RawMessage `msgpack:"input_schema,omitempty" json:"input_schema,omitempty"`
	// OutputSchema is an optional JSON Schema (JSON text) of the result.
	OutputSchema json.RawMessage `msgpack:"output_schema,omitempty" json:"output_schema,omitempty"`
	// Exposure is direct (the default), deferred or code_mode_only.
	Exposure string `msgpack:"exposure,omitempty" json:"exposure,omitempty"`
}

// QualifiedName is "name" in the default namespace, else "namespace.name".
func (d ToolDef) QualifiedName() string {
	return QualifiedName(d.Namespace, d.Name)
}

// QualifiedName is "name" in the default namespace, else "namespace.name".
func QualifiedName(namespace, name string) string {
	if IsDefaultNamespace(namespace) {
		return name
	}
	return namespace + "." + name
}

// IsDefaultNamespace reports whether ns names the default namespace.
func IsDefaultNamespace(ns string) bool {
	return ns == "" || ns == DefaultNamespace
}

// JSIdent is the identifier a tool is bound to in scripts (tools.<ident>):
// the name for the default namespace, else namespace + "__" + name (with
// no extra "__" when the namespace already ends in "_"), every character
// outside [A-Za-z0-9_$] replaced by "_", and a leading digit prefixed
// with "_".
func JSIdent(namespace, name string) string {
	raw := name
	if !IsDefaultNamespace(namespace) {
		sep := "__"
		if strings.HasSuffix(namespace, "_") {
			sep = ""
		}
		raw = namespace + sep + name
	}
	var b strings.Builder
	b.Grow(len(raw) + 1)
	for i, r := range raw {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// ToolCall is one call a script makes. The parent executes it.
type ToolCall struct {
	// SessionID names the session whose cell made the call ("" in run mode).
	SessionID string `msgpack:"session,omitempty" json:"session,omitempty"`
	// CellID names the cell that made the call.
	CellID string `msgpack:"cell" json:"cell"`
	// CallID is unique within the cell.
	CallID uint64 `msgpack:"call" json:"call"`
	// Namespace and Name are the tool's canonical name, not its JS identifier.
	Namespace string `msgpack:"namespace,omitempty" json:"namespace,omitempty"`
	Name      string `msgpack:"name" json:"name"`
	// Kind is the payload kind the script used.
	Kind ToolKind `msgpack:"kind" json:"kind"`
	// Input is JSON text: an object for function tools, a string for
	// freeform tools.
	Input json.RawMessage `msgpack:"input" json:"input"`
}

// QualifiedName is the call's tool name for display.
func (c ToolCall) QualifiedName() string { return QualifiedName(c.Namespace, c.Name) }

// Tool error codes: a closed set shared by the host, the bridge, the registry
// and scripts (ToolError.code).
const (
	// CodeToolFailed: the tool ran and reported an error.
	CodeToolFailed = "tool_failed"
	// CodeUnknownTool: no tool of that name is callable here.
	CodeUnknownTool = "unknown_tool"
	// CodeInvalidArguments: the input does not match the tool's kind or schema.
	CodeInvalidArguments = "invalid_arguments"
	// CodeDenied: a hook or the approval policy refused the call.
	CodeDenied = "denied"
	// CodeNotInCodeMode: the tool's exposure does not permit Code Mode.
	CodeNotInCodeMode = "not_in_code_mode"
	// CodeCancelled: the call was cancelled before it finished.
	CodeCancelled = "cancelled"
	// CodeLimitExceeded: a per-cell tool-call limit refused the call.
	CodeLimitExceeded = "limit_exceeded"
	// CodeHostDied: the host process died while the call was pending.
	CodeHostDied = "host_died"
	// CodeInternal: a bug or an unexpected failure in the parent.
	CodeInternal = "internal"
)

// ToolError is the error a tool call fails with. Scripts see it as a JS
// Error named "ToolError" with .code, .tool and .message.
type ToolError struct {
	Code    string `msgpack:"code" json:"code"`
	Message string `msgpack:"message" json:"message"`
	// Tool is the qualified tool name, filled in by whoever knows it.
	Tool string `msgpack:"tool,omitempty" json:"tool,omitempty"`
}

// Error formats the error with its tool and code.
func (e *ToolError) Error() string {
	if e.Tool != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Tool, e.Message, e.Code)
	}
	return fmt.Sprintf("%s (%s)", e.Message, e.Code)
}

// AsToolError is the one mapping from a Go error to the ToolError a
// script sees: a *ToolError anywhere in err's chain keeps its code and
// message (tool, when not empty, fills in a missing Tool), a cancelled
// context becomes CodeCancelled, and anything else CodeToolFailed. It
// returns a fresh value; err is not changed.
func AsToolError(err error, tool string) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		out := *te
		if out.Tool == "" {
			out.Tool = tool
		}
		return &out
	}
	code := CodeToolFailed
	if errors.Is(err, context.Canceled) {
		code = CodeCancelled
	}
	return &ToolError{Code: code, Message: err.Error(), Tool: tool}
}

// Guard runs f and turns a panic in it into a ToolError of code
// CodeInternal whose message starts with who ("the tool executor
// panicked: …"). It is the one recover around code a parent or a test
// plugs in: executors, tool callers and registry tools.
func Guard[T any](who string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, &ToolError{Code: CodeInternal, Message: fmt.Sprintf("%s panicked: %v", who, p)}
		}
	}()
	return f()
}
