package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemode-host/codemode-host/protocol"
)

// ExecShape is how the model-facing exec tool is offered. The zero value
// is ExecFreeform. wait is a function tool in either shape: its arguments
// are a few named options, which every tool API can carry.
type ExecShape uint8

const (
	// ExecFreeform offers exec as a freeform (custom) tool: its input is
	// the program source itself, with nothing to escape. Use it with APIs
	// that have freeform tools (the Responses API's custom tools).
	ExecFreeform ExecShape = iota
	// ExecFunction offers exec as a JSON function tool taking
	// {"code": source, "yield_ms": n} (yield_ms optional), for APIs
	// without freeform tools (Chat Completions, most others).
	ExecFunction
)

// String is "freeform" or "function".
func (s ExecShape) String() string {
	switch s {
	case ExecFreeform:
		return "freeform"
	case ExecFunction:
		return "function"
	}
	return fmt.Sprintf("ExecShape(%d)", uint8(s))
}

// ParseExecShape reads a shape's spelling; "" means ExecFreeform.
func ParseExecShape(s string) (ExecShape, error) {
	switch s {
	case "", "freeform":
		return ExecFreeform, nil
	case "function":
		return ExecFunction, nil
	}
	return ExecFreeform, fmt.Errorf("registry: unknown exec shape %q; use freeform or function", s)
}

// execSchema is the input schema of exec offered as a function tool.
var execSchema = fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "code": {"type": "string", "minLength": 1, "description": "The program (JavaScript or TypeScript) to run as one cell."},
    "yield_ms": {"type": "integer", "minimum": 0, "description": "How long to wait for the cell before returning its output so far and its cell ID, in milliseconds. Default %d."}
  },
  "required": ["code"],
  "additionalProperties": false
}`, protocol.DefaultYieldMS)

var execSchemaCompiled = sync.OnceValue(func() *jsonschema.Schema { return mustSchema(Plain(ExecToolName), execSchema) })

// execSpec is exec's spec in shape, with description desc.
func execSpec(shape ExecShape, desc string) (Spec, *jsonschema.Schema) {
	if shape == ExecFunction {
		return Spec{Name: Plain(ExecToolName), Description: desc, InputSchema: json.RawMessage(execSchema)}, execSchemaCompiled()
	}
	return Spec{Name: Plain(ExecToolName), Description: desc, Kind: protocol.KindFreeform}, nil
}

// ExecInput is a call of the exec tool, whichever shape it was offered in.
type ExecInput struct {
	// Code is the program source.
	Code string
	// YieldMS is how long to wait before yielding, in milliseconds; 0
	// means protocol.DefaultYieldMS.
	YieldMS uint64
}

// ExecArgs decodes the input of a call of exec: the source string of a
// freeform call, or the {code, yield_ms} object of a function call. Use
// it in Config.Exec (or wherever the agent runs exec) so the handler
// works with either ExecShape. A program that is empty or only white
// space is an error in either shape.
func ExecArgs(call Call) (ExecInput, error) {
	if call.Kind == protocol.KindFreeform {
		var src string
		if err := json.Unmarshal(call.Input, &src); err != nil {
			return ExecInput{}, fmt.Errorf("registry: the input of exec is not a JSON string: %w", err)
		}
		if strings.TrimSpace(src) == "" {
			return ExecInput{}, fmt.Errorf("registry: exec needs a program to run; got an empty one")
		}
		return ExecInput{Code: src}, nil
	}
	var in struct {
		Code    *string `json:"code"`
		YieldMS uint64  `json:"yield_ms"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return ExecInput{}, fmt.Errorf("registry: the arguments of exec are not {\"code\": string, \"yield_ms\"?: integer}: %w", err)
	}
	if in.Code == nil || strings.TrimSpace(*in.Code) == "" {
		return ExecInput{}, fmt.Errorf("registry: exec needs \"code\", the program to run")
	}
	return ExecInput{Code: *in.Code, YieldMS: in.YieldMS}, nil
}
