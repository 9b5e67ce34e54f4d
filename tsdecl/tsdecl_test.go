package tsdecl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
)

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func TestSchemaRendersBasicTypes(t *testing.T) {
	cases := map[string]string{
		`true`:                              "unknown",
		`false`:                             "never",
		`{}`:                                "unknown",
		`{"type":"string"}`:                 "string",
		`{"type":"integer"}`:                "number",
		`{"type":"boolean"}`:                "boolean",
		`{"type":"null"}`:                   "null",
		`{"type":"frobnicate"}`:             "unknown",
		`{"type":["string","null"]}`:        "string | null",
		`{"type":["integer","number"]}`:     "number",
		`{"type":"string","nullable":true}`: "string | null",
		`{"const":"a"}`:                     `"a"`,
		`{"const":{"k":[1,null]}}`:          `{ k: [1, null] }`,
		`{"enum":["a",1,true,null]}`:        `"a" | 1 | true | null`,
		`{"enum":["<&>"]}`:                  `"<&>"`,
		`{"type":"array"}`:                  "unknown[]",
		`{"type":"array","items":false}`:    "[]",
		`{"items":{"type":"string"}}`:       "string[]",
		`{"items":{"enum":["a","b"]}}`:      `Array<"a" | "b">`,
		`{"anyOf":[{"type":"string"},{"type":"number"}]}`:                              "string | number",
		`{"allOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}]}`:                  "{ a?: unknown } & { b?: unknown }",
		`{"allOf":[{"anyOf":[{"type":"string"},{"type":"number"}]},{"enum":[1,"x"]}]}`: `(string | number) & (1 | "x")`,
		`{"type":"object"}`: "{ [key: string]: unknown }",
		`{"type":"object","additionalProperties":false}`: "{}",
		`not json`: "unknown",
		``:         "unknown",
	}
	for in, want := range cases {
		assert.Equal(t, want, Schema(schema(in)), "schema %s", in)
	}
}

func TestSchemaKeepsPropertyOrderAndQuotesKeys(t *testing.T) {
	got := Schema(schema(`{"properties":{"zeta":{"type":"string"},"a-b":{"type":"number"},"alpha":{},"1x":{}},"required":["a-b"]}`))
	assert.Equal(t, `{ zeta?: string; "a-b": number; alpha?: unknown; "1x"?: unknown }`, got)
}

func TestSchemaIsDeterministic(t *testing.T) {
	for _, c := range loadCorpus(t) {
		first := Declarations(c.defs)
		for range 3 {
			require.Equal(t, first, Declarations(c.defs), c.name)
		}
	}
}

func TestDocCommentsEscapeAndCap(t *testing.T) {
	long := strings.Repeat("word ", 200)
	got := Schema(schema(`{"properties":{"a":{"type":"string","description":"ends */ early"},"b":{"description":"` + long + `"}}}`))
	assert.Contains(t, got, `/** ends *\/ early */`)
	assert.NotContains(t, strings.ReplaceAll(got, `*\/`, ""), "*/ early")
	assert.Contains(t, got, "…")
	assert.Less(t, len(got), 600, "description capped at MaxDescription runes")
}

func TestDocCommentsSkipTitlesThatRestateTheName(t *testing.T) {
	got := Schema(schema(`{"properties":{"user_id":{"type":"integer","title":"User Id"},"q":{"type":"string","title":"Search text"}}}`))
	assert.NotContains(t, got, "User Id")
	assert.Contains(t, got, "/** Search text */")
}

func TestRefsResolvePointersWithEscapes(t *testing.T) {
	got := Schema(schema(`{"properties":{"x":{"$ref":"#/$defs/a~1b~0c%20d"}},"$defs":{"a/b~c d":{"type":"integer"}}}`))
	assert.Equal(t, "{ x?: number }", got)
	got = Schema(schema(`{"properties":{"x":{"$ref":"#/definitions/s"}},"definitions":{"s":{"type":"string"}}}`))
	assert.Equal(t, "{ x?: string }", got)
}

