package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-host/codemode-host/protocol"
)

// Tool is one tool: its spec and the code that runs it, in one object, so
// the schema the model sees can't drift from the code that reads the
// arguments. Spec must return the same value every time; the registry
// reads it once, when the tool is added. Call may be called from many
// goroutines at once (only if Spec().SupportsParallel; otherwise the
// registry runs it alone).
//
// A Tool may also implement ReadyWaiter and ResultObserver.
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, inv Invocation) (Output, error)
}

// ReadyWaiter is implemented by tools that can't run yet, for example the
// tools of an MCP server that is still connecting. The pipeline calls
// WaitUntilReady before each call and fails the call if it returns an
// error. Called from dispatching goroutines, many at once.
type ReadyWaiter interface {
	WaitUntilReady(ctx context.Context) error
}

// ResultObserver is implemented by tools that want to see their results
// once every PostToolUse hook and reminder has run: it sees exactly what
// the caller gets. Called from the dispatching goroutine.
type ResultObserver interface {
	OnResultAccepted(call Call, res Result)
}

// Spec is everything the registry knows about a tool besides its code.
type Spec struct {
	// Name is the tool's name. Required.
	Name ToolName
	// Description is shown to the model and to scripts.
	Description string
	// Kind is protocol.KindFunction (the default, "") or
	// protocol.KindFreeform.
	Kind protocol.ToolKind
	// InputSchema is the JSON Schema of a function tool's arguments (JSON
	// text). Default: any JSON object.
	InputSchema json.RawMessage
	// OutputSchema optionally describes the structured result (JSON text);
	// scripts get it as a TypeScript return type. Default: none.
	OutputSchema json.RawMessage
	// Grammar is a freeform tool's input grammar (Lark, say), shown to the
	// model. Ignored for function tools. Default: none.
	Grammar string
	// Exposure is where the tool is offered. Default Direct. The
	// ...WithExposure registration methods override it.
	Exposure Exposure
	// SupportsParallel lets calls to this tool run at the same time as
	// calls to other parallel tools. Default false: the tool runs alone.
	// Hidden tools never run in parallel.
	SupportsParallel bool
	// Search is extra metadata for tool_search. Default: none.
	Search SearchInfo
	// ParamNames renames a function tool's top-level parameters for the
	// model: it maps the name the tool's code reads (a property of
	// InputSchema) to the name advertised to the model and to scripts, as
	// in {"path": "file_path"}. The registry rewrites InputSchema's
	// "properties" and "required" when the tool is added, so the tool
	// list, script declarations, tool_search, validation errors, hooks and
	// events all use the advertised names; the tool's Invocation.Input is
	// renamed back just before it runs (Invocation.ParamName maps a name
	// for the tool's own error messages). ToolInfo.Spec shows the rewritten
	// schema. Default: no renaming.
	ParamNames map[string]string
}

// SearchInfo is what tool_search indexes besides the spec's name,
// description and schema.
type SearchInfo struct {
	// NamespaceDescription describes the tool's namespace (an MCP server's
	// instructions, say). The first one registered for a namespace is the
	// one used, while its tool is registered; one of only white space
	// counts as none. Ignored in the default namespace.
	NamespaceDescription string
	// Keywords are extra words to match (a product name, synonyms).
	Keywords []string
}

// Invocation is one call as a tool sees it.
type Invocation struct {
	// Call is the call as executed: a PreToolUse hook may have rewritten
	// its Input. Call.Name is the canonical name.
	Call
	// ToolSet is the set executing the call. The exec tool uses it to send
	// the right definitions to the host and to serve the script's calls.
	ToolSet *ToolSet
}

// Bind decodes a function tool's arguments into v (with encoding/json).
func (inv Invocation) Bind(v any) error {
	if err := json.Unmarshal(inv.Input, v); err != nil {
		return fmt.Errorf("registry: decoding arguments of %s: %w", inv.Name, err)
	}
	return nil
}

// Text is a freeform tool's input string.
func (inv Invocation) Text() (string, error) {
	var s string
	if err := json.Unmarshal(inv.Input, &s); err != nil {
		return "", fmt.Errorf("registry: the input of %s is not a JSON string: %w", inv.Name, err)
	}
	return s, nil
}

// Output is what a tool returns.
type Output struct {
	// Value is the structured result as JSON text; scripts get it as a
	// value. Default (nil): null.
	Value json.RawMessage
	// Text is what the model sees. Default (""): Value itself, or the
	// string when Value is a JSON string.
	Text string
}

// JSONOutput marshals v as the structured result.
func JSONOutput(v any) (Output, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Output{}, fmt.Errorf("registry: encoding a tool result: %w", err)
	}
	return Output{Value: b}, nil
}

// TextOutput is a result that is just a string, for scripts and model alike.
func TextOutput(s string) Output {
	return Output{Value: FreeformInput(s), Text: s}
}

// FreeformInput encodes s as the Input of a call to a freeform tool.
func FreeformInput(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// HandlerFunc runs one call. See Tool.Call.
type HandlerFunc func(ctx context.Context, inv Invocation) (Output, error)

// FuncTool adapts a spec and a function to Tool (and to ReadyWaiter).
type FuncTool struct {
	// ToolSpec is returned by Spec.
	ToolSpec Spec
	// Handler runs calls. Required.
	Handler HandlerFunc
	// Ready, if set, is called by WaitUntilReady. Default: always ready.
	Ready func(ctx context.Context) error
}

// NewFunc returns a tool made of spec and fn.
func NewFunc(spec Spec, fn HandlerFunc) *FuncTool {
	return &FuncTool{ToolSpec: spec, Handler: fn}
}

// NewTypedFunc returns a tool whose arguments are decoded into In and
// whose result Out is encoded as JSON. It is the easy way to write a
// built-in tool; the input schema still comes from spec.
func NewTypedFunc[In, Out any](spec Spec, fn func(ctx context.Context, in In) (Out, error)) *FuncTool {
	return NewFunc(spec, func(ctx context.Context, inv Invocation) (Output, error) {
		var in In
		if err := inv.Bind(&in); err != nil {
			return Output{}, err
		}
		out, err := fn(ctx, in)
		if err != nil {
			return Output{}, err
		}
		return JSONOutput(out)
	})
}

// Spec returns f.ToolSpec. Safe from any goroutine.
func (f *FuncTool) Spec() Spec { return f.ToolSpec }

// Call runs f.Handler. Safe from any goroutine if the handler is.
func (f *FuncTool) Call(ctx context.Context, inv Invocation) (Output, error) {
	return f.Handler(ctx, inv)
}

// WaitUntilReady calls f.Ready if set. Safe from any goroutine if Ready is.
func (f *FuncTool) WaitUntilReady(ctx context.Context) error {
	if f.Ready == nil {
		return nil
	}
	return f.Ready(ctx)
}
