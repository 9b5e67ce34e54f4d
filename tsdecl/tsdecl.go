// Package tsdecl renders JSON Schemas as TypeScript declarations for Code
// Mode, and writes the descriptions of the model-facing exec and wait tools.
//
// A bound tool renders as a method of `declare const tools`:
//
//	/** Create an issue. */
//	github__create_issue(args: { owner: string; repo: string; title: string; body?: string }): Promise<unknown>;
//
// # Rendering rules
//
//   - true and {} render as unknown, false as never. Non-local and dangling
//     $refs render as unknown.
//   - const and enum render as literal unions; an enum with more than
//     Options.MaxEnumValues values renders as its value types with a comment
//     quoting the first three.
//   - type renders as string, number (also for integer), boolean, null,
//     arrays and objects; a type array is a union. OpenAPI "nullable: true"
//     adds null.
//   - Objects keep the schema's property order. A property is optional
//     unless listed in required. Names that are not identifiers are quoted.
//     A property's description (or title) becomes a /** */ doc comment with
//     tags for default, format, pattern, ranges, deprecated and one example.
//     Short undocumented objects stay on one line.
//   - additionalProperties (or unevaluatedProperties) true or a schema adds
//     an index signature, false closes the object; an object with neither
//     properties nor these keywords is { [key: string]: unknown }. Simple
//     prefix/suffix patternProperties (^x-, _id$) become template literal
//     keys (`x-${string}`), others string keys with the pattern in a comment.
//     A typed index signature beside properties is intersected as a separate
//     object, so that TypeScript accepts it.
//   - items renders T[] (Array<T> when T is a union); prefixItems or a
//     draft-07 items array renders a tuple, optional past minItems, with a
//     ...rest from items/additionalItems when they allow more.
//   - allOf and $ref siblings intersect (A & B); anyOf and oneOf are unions.
//     Variants that only constrain (render as unknown, e.g. {required: [..]})
//     are dropped, and a bare type keyword beside a $ref or combinator is
//     dropped as redundant (keeping its null).
//   - Local $refs (#, #/json/pointer with ~0, ~1 and %-escapes, #anchor,
//     $defs and definitions alike, resolved in the enclosing $id resource)
//     are expanded inline. A ref met inside its own expansion renders as
//     `unknown /* recursive: Name */`, and the outer expansion is labelled
//     `/* Name */` so the model can see the shape repeats. At most
//     Options.MaxRefExpansions refs expand per rendered type.
//   - A rendered type over Options.MaxBytes is rendered again with doc
//     comments only on top-level properties, then with deeper objects cut
//     to { [key: string]: unknown } and arrays to unknown[], and finally as
//     unknown.
//
// Tool signatures:
//
//   - Function tools take `args`. A missing, empty or true input schema
//     renders as `args?: { [key: string]: unknown }`. An object schema with
//     an empty properties map and no extra keys is a tool without arguments:
//     `args?: {}`. An object schema with no required property makes args
//     optional, since a call without arguments sends {}.
//   - Freeform tools take `input: string`.
//   - The result is the output schema rendered, else unknown. An MCP
//     CallToolResult-shaped output schema (titled CallToolResult, as
//     registry/mcp writes it, or a content array beside isError,
//     structuredContent or _meta), or any output of a tool that
//     Options.IsMCP reports, renders as what a script receives:
//     `{ content: McpContent[] }`, plus a required
//     `structuredContent: S` when the tool declares an output schema S.
//     isError is never declared (a result that reports an error rejects
//     with a ToolError) and _meta never arrives. McpContent is declared
//     once by Declarations, and in Globals.
//   - The doc comment is the trimmed description, capped at
//     Options.MaxToolDescription runes. The method's name is the script
//     spelling, tools.<protocol.JSIdent(namespace, name)>; no other
//     spelling is shown.
//
// # Type-checking a cell
//
// Globals (globals.d.ts) declares every global a script sees; a parent
// type-checks a cell with it, the bound tools' ToolsInterface and the
// cell wrapped by WrapCell, with tsc in strict mode, lib es2023 (Globals
// references the later libs the host has), no @types and no DOM
// (TSConfig). CheckFiles writes them all.
package tsdecl

import (
	"encoding/json"
	"strings"

	"github.com/codemode-host/codemode-host/protocol"
)

