package codexhost

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/codemode-host/codemode-host/protocol"
)

// DefaultMaxOutputTokens is the output budget of a result when the
// execute names no max_output_tokens (Codex: 10,000 tokens of 4 bytes).
const DefaultMaxOutputTokens = 10_000

// contentItems converts output items to WireContentItems: text (console
// output included) is input_text, an image input_image with detail
// "high" when it names none.
func contentItems(items []protocol.Item) []contentItem {
	out := make([]contentItem, 0, len(items))
	for _, it := range items {
		if it.Type == "image" {
			d := it.Detail
			if d == "" {
				d = "high"
			}
			out = append(out, contentItem{Type: "input_image", ImageURL: it.ImageURL, Detail: d})
			continue
		}
		out = append(out, contentItem{Type: "input_text", Text: it.Text})
	}
	return out
}

// stackPos finds line-1 positions in the cell's stack traces, which the
// prelude shifted.
var stackPos = regexp.MustCompile(regexp.QuoteMeta(Origin) + `:1:(\d+)`)

// errorText is Codex's error_text: the error's stack when it has one,
// else its value as a string; nil when the cell completed.
func errorText(e *protocol.ErrorInfo) *string {
	if e == nil {
		return nil
	}
	var s string
	switch {
	case e.Name == "Error" && e.Message == "Not supported":
		// V8's words for a dynamic import(), which no cell may make.
		s = "unsupported import in exec"
	case e.Stack != "":
		lines := strings.Split(e.Stack, "\n")
		kept := lines[:0]
		for _, l := range lines {
			if inPrelude(l) {
				// The prelude's frames are Codex's native code: none,
				// nor the JSON.stringify its text() called.
				if n := len(kept); n > 0 && strings.TrimSpace(kept[n-1]) == "at JSON.stringify (<anonymous>)" {
					kept = kept[:n-1]
				}
				continue
			}
			if !strings.Contains(l, "(codemode:") && !strings.HasPrefix(strings.TrimSpace(l), "at codemode:") {
				kept = append(kept, l) // our bindings' frames are not the script's
			}
		}
		s = stackPos.ReplaceAllStringFunc(strings.Join(kept, "\n"), func(m string) string {
			n, _ := strconv.Atoi(m[len(Origin)+3:])
			return Origin + ":1:" + strconv.Itoa(max(1, n-len(prelude)))
		})
	case e.Name == "Error" && strings.HasPrefix(e.Message, "Uncaught "):
		s = strings.TrimPrefix(e.Message, "Uncaught ")
	default:
		s = e.Name + ": " + e.Message
	}
	return &s
}

// inPrelude tells whether a stack line is a frame of the prelude.
func inPrelude(line string) bool {
	m := stackPos.FindStringSubmatch(line)
	if m == nil || !strings.HasPrefix(strings.TrimSpace(line), "at ") {
		return false
	}
	n, _ := strconv.Atoi(m[1])
	return n <= len(prelude)
}

// truncateItems applies Codex's server-side budget of tokens (4 bytes
// each). Output that is all text, when over the budget, becomes one
// input_text that keeps its head and tail, with a header that says how
// much there was. Output with images keeps its items in order: each
// text item takes what it costs from the budget, the one that does not
// fit keeps its head and tail, the ones after it are left out and
// counted in a last "[omitted N text items ...]" item; empty ones are
// dropped; images all stay.
func truncateItems(items []protocol.Item, tokens int) []protocol.Item {
	var texts []string
	for _, it := range items {
		if it.Type == "image" {
			return truncateEach(items, tokens)
		}
		texts = append(texts, it.Text)
	}
	all := strings.Join(texts, "\n")
	total := approxTokens(all)
	if total <= tokens {
		return items
	}
	text := fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s",
		total, strings.Count(all, "\n")+1, headTail(all, tokens))
	return []protocol.Item{{Type: "text", Text: text}}
}

// truncateEach is truncateItems for output with images.
func truncateEach(items []protocol.Item, tokens int) []protocol.Item {
	out := make([]protocol.Item, 0, len(items)+1)
	left, omitted := tokens, 0
	for _, it := range items {
		switch {
		case it.Type == "image":
			out = append(out, it)
		case it.Text == "":
			// Dropped, not counted.
		case left == 0:
			omitted++
		case approxTokens(it.Text) <= left:
			out = append(out, it)
			left -= approxTokens(it.Text)
		default:
			it.Text = headTail(it.Text, left)
			out = append(out, it)
			left = 0
		}
	}
	if omitted > 0 {
		out = append(out, protocol.Item{Type: "text", Text: fmt.Sprintf("[omitted %d text items ...]", omitted)})
	}
	return out
}

