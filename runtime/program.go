package runtime

import (
	"errors"
	"fmt"

	"github.com/codemode-host/codemode-host/internal/tscript"
	"github.com/codemode-host/codemode-host/protocol"
)

// program is the code V8 runs for a cell and the map from its positions
// back to what the user wrote.
type program struct {
	code   string
	mapPos posMapper
}

// compile wraps the source in an async function (so top-level await and
// return work) and, for TypeScript, strips the types with a source map.
func compile(req CellRequest) (program, *protocol.ErrorInfo) {
	wrapped := wrap(req.Source)
	switch req.Language {
	case "", protocol.LangJS:
		return program{code: wrapped, mapPos: position}, nil
	case protocol.LangTS:
	default:
		return program{}, &protocol.ErrorInfo{Name: "TypeError",
			Message: fmt.Sprintf("unknown language %q; use js or ts", req.Language)}
	}
	code, m, err := tscript.Strip(wrapped, req.Origin)
	if err != nil {
		var te *tscript.Error
		if !errors.As(err, &te) {
			return program{}, &protocol.ErrorInfo{Name: "InternalError", Message: err.Error()}
		}
		line, col := position(te.Line, te.Column)
		return program{}, &protocol.ErrorInfo{Name: "SyntaxError", Message: te.Message, Line: line, Column: col,
			Stack: fmt.Sprintf("SyntaxError: %s\n    at %s:%d:%d", te.Message, req.Origin, line, col)}
	}
	return program{code: code, mapPos: func(line, col int) (int, int) {
		if l, c, ok := m.Original(line, col); ok {
			return position(l, c)
		}
		return line, col
	}}, nil
}