// Options tunes rendering. The zero value of every field means its default,
// so Options{} renders with the defaults.
type Options struct {
	// MaxBytes caps one rendered type (a tool's arguments or its result).
	// Past it the type is rendered again with less detail, and finally as
	// unknown. Default 16000.
	MaxBytes int
	// MaxWork caps the text produced by one rendering attempt, so schemas
	// whose refs fan out exponentially stay cheap. Default 4 × MaxBytes.
	MaxWork int
	// MaxRefExpansions caps $ref expansions per rendered type; refs past it
	// render as unknown. Default 64.
	MaxRefExpansions int
	// MaxRefDepth is how many times a ref may be expanded inside its own
	// expansion before it renders as recursive. Default 1.
	MaxRefDepth int
	// MaxDescription caps a property's doc comment, in runes. Default 400.
	MaxDescription int
	// MaxToolDescription caps a tool's doc comment, in runes. Default 2000.
	MaxToolDescription int
	// MaxNamespaceDescription caps the comment that heads a namespace's
	// tools (an MCP server's instructions), in runes. Default 1000.
	MaxNamespaceDescription int
	// MaxEnumValues is the largest enum rendered as a literal union.
	// Default 50.
	MaxEnumValues int
	// InlineWidth is the widest object type kept on one line. Default 80.
	InlineWidth int
	// OmitToolDescription leaves the tool's description out of its doc
	// comment, for callers that show the description beside the
	// declaration already.
	OmitToolDescription bool
	// IsMCP reports tools known to return MCP CallToolResults; their output
	// schema, if any, types a required structuredContent. Default: none;
	// only output schemas shaped like a CallToolResult are detected.
	IsMCP func(protocol.ToolDef) bool
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxBytes, 16000)
	def(&o.MaxWork, 4*o.MaxBytes)
	def(&o.MaxRefExpansions, 64)
	def(&o.MaxRefDepth, 1)
	def(&o.MaxDescription, 400)
	def(&o.MaxToolDescription, 2000)
	def(&o.MaxNamespaceDescription, 1000)
	def(&o.MaxEnumValues, 50)
	def(&o.InlineWidth, 80)
	return o
}

// McpContentType is the declaration of the MCP content block type that MCP
// tool results use. Declarations emits it once, before `declare const
// tools`, when a tool needs it.
const McpContentType = `/** An MCP content block. */
type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } };
`

// Schema renders a JSON Schema as a TypeScript type with the default
// options. Missing or invalid JSON renders as unknown.
func Schema(schema json.RawMessage) string { return Options{}.Schema(schema) }

// Schema renders a JSON Schema as a TypeScript type. Missing or invalid
// JSON renders as unknown.
func (o Options) Schema(schema json.RawMessage) string {
	root, err := parse(schema)
	if err != nil {
		return "unknown"
	}
	return renderType(root, root, o.withDefaults())
}

// renderType renders n, a schema inside the document root, within the size
// cap, trying less detailed tiers until one fits.
func renderType(root, n *node, o Options) string {
	for _, t := range tiers {
		r := newRenderer(root, o, t)
		out := r.render(n)
		if !r.over && len(out.text) <= o.MaxBytes {
			return out.text
		}
	}
	return "unknown"
}

// ToolDeclaration renders one bound tool as a TypeScript method signature
// inside `declare const tools`, with its description as a doc comment.
// The result may reference McpContent (see Declarations).
func ToolDeclaration(def protocol.ToolDef) string { return Options{}.ToolDeclaration(def) }

// ToolDeclaration renders one bound tool as a TypeScript method signature
// inside `declare const tools`, with its description as a doc comment.
// The result may reference McpContent (see Declarations).
func (o Options) ToolDeclaration(def protocol.ToolDef) string {
	s, _ := o.withDefaults().toolDeclaration(def)
	return s
}