// approxTokens is Codex's token estimate: 4 bytes each, rounded up.
func approxTokens(s string) int { return (len(s) + 3) / 4 }

// headTail keeps the first and last tokens*2 bytes of s (on rune
// boundaries) around a marker that counts the tokens left out.
func headTail(s string, tokens int) string {
	half := tokens * 4 / 2
	h := min(half, len(s))
	for h > 0 && h < len(s) && !utf8.RuneStart(s[h]) {
		h--
	}
	tailStart := max(len(s)-half, h)
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	return fmt.Sprintf("%s…%d tokens truncated…%s", s[:h], approxTokens(s)-tokens, s[tailStart:])
}

// moduleError is the error_text Codex's host reports for a source that
// our async wrapper would run but an ES module may not: a top-level
// return, or a static import. Only sources that mention one are parsed.
func moduleError(src string) string {
	if strings.Contains(src, "return") {
		r := api.Transform(src+"\n;export {}", api.TransformOptions{Format: api.FormatESModule, Loader: api.LoaderJS})
		for _, e := range r.Errors {
			if strings.Contains(e.Text, "Top-level return") {
				return "SyntaxError: Illegal return statement"
			}
		}
	}
	if strings.Contains(src, "import") {
		var mu sync.Mutex
		first := ""
		api.Build(api.BuildOptions{Stdin: &api.StdinOptions{Contents: src, Loader: api.LoaderJS}, Bundle: true, Write: false,
			Format: api.FormatESModule, LogLevel: api.LogLevelSilent, Plugins: []api.Plugin{{Name: "imports", Setup: func(b api.PluginBuild) {
				b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
					mu.Lock()
					if a.Kind == api.ResolveJSImportStatement && first == "" {
						first = a.Path
					}
					mu.Unlock()
					return api.OnResolveResult{Path: a.Path, External: true}, nil
				})
			}}}})
		if first != "" {
			return "Unsupported import in exec: " + first
		}
	}
	return ""
}

// tsHint finds what only TypeScript writes: a type annotation, an
// interface, a type alias, an enum, an `as` cast, a generic argument or a
// parameter property. It only decides whether a cell is worth parsing
// twice (see language).
var tsHint = regexp.MustCompile(`:\s*(string|number|boolean|any|unknown|void|never|object|bigint|Record|Array|Promise|[A-Z]\w*)\b|` +
	`\binterface\s+[A-Za-z_$]|\btype\s+[A-Za-z_$][\w$]*\s*(<[^>]*>)?\s*=|\benum\s+[A-Za-z_$]|\bas\s+(const\b|[A-Za-z_$])|` +
	`<[A-Z][\w$]*(\[\])?>|\b(private|public|protected|readonly)\s+[A-Za-z_$]`)

// language is how a Codex cell is run: JavaScript, as in Codex's host,
// unless it does not parse as JavaScript but does as TypeScript (what our
// host adds: the types are stripped, errors still point into the source
// the model wrote). A JavaScript syntax error is thus V8's own, in V8's
// words, as Codex's host reports it; only a cell that looks like
// TypeScript pays for the extra parse.
func language(src string) protocol.Language {
	if !tsHint.MatchString(src) {
		return protocol.LangJS
	}
	parses := func(l api.Loader) bool {
		return len(api.Transform(src+"\n;export {}", api.TransformOptions{Format: api.FormatESModule, Loader: l}).Errors) == 0
	}
	if parses(api.LoaderJS) || !parses(api.LoaderTS) {
		return protocol.LangJS
	}
	return protocol.LangTS
}

