package tsdecl

import (
	_ "embed" // Globals
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// Globals is globals.d.ts: the declarations of every global a cell sees
// beside the ECMAScript library (tools, ALL_TOOLS, searchTools, text,
// console, image, notify, store, load, the timers, queueMicrotask,
// yield_control, exit, ToolError, and the web-style standard library the
// host adds: atob/btoa, TextEncoder/TextDecoder, URL/URLSearchParams,
// structuredClone, performance, crypto). It declares McpContent and an
// empty `interface Tools` with an index signature, which ToolsInterface
// augments with the bound tools.
//
//go:embed globals.d.ts
var Globals string

// CheckLib is the TypeScript lib a cell is checked with: ES2023, no DOM.
// Globals references the later libs of what the host's standard library
// adds (jsbindings/stdlib: groupBy, Promise.withResolvers/try,
// Array.fromAsync, the Set methods, Iterator helpers, isWellFormed,
// Error.isError) and declares the few built-ins no lib has yet.
const CheckLib = "es2023"

// TSConfig is the tsconfig.json of a directory of cells to check: strict,
// no emit, CheckLib and no DOM or @types, every .ts file a module (so
// cells do not see each other's names) and every .d.ts global.
const TSConfig = `{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "es2022",
    "lib": ["` + CheckLib + `"],
    "types": [],
    "module": "esnext",
    "moduleDetection": "force"
  },
  "include": ["*.ts"]
}
`

// cellHeader opens the function WrapCell wraps a cell in; it stays on the
// cell's first line so tsc's line numbers are the cell's.
const cellHeader = "async function __cell() { "

// WrapCell makes a cell's source checkable by tsc: the body of an async
// function, since the host runs it as one (top-level await and return
// work there, while tsc rejects a top-level return in a module and a
// top-level await in a script). Line numbers stay the cell's; columns on
// the first line move right by the header's length (CellColumnOffset).
// Declarations TypeScript allows only at the top level (namespace,
// declare, import/export) do not check inside, and the host refuses
// import and export anyway.
func WrapCell(source string) string {
	return cellHeader + source + "\n}\n"
}

// CellColumnOffset is how far WrapCell moves the columns of a cell's
// first line.
const CellColumnOffset = len(cellHeader)

// CheckFiles are the files of a directory that `tsc -p DIR` type-checks:
// tsconfig.json (TSConfig), globals.d.ts (Globals), tools.d.ts (the
// bound tools' ToolsInterface) and each cell, named by its key (a name
// ending in .ts), wrapped by WrapCell. Write them, run the repository's
// or PATH's tsc with -p, and read its diagnostics by file and line.
func CheckFiles(defs []protocol.ToolDef, cells map[string]string) map[string]string {
	files := map[string]string{
		"tsconfig.json": TSConfig,
		"globals.d.ts":  Globals,
		"tools.d.ts":    ToolsInterface(defs),
	}
	for name, src := range cells {
		if !strings.HasSuffix(name, ".ts") || strings.HasSuffix(name, ".d.ts") {
			name += ".ts"
		}
		files[name] = WrapCell(src)
	}
	return files
}