// toolDeclaration also reports whether the signature uses McpContent.
func (o Options) toolDeclaration(def protocol.ToolDef) (string, bool) {
	ident := protocol.JSIdent(def.Namespace, def.Name)
	var b strings.Builder
	b.WriteString(o.toolDoc(def))
	b.WriteString(ident)
	if def.Kind == protocol.KindFreeform {
		b.WriteString("(input: string)")
	} else {
		args, optional := o.argsType(def.InputSchema)
		b.WriteString("(args")
		if optional {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		b.WriteString(args)
		b.WriteByte(')')
	}
	result, mcp := o.resultType(def)
	b.WriteString(": Promise<")
	b.WriteString(result)
	b.WriteString(">;")
	return b.String(), mcp
}

// toolDoc renders the tool's doc comment with a trailing newline, or "".
func (o Options) toolDoc(def protocol.ToolDef) string {
	if o.OmitToolDescription {
		return ""
	}
	lines := descriptionLines(capRunes(def.Description, o.MaxToolDescription))
	switch {
	case len(lines) == 0:
		return ""
	case len(lines) == 1 && len(lines[0])+7 <= docLineWidth:
		return "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString("/**\n")
	for _, l := range lines {
		if l == "" {
			b.WriteString(" *\n")
			continue
		}
		b.WriteString(" * " + l + "\n")
	}
	b.WriteString(" */\n")
	return b.String()
}

// argsType renders a function tool's argument type and whether the
// argument may be omitted.
func (o Options) argsType(schema json.RawMessage) (string, bool) {
	root, err := parse(schema)
	switch {
	case err != nil, root.kind == kindObject && len(root.keys) == 0:
		return tsAnyObject.text, true
	case root.isBool(false):
		return "never", false
	case root.kind != kindObject:
		return tsAnyObject.text, true
	}
	if isNoArgs(root) {
		return "{}", true
	}
	t := renderType(root, root, o)
	if t == "unknown" {
		t = tsAnyObject.text
	}
	return t, isPlainObject(root) && !hasRequired(root)
}

// isNoArgs reports an object schema with an empty properties map and no
// other way to take arguments: the MCP convention for "no arguments".
func isNoArgs(n *node) bool {
	p := n.get("properties")
	if p == nil || p.kind != kindObject || len(p.keys) != 0 {
		return false
	}
	for _, k := range [...]string{"additionalProperties", "patternProperties", "unevaluatedProperties", "$ref", "allOf", "anyOf", "oneOf"} {
		if v := n.get(k); v != nil && !v.isBool(false) {
			return false
		}
	}
	return true
}

// isPlainObject reports an object schema without refs or combinators.
func isPlainObject(n *node) bool {
	if typ := n.get("type"); typ == nil || typ.kind != kindString || typ.text != "object" {
		if typ != nil || !n.has("properties") {
			return false
		}
	}
	for _, k := range [...]string{"$ref", "allOf", "anyOf", "oneOf"} {
		if n.has(k) {
			return false
		}
	}
	return true
}

func hasRequired(n *node) bool {
	req := n.get("required")
	return req != nil && req.kind == kindArray && len(req.items) > 0
}

// resultType renders a tool's result type and whether it uses McpContent.
func (o Options) resultType(def protocol.ToolDef) (string, bool) {
	root, err := parse(def.OutputSchema)
	if err != nil {
		root = nil
	}
	if root != nil && isCallToolResult(root) {
		return o.mcpResult(root, root.get("properties").get("structuredContent")), true
	}
	if o.IsMCP != nil && o.IsMCP(def) {
		return o.mcpResult(root, root), true
	}
	if root == nil {
		return "unknown", false
	}
	return renderType(root, root, o), false
}

// callToolResultTitle is the title registry/mcp gives the result schema
// of an MCP tool.
const callToolResultTitle = "CallToolResult"

// isCallToolResult reports a schema shaped like an MCP CallToolResult: a
// content array in an object titled CallToolResult, or beside isError,
// structuredContent or _meta.
func isCallToolResult(n *node) bool {
	p := n.get("properties")
	if p == nil || p.kind != kindObject {
		return false
	}
	c := p.get("content")
	if c == nil || c.kind != kindObject || c.str("type") != "array" {
		return false
	}
	return n.str("title") == callToolResultTitle || p.has("isError") || p.has("structuredContent") || p.has("_meta")
}

// mcpResult renders what a script receives of a CallToolResult: content,
// and a required structuredContent of the schema structured inside the
// document root when there is one (it renders as any object when it
// renders as unknown). No isError: such a result is thrown.
func (o Options) mcpResult(root, structured *node) string {
	members := []member{{text: "content: McpContent[];"}}
	if structured != nil {
		st := renderType(root, structured, o)
		if st == "unknown" {
			st = tsAnyObject.text
		}
		members = append(members, member{text: "structuredContent: " + st + ";"})
	}
	r := newRenderer(root, o, tiers[0])
	return r.objectLiteral(members).text
}

// Declarations renders `declare const tools: { ... };` for defs, in order,
// preceded by McpContentType when a tool returns MCP results. A def whose
// identifier an earlier def already claimed is skipped.
func Declarations(defs []protocol.ToolDef) string { return Options{}.Declarations(defs) }

// Declarations renders `declare const tools: { ... };` for defs, in order,
// preceded by McpContentType when a tool returns MCP results. A def whose
// identifier an earlier def already claimed is skipped.
func (o Options) Declarations(defs []protocol.ToolDef) string {
	return o.withDefaults().declarations(defs, nil)
}

// declarations renders Declarations with, before the first tool of each
// namespace that headings describes, that description as // comment
// lines headed by the namespace's name; a tool of the namespace named in
// backticks there is named as scripts call it (`tools.<ident>`).
func (o Options) declarations(defs []protocol.ToolDef, headings map[string]string) string {
	body, usesMCP := o.members(defs, headings)
	var b strings.Builder
	if usesMCP {
		b.WriteString(McpContentType)
	}
	if body == "" {
		b.WriteString("declare const tools: {};\n")
		return b.String()
	}
	b.WriteString("declare const tools: {\n")
	b.WriteString(body)
	b.WriteString("};\n")
	return b.String()
}

// ToolsInterface renders defs as `interface Tools { ... }`, the form that
// augments the Tools interface Globals declares (`declare const tools:
// Tools`), for type-checking a cell: the same members as Declarations,
// without McpContent (Globals declares it).
func ToolsInterface(defs []protocol.ToolDef) string { return Options{}.ToolsInterface(defs) }

// ToolsInterface renders defs as `interface Tools { ... }`, the form that
// augments the Tools interface Globals declares (`declare const tools:
// Tools`), for type-checking a cell: the same members as Declarations,
// without McpContent (Globals declares it).
func (o Options) ToolsInterface(defs []protocol.ToolDef) string {
	body, _ := o.withDefaults().members(defs, nil)
	if body == "" {
		return "interface Tools {}\n"
	}
	return "interface Tools {\n" + body + "}\n"
}

// members renders the tools' method signatures, indented, and reports
// whether one uses McpContent. See declarations for headings.
func (o Options) members(defs []protocol.ToolDef, headings map[string]string) (string, bool) {
	var body strings.Builder
	usesMCP := false
	seen := map[string]bool{}
	headed := map[string]bool{}
	// A description names a tool in `backticks` by its server name; the
	// heading names it as a script calls it.
	var spell map[string][]string // namespace → old, new pairs
	if len(headings) > 0 {
		spell = map[string][]string{}
		for _, d := range defs {
			ns := d.Namespace
			if protocol.IsDefaultNamespace(ns) {
				ns = protocol.DefaultNamespace
			}
			spell[ns] = append(spell[ns], "`"+d.Name+"`", "`tools."+protocol.JSIdent(d.Namespace, d.Name)+"`")
		}
	}
	for _, d := range defs {
		ident := protocol.JSIdent(d.Namespace, d.Name)
		if seen[ident] {
			continue
		}
		seen[ident] = true
		ns := d.Namespace
		if protocol.IsDefaultNamespace(ns) {
			ns = protocol.DefaultNamespace
		}
		if text := headings[ns]; text != "" && !headed[ns] {
			headed[ns] = true
			text = strings.NewReplacer(spell[ns]...).Replace(text)
			body.WriteString(namespaceHeading(ns, capRunes(text, o.MaxNamespaceDescription)))
		}
		decl, mcp := o.toolDeclaration(d)
		usesMCP = usesMCP || mcp
		indentTo(&body, decl, "  ")
	}
	return body.String(), usesMCP
}

// namespaceHeading renders a namespace's description as indented //
// comment lines: the namespace's name, then the text. Every line
// terminator JavaScript knows ends a comment line, so none can end the
// comment early.
func namespaceHeading(ns, text string) string {
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(text)
	var b strings.Builder
	b.WriteString("  // " + strings.Join(strings.Fields(ns), " ") + ":\n")
	for _, line := range descriptionLines(text) {
		if line == "" {
			continue // blank lines cost tokens and say nothing
		}
		b.WriteString("  // " + line + "\n")
	}
	return b.String()
}