func TestRefsLeaveRemoteAndDanglingUnknown(t *testing.T) {
	got := Schema(schema(`{"properties":{"r":{"$ref":"https://x/y.json"},"d":{"$ref":"#/nope"}}}`))
	assert.Equal(t, "{ r?: unknown; d?: unknown }", got)
}

func TestRecursiveRefRendersOnceAndLabelsTheCut(t *testing.T) {
	got := Schema(schema(`{"$ref":"#/$defs/n","$defs":{"n":{"properties":{"next":{"$ref":"#/$defs/n"}}}}}`))
	assert.Equal(t, "/* n */ { next?: unknown /* recursive: n */ }", got)

	deeper := Options{MaxRefDepth: 2}.Schema(schema(`{"$ref":"#/$defs/n","$defs":{"n":{"properties":{"next":{"$ref":"#/$defs/n"}}}}}`))
	assert.Equal(t, "/* n */ { next?: { next?: unknown /* recursive: n */ } }", deeper)
}

func TestRefExpansionsAreCapped(t *testing.T) {
	var defs, props []string
	for i := range 10 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"type":"string"}`, i))
		props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/d%d"}`, i, i))
	}
	s := schema(`{"properties":{` + strings.Join(props, ",") + `},"$defs":{` + strings.Join(defs, ",") + `}}`)
	got := Options{MaxRefExpansions: 3}.Schema(s)
	assert.Equal(t, 3, strings.Count(got, ": string"))
	assert.Contains(t, got, "p3?: unknown /* d3 */")
}

func TestExponentialRefsStayWithinTheWorkBudget(t *testing.T) {
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"properties":{"l":{"$ref":"#/$defs/d%d"},"r":{"$ref":"#/$defs/d%d"}}}`, i, i+1, i+1))
	}
	defs = append(defs, `"d40":{"type":"string"}`)
	s := schema(`{"$ref":"#/$defs/d0","$defs":{` + strings.Join(defs, ",") + `}}`)
	got := Options{MaxRefExpansions: 1 << 20}.Schema(s)
	assert.LessOrEqual(t, len(got), 16000)
}

func TestOversizeSchemaDegradesThenFallsBackToUnknown(t *testing.T) {
	var props []string
	for i := range 50 {
		props = append(props, fmt.Sprintf(`"p%02d":{"description":"%s","properties":{"inner":{"properties":{"deep":{"type":"string"}}}}}`, i, strings.Repeat("d", 100)))
	}
	s := schema(`{"properties":{` + strings.Join(props, ",") + `}}`)
	full := Options{MaxBytes: 1 << 20}.Schema(s)
	assert.Contains(t, full, "deep?: string")

	small := Options{MaxBytes: 3000}.Schema(s)
	assert.LessOrEqual(t, len(small), 3000)
	assert.Contains(t, small, "p49?:", "top-level names survive")
	assert.NotContains(t, small, "deep")

	assert.Equal(t, "unknown", Options{MaxBytes: 100}.Schema(s))
}

func TestLargeEnumsCollapseToTheirType(t *testing.T) {
	var vals []string
	for i := range 60 {
		vals = append(vals, fmt.Sprintf(`"v%d"`, i))
	}
	got := Schema(schema(`{"enum":[` + strings.Join(vals, ",") + `]}`))
	assert.Equal(t, `string /* one of 60 values, e.g. "v0", "v1", "v2" */`, got)
}

func TestTypedIndexSignatureBesidePropertiesIsIntersected(t *testing.T) {
	got := Schema(schema(`{"properties":{"a":{"type":"string"}},"additionalProperties":{"type":"number"}}`))
	assert.Equal(t, "{ a?: string } & { [key: string]: number }", got)
	got = Schema(schema(`{"properties":{"a":{"type":"string"}},"additionalProperties":true}`))
	assert.Equal(t, "{ a?: string; [key: string]: unknown }", got)
}

func TestPatternPropertiesBecomeTemplateKeys(t *testing.T) {
	assert.Equal(t, "{ [key: `x-${string}`]: string }", Schema(schema(`{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`)))
	assert.Equal(t, "{ [key: `${string}.json`]: string }", Schema(schema(`{"patternProperties":{"\\.json$":{"type":"string"}},"additionalProperties":false}`)))
	got := Schema(schema(`{"patternProperties":{"^[a-z]+$":{"type":"string"}},"additionalProperties":false}`))
	assert.Contains(t, got, "/** Keys matching /^[a-z]+$/. */")
	assert.Contains(t, got, "[key: string]: string;")
}

func TestTuples(t *testing.T) {
	assert.Equal(t, "[string, number]", Schema(schema(`{"prefixItems":[{"type":"string"},{"type":"number"}]}`)))
	assert.Equal(t, "[string, number?]", Schema(schema(`{"prefixItems":[{"type":"string"},{"type":"number"}],"minItems":1}`)))
	assert.Equal(t, "[string, ...boolean[]]", Schema(schema(`{"prefixItems":[{"type":"string"}],"items":{"type":"boolean"}}`)))
	assert.Equal(t, "[string, ...unknown[]]", Schema(schema(`{"items":[{"type":"string"}],"additionalItems":true}`)))
	assert.Equal(t, "[string, (number | null)?]", Schema(schema(`{"items":[{"type":"string"},{"type":["number","null"]}],"minItems":1}`)))
}

func TestCombinatorsDropConstraintOnlyVariants(t *testing.T) {
	got := Schema(schema(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`))
	assert.Equal(t, "{ a?: string; b?: string }", got)
	got = Schema(schema(`{"type":"string","oneOf":[{"const":"x"},{"const":"y"}]}`))
	assert.Equal(t, `"x" | "y"`, got)
	got = Schema(schema(`{"type":["string","null"],"oneOf":[{"const":"x"},{"const":"y"}]}`))
	assert.Equal(t, `"x" | "y" | null`, got)
}

