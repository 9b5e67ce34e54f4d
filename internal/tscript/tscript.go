// Package tscript strips TypeScript to JavaScript in-process with esbuild's
// Go API and keeps a source map, so errors can point at the TypeScript the
// model wrote. Its functions are safe from any goroutine.
package tscript

import (
	"fmt"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/codemode-host/codemode-host/internal/sourcemap"
)

// Error is a TypeScript syntax error at a 1-based line and column of the
// source given to Strip.
type Error struct {
	Message      string
	Line, Column int
}

// Error formats the error with its position.
func (e *Error) Error() string {
	return fmt.Sprintf("tscript: %s (line %d, column %d)", e.Message, e.Line, e.Column)
}

// Strip removes the types from source (a script, not a module) and returns
// JavaScript with a map from its positions back to source. The source may
// use top-level return and await only if the caller wrapped it in a
// function first. A source nested deeper than MaxNesting is refused with
// an *Error at the place it passes the limit, before esbuild sees it.
func Strip(source, origin string) (string, *sourcemap.Map, error) {
	if err := checkNesting(source); err != nil {
		return "", nil, err
	}
	res := api.Transform(source, api.TransformOptions{
		Loader:     api.LoaderTS,
		Target:     api.ESNext,
		Sourcemap:  api.SourceMapExternal,
		Sourcefile: origin,
		// Unused imports must stay, so an import is reported (not dropped).
		TsconfigRaw: `{"compilerOptions":{"verbatimModuleSyntax":false,"preserveValueImports":false}}`,
		LogLevel:    api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		out := &Error{Message: e.Text}
		if e.Location != nil {
			out.Line = e.Location.Line
			out.Column = e.Location.Column + 1
		}
		return "", nil, out
	}
	m, err := sourcemap.Parse(res.Map)
	if err != nil {
		return "", nil, fmt.Errorf("tscript: esbuild produced a bad source map: %w", err)
	}
	return string(res.Code), m, nil
}