// prelude makes a cell's globals Codex's where ours differ:
//
//   - content, as_settled and stream_settled, which ours lacks (as_settled
//     as Codex's: an async generator of results with their index, a Map's
//     keys for a Map); content() takes MCP content blocks only and throws
//     Codex's string for anything else;
//   - text(): a string as it is, a number, boolean or bigint as String
//     gives it, anything else as JSON.stringify does ("undefined" when that
//     gives nothing; its errors are the script's);
//   - image() refuses what Codex's refuses, in its words (a remote URL is
//     refused in ours: RemoteImage), and an MCP image block without a
//     mimeType is application/octet-stream;
//   - store() keeps what JSON.stringify makes of a value and refuses what
//     it cannot hold in Codex's words;
//   - setTimeout refuses a callback that is not a function as Codex's does,
//     and passes it no arguments.
//
// It runs first in the cell, on the source's first line, so no line number
// moves; errorText takes its length out of line-1 columns.
const prelude = `;(()=>{const g=globalThis,def=(n,f)=>Object.defineProperty(g,n,{value:f,writable:true,enumerable:false,configurable:true});` +
	`const T=g.text;def("text",function text(v){return T(typeof v==="string"?v:typeof v==="number"||typeof v==="boolean"||typeof v==="bigint"?` +
	`String(v):JSON.stringify(v)??"undefined");});` +
	`const isS=(x)=>typeof x==="string",I=g.image,IE="image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";` +
	`const url=(u)=>{if(!isS(u)||u==="")throw IE;if(!/^(data:|https?:)/i.test(u))throw "Tool call failed: invalid image output. Pass a base64 data URI instead";};` +
	`def("image",function image(v){if(isS(v))url(v);else if(v===null||typeof v!=="object"||Array.isArray(v))throw IE;` +
	`else if(v.type==="image"){if(!isS(v.data))throw "image expected MCP image data";if(v.mimeType==null)v={...v,mimeType:"application/octet-stream"};}` +
	`else{url(v.image_url);const d=v.detail;if(d!=null){if(!isS(d))throw "image detail must be a string when provided";` +
	`if(!["auto","low","high","original"].includes(d.toLowerCase()))throw "image detail must be one of: auto, low, high, original";}}return I(v);});` +
	`const St=g.store;def("store",function store(k,v){if(typeof k==="symbol")return St(k,v);` +
	`if(v===undefined)throw "Unable to store "+JSON.stringify(String(k))+". Only plain serializable objects can be stored.";` +
	`const j=JSON.stringify(v);if(j===undefined)throw "failed to serialize JavaScript value: expected value at line 1 column 1";` +
	`return St(k,JSON.parse(j));});` +
	`const ST=g.setTimeout;def("setTimeout",function setTimeout(f,d){if(typeof f!=="function")throw "setTimeout expects a function callback";return ST(f,d);});` +
	`const bad="content expects one MCP ContentBlock";` +
	`const emitBlock=(v)=>{if(v===null||typeof v!=="object")throw bad;switch(v.type){` +
	`case "text":if(!isS(v.text))throw bad;return text(v.text);` +
	`case "image":if(!isS(v.data)||(v.mimeType!=null&&!isS(v.mimeType)))throw bad;return image({type:"image",data:v.data,mimeType:v.mimeType});` +
	`case "resource_link":if(!isS(v.uri)||!isS(v.name))throw bad;return text(JSON.stringify(v));` +
	`case "resource":{const r=v.resource;if(r===null||typeof r!=="object"||!isS(r.uri)||!(isS(r.text)||isS(r.blob)))throw bad;return text(JSON.stringify(v));}` +
	`case "audio":return text(JSON.stringify(v));}throw bad;};` +
	`def("content",function content(value){const it=typeof value==="string"?undefined:value?.[Symbol.iterator];` +
	`if(typeof it!=="function")return emitBlock(value);for(const v of value)emitBlock(v);});` +
	`def("as_settled",function as_settled(promises){let ready=[],pending=0,wake,closed=false;` +
	`const settle=(r)=>{pending--;if(closed)return;ready.push(r);if(wake){const w=wake;wake=undefined;w();}};` +
	`const keyed=promises instanceof Map;let position=0;try{for(const entry of promises){const[index,p]=keyed?entry:[position++,entry];pending++;` +
	`Promise.resolve(p).then((value)=>settle({index,status:"fulfilled",value}),(reason)=>settle({index,status:"rejected",reason}));}}` +
	`catch(e){closed=true;throw e;}return(async function*(){try{while(pending>0||ready.length>0){if(ready.length===0)await new Promise((r)=>{wake=r;});` +
	`const batch=ready;ready=[];yield*batch;}}finally{closed=true;ready=[];}})();});` +
	`def("stream_settled",async function stream_settled(promises,emit){if(typeof emit!=="function")throw new TypeError("stream_settled requires a callback");` +
	`for await(const r of as_settled(promises))await emit(r);});})();`