func TestToolDeclarationSignatures(t *testing.T) {
	cases := []struct {
		def  protocol.ToolDef
		want string
	}{
		{protocol.ToolDef{Name: "ping"}, "ping(args?: { [key: string]: unknown }): Promise<unknown>;"},
		{protocol.ToolDef{Name: "ping", InputSchema: schema(`{}`)}, "ping(args?: { [key: string]: unknown }): Promise<unknown>;"},
		{protocol.ToolDef{Name: "ping", InputSchema: schema(`{"type":"object","properties":{}}`)}, "ping(args?: {}): Promise<unknown>;"},
		{protocol.ToolDef{Name: "get", InputSchema: schema(`{"type":"object","properties":{"id":{"type":"string"}}}`)}, "get(args?: { id?: string }): Promise<unknown>;"},
		{protocol.ToolDef{Name: "get", InputSchema: schema(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`), OutputSchema: schema(`{"type":"string"}`)}, "get(args: { id: string }): Promise<string>;"},
		{protocol.ToolDef{Name: "patch", Kind: protocol.KindFreeform, InputSchema: schema(`{"type":"object"}`)}, "patch(input: string): Promise<unknown>;"},
		{protocol.ToolDef{Name: "no", InputSchema: schema(`false`)}, "no(args: never): Promise<unknown>;"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ToolDeclaration(c.def))
	}
}

func TestToolDeclarationDocUsesOnlyTheScriptSpelling(t *testing.T) {
	got := ToolDeclaration(protocol.ToolDef{Namespace: "mcp__cal", Name: "list-events", Description: "  List events.  "})
	assert.Equal(t, "/** List events. */\nmcp__cal__list_events(args?: { [key: string]: unknown }): Promise<unknown>;", got)
	assert.NotContains(t, got, "mcp__cal.list-events", "no spelling a script cannot use")

	omitted := Options{OmitToolDescription: true}.ToolDeclaration(protocol.ToolDef{Namespace: "mcp__cal", Name: "x", Description: "List events."})
	assert.Equal(t, "mcp__cal__x(args?: { [key: string]: unknown }): Promise<unknown>;", omitted)

	capped := Options{MaxToolDescription: 10}.ToolDeclaration(protocol.ToolDef{Name: "t", Description: "one two three four five"})
	assert.Equal(t, "/** one two… */\nt(args?: { [key: string]: unknown }): Promise<unknown>;", capped)
}

func TestMCPResultsAreWhatAScriptReceives(t *testing.T) {
	// A Codex-style CallToolResult schema: isError and _meta never reach
	// a script, and structuredContent, declared, is required.
	callToolResult := `{"type":"object","properties":{"content":{"type":"array","items":{"type":"object"}},"structuredContent":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"isError":{"type":"boolean"},"_meta":{"type":"object"}}}`
	def := protocol.ToolDef{Name: "count", OutputSchema: schema(callToolResult)}
	want := "{ content: McpContent[]; structuredContent: { n: number } }"
	assert.Equal(t, "count(args?: { [key: string]: unknown }): Promise<"+want+">;", ToolDeclaration(def))
	assert.True(t, strings.HasPrefix(Declarations([]protocol.ToolDef{def}), McpContentType))

	// registry/mcp's shape: titled CallToolResult; without an output
	// schema there is no structuredContent.
	plain := protocol.ToolDef{Name: "echo", OutputSchema: schema(`{"title":"CallToolResult","type":"object","properties":{"content":{"type":"array","items":{"type":"object"}}},"required":["content"]}`)}
	assert.Equal(t, "echo(args?: { [key: string]: unknown }): Promise<{ content: McpContent[] }>;", ToolDeclaration(plain))
	untitled := protocol.ToolDef{Name: "list", OutputSchema: schema(`{"type":"object","properties":{"content":{"type":"array"}}}`)}
	assert.NotContains(t, ToolDeclaration(untitled), "McpContent", "a content array alone is not an MCP result")

	// A tool known to be MCP: its output schema types structuredContent.
	o := Options{IsMCP: func(d protocol.ToolDef) bool { return strings.HasPrefix(d.Namespace, "mcp__") }}
	known := protocol.ToolDef{Namespace: "mcp__x", Name: "count", OutputSchema: schema(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
	assert.Contains(t, o.ToolDeclaration(known), "Promise<"+want+">")
	bare := protocol.ToolDef{Namespace: "mcp__x", Name: "hello"}
	assert.Contains(t, o.ToolDeclaration(bare), "Promise<{ content: McpContent[] }>")
	other := protocol.ToolDef{Name: "plain"}
	assert.NotContains(t, o.Declarations([]protocol.ToolDef{other}), "McpContent")
	for _, d := range []string{ToolDeclaration(def), o.ToolDeclaration(bare), o.ToolDeclaration(known)} {
		assert.NotContains(t, d, "isError")
		assert.NotContains(t, d, "structuredContent?")
	}
}

func TestExecDescriptionHeadsANamespaceWithItsDescription(t *testing.T) {
	defs := []protocol.ToolDef{
		{Namespace: "mcp__a__", Name: "one"},
		{Namespace: "mcp__b__", Name: "two"},
		{Namespace: "mcp__a__", Name: "three"},
		{Name: "plain"},
	}
	got := ExecOptions{Namespaces: map[string]string{
		"mcp__a__": "# Server A\r\n\nUse `one` before `three`.\u2028*/ not code",
		"mcp__c__": "unused",
	}}.ExecDescription(defs)
	assert.Contains(t, got, "declare const tools: {\n  // mcp__a__:\n  // # Server A\n  // Use `tools.mcp__a__one` before `tools.mcp__a__three`.\n  // *\\/ not code\n  mcp__a__one(")
	assert.Equal(t, 1, strings.Count(got, "// mcp__a__:"), "once, before the namespace's first tool")
	assert.NotContains(t, got, "mcp__b__:")
	assert.NotContains(t, got, "unused")
}

func TestDeclarationsSkipDuplicateIdentifiers(t *testing.T) {
	got := Declarations([]protocol.ToolDef{
		{Namespace: "a-b", Name: "c", Description: "first"},
		{Namespace: "a_b", Name: "c", Description: "second"},
	})
	assert.Contains(t, got, "first")
	assert.NotContains(t, got, "second")
	assert.Equal(t, "declare const tools: {};\n", Declarations(nil))
}

func TestExecDescriptionSplitsDeclaredAndDeferredTools(t *testing.T) {
	defs := []protocol.ToolDef{
		{Name: "direct_tool", Exposure: protocol.ExposureDirect},
		{Name: "cm_only", Exposure: protocol.ExposureCodeModeOnly},
		{Name: "default_exposure"},
		{Namespace: "mcp__jira", Name: "search", Exposure: protocol.ExposureDeferred},
		{Namespace: "mcp__jira", Name: "create", Exposure: protocol.ExposureDeferred},
		{Name: "lookup", Exposure: protocol.ExposureDeferred},
		{Name: "ask_user", Exposure: protocol.ExposureDirectModelOnly},
		{Name: "secret", Exposure: protocol.ExposureHidden},
	}
	got := ExecOptions{YieldMS: 2500, Limits: protocol.Limits{OutputTokens: 4000}}.ExecDescription(defs)
	for _, s := range []string{"direct_tool(", "cm_only(", "default_exposure(", "3 more tools", "- mcp__jira (2)", "- functions (1)", "searchTools(", "ALL_TOOLS", "2.5 s", "4000 tokens", "ToolError", "yield_control()", "exit()", "store(", "load(", "notify(", "setTimeout(", "console.log", "image(", "text(", "return"} {
		assert.Contains(t, got, s)
	}
	for _, s := range []string{"search(", "lookup(", "ask_user", "secret"} {
		assert.NotContains(t, got, s)
	}

	none := ExecDescription(nil)
	assert.NotContains(t, none, "```ts")
	assert.NotContains(t, none, "more tool")
	assert.Contains(t, none, "10 s")
}

func TestWaitDescriptionNamesItsParameters(t *testing.T) {
	got := WaitDescription()
	for _, s := range []string{"cell_id", "yield_time_ms", "wake_on_output", "terminate", "new", "300 s"} {
		assert.Contains(t, got, s)
	}
}

func TestDuration(t *testing.T) {
	assert.Equal(t, "250 ms", duration(250))
	assert.Equal(t, "10 s", duration(10000))
	assert.Equal(t, "1.5 s", duration(1500))
}

func TestParseRejectsHostileInput(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	assert.Equal(t, "unknown", Schema(schema(deep)))
	assert.Equal(t, "unknown", Schema(schema(`{"type":"string"} trailing`)))
}

func TestGlobalsDeclareEveryScriptGlobal(t *testing.T) {
	assert.Contains(t, Globals, McpContentType, "one McpContent: the one Declarations emits")
	for _, g := range []string{
		"const tools", "const ALL_TOOLS", "function searchTools", "function text", "const console",
		"function image", "function notify", "function store", "function load",
		"function setTimeout", "function clearTimeout", "function setInterval", "function clearInterval",
		"function queueMicrotask", "function yield_control", "function exit", "class ToolError",
		"function atob", "function btoa", "class TextEncoder", "class TextDecoder", "class URL ",
		"class URLSearchParams", "function structuredClone", "const performance", "const crypto",
	} {
		assert.Contains(t, Globals, "declare "+g, g)
	}
	for _, code := range []string{protocol.CodeToolFailed, protocol.CodeUnknownTool, protocol.CodeInvalidArguments,
		protocol.CodeDenied, protocol.CodeNotInCodeMode, protocol.CodeCancelled, protocol.CodeLimitExceeded,
		protocol.CodeHostDied, protocol.CodeInternal} {
		assert.Contains(t, Globals, `"`+code+`"`, "ToolErrorCode has every protocol code")
	}
}

func TestToolsInterfaceAugmentsGlobals(t *testing.T) {
	defs := []protocol.ToolDef{{Namespace: "mcp__x__", Name: "a-b", OutputSchema: schema(`{"title":"CallToolResult","type":"object","properties":{"content":{"type":"array"}}}`)}}
	got := ToolsInterface(defs)
	assert.Equal(t, "interface Tools {\n  mcp__x__a_b(args?: { [key: string]: unknown }): Promise<{ content: McpContent[] }>;\n}\n", got)
	assert.NotContains(t, got, "type McpContent", "Globals declares it")
}
