// Package jsbindings installs everything a script sees in its global scope:
// tools.<ident>(), ALL_TOOLS, console, text, timers, exit, ToolError and
// the standard library (package stdlib, plus crypto and performance).
//
// The JS half lives in stdlib/stdlib.js and prelude.js, compiled once per
// isolate and run in every context; the Go half is a handful of host
// functions created once per isolate. Every function in this package must
// be called on the goroutine that owns the isolate (the loop goroutine).
package jsbindings

import (
	"crypto/rand"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	v8 "rogchap.com/v8go"

	"github.com/codemode-host/codemode-host/internal/v8shim"
	"github.com/codemode-host/codemode-host/internal/wellformed"
	"github.com/codemode-host/codemode-host/jsbindings/stdlib"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/toolsearch"
)

//go:embed prelude.js
var preludeSource string

// PreludeOrigin is the script name prelude frames carry in stack traces.
const PreludeOrigin = "codemode:prelude.js"

// Host is the runtime side of the bindings: what a cell does when the
// script calls a helper. Every method is called on the loop goroutine,
// from inside a JS→Go callback, and must not block.
type Host interface {
	// CallTool starts call of the tool at index (in the cell's tool table)
	// with input as JSON text, and returns the promise the script awaits.
	CallTool(index int, input string) (*v8.Value, error)
	// Output records one output item.
	Output(item protocol.Item)
	// SetTimer arms timer id to fire after delayMS; a negative delay
	// cancels it.
	SetTimer(id int, delayMS float64)
	// Exit ends the cell successfully; the script must not run on.
	Exit()
	// Unhandled reports how many rejected promises have no handler now.
	Unhandled(count int)
	// Notify sends text to the parent at once as a progress event; an
	// error becomes a TypeError in the script.
	Notify(text string) error
	// Yield asks for the output so far to be returned to whoever waits on
	// the cell, while the script keeps running.
	Yield()
	// Search ranks the cell's tools for query and returns the indexes of
	// the best limit, as a JSON array.
	Search(query string, limit int) string
	// Store records the script's write of key (its JSON text value) at
	// once, so it is kept whatever ends the cell; an error (a
	// *NamedError for a RangeError) is thrown in the script and the write
	// does not happen.
	Store(key, value string) error
	// ScriptLimits are the bounds the script's helpers apply before data
	// crosses into Go. Install reads them once.
	ScriptLimits() ScriptLimits
	// Stopped reports whether the cell was stopped (a limit, terminate,
	// exit). V8 swallows a termination that arrives while it formats an
	// Error's stack (a name getter that loops, say); the prelude asks
	// after such a read so it does not run the script's code on.
	Stopped() bool
}

// ScriptLimits bound what the script's helpers hand to Go, in the JS,
// before it crosses: no string larger than these leaves V8.
type ScriptLimits struct {
	// OutputBytes is the cell's output limit: longer text (text(),
	// console.*, the return value) is cut in the middle with a note where
	// the cut is, and a larger image data URL is a RangeError.
	OutputBytes int `json:"outputBytes"`
	// StoreBytes is the session's store limit: a key and JSON value longer
	// than it together are a RangeError before they cross. Host.Store
	// counts the store as a whole.
	StoreBytes int `json:"storeBytes"`
}

// Bounds the helpers apply whatever the cell's limits.
const (
	// NotifyTextBytes is the longest notify() text: a longer one is cut in
	// the middle with a note where the cut is.
	NotifyTextBytes = 4 << 10
	// ErrorTextBytes is the longest name, message and stack of a thrown
	// value that Describe and FirstUnhandled report; longer ones are cut in
	// the middle with a note.
	ErrorTextBytes = 16 << 10
	// MaxSearchQuery is the longest searchTools query, in UTF-16 code
	// units; a longer one is a RangeError.
	MaxSearchQuery = 1000
	// MaxRandomBytes is the most crypto.getRandomValues fills in one call,
	// as in browsers and Node; more is a QuotaExceededError.
	MaxRandomBytes = 65536
)

// scriptLimits is what install receives in the JS.
type scriptLimits struct {
	ScriptLimits
	NotifyBytes      int `json:"notifyBytes"`
	ErrorBytes       int `json:"errorBytes"`
	SearchQueryChars int `json:"searchQueryChars"`
	SearchLimit      int `json:"searchLimit"`
	RandomBytes      int `json:"randomBytes"`
}

// Globals holds the per-isolate templates. Create one per isolate with New
// and use it for every context of that isolate, one cell at a time:
// Prepare a context, Install the cell's tools into it, run the cell, Close.
type Globals struct {
	iso     *v8.Isolate
	tmpl    *v8.ObjectTemplate
	stdlib  *v8.UnboundScript
	prelude *v8.UnboundScript
	host    Host
	current *Context
}

// NamedError is an error a host function raises as a JS error of that
// name (TypeError, RangeError, ...). Other errors raise a TypeError.
type NamedError struct {
	Name    string
	Message string
}

// Error returns "Name: Message".
func (e *NamedError) Error() string { return e.Name + ": " + e.Message }

// New creates the host function templates on iso and compiles the
// standard library and the prelude for it, once: every context runs the
// same compiled code. Loop only.
func New(iso *v8.Isolate) (*Globals, error) {
	g := &Globals{iso: iso, tmpl: v8.NewObjectTemplate(iso)}
	var err error
	if g.stdlib, err = iso.CompileUnboundScript(stdlib.Source, stdlib.Origin, v8.CompileOptions{}); err != nil {
		return nil, fmt.Errorf("jsbindings: compile the standard library: %w", err)
	}
	if g.prelude, err = iso.CompileUnboundScript(preludeSource, PreludeOrigin, v8.CompileOptions{}); err != nil {
		return nil, fmt.Errorf("jsbindings: compile the prelude: %w", err)
	}
	fns := map[string]func(args []*v8.Value) (*v8.Value, error){
		"__cm_call":      g.call,
		"__cm_out":       g.out,
		"__cm_timer":     g.timer,
		"__cm_exit":      g.exit,
		"__cm_unhandled": g.unhandled,
		"__cm_notify":    g.notify,
		"__cm_yield":     g.yield,
		"__cm_search":    g.search,
		"__cm_store":     g.store,
		"__cm_random":    g.random,
		"__cm_now":       g.now,
		"__cm_stopped": func([]*v8.Value) (*v8.Value, error) {
			return v8.NewValue(iso, g.host.Stopped())
		},
		// Called by the prelude while a context is current: the hook the
		// shim calls on rejections moves out of the script's reach.
		"__cm_adopt_reject": func([]*v8.Value) (*v8.Value, error) {
			return v8.NewValue(iso, v8shim.AdoptRejectHook(iso))
		},
	}
	for name, fn := range fns {
		if err := g.tmpl.Set(name, v8.NewFunctionTemplate(iso, g.guard(name, fn))); err != nil {
			return nil, fmt.Errorf("jsbindings: install %s: %w", name, err)
		}
	}
	return g, nil
}

// ToolEntry is one row of the tool table a context is given.
type ToolEntry struct {
	Ident       string `json:"ident"`
	Qualified   string `json:"qualified"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
	Declaration string `json:"declaration"`
}

// Context is a fresh V8 context with the bindings installed.
type Context struct {
	*v8.Context
	internals *v8.Object
	globals   *Globals
	origin    time.Time // performance.now() counts from here
}

// Prepare creates a context and runs the standard library and the
// prelude, leaving the tools and the store for Install: a worker prepares
// its next context while it is idle, so a cell does not wait for it. Loop
// only.
func (g *Globals) Prepare() (*Context, error) {
	ctx := v8.NewContext(g.iso, g.tmpl)
	if _, err := g.stdlib.Run(ctx); err != nil {
		ctx.Close()
		return nil, fmt.Errorf("jsbindings: standard library failed: %w", err)
	}
	val, err := g.prelude.Run(ctx)
	if err != nil {
		ctx.Close()
		return nil, fmt.Errorf("jsbindings: prelude failed: %w", err)
	}
	internals, err := val.AsObject()
	if err != nil {
		ctx.Close()
		return nil, fmt.Errorf("jsbindings: prelude returned %s, not an object", val.DetailString())
	}
	return &Context{Context: ctx, internals: internals, globals: g, origin: time.Now()}, nil
}

// Install makes c the context whose callbacks go to host, binds tools,
// seeds load() with store and gives the helpers host.ScriptLimits(). Call
// it once per prepared context. Loop only.
func (c *Context) Install(host Host, tools []ToolEntry, store map[string]json.RawMessage) error {
	table, err := json.Marshal(tools)
	if err != nil {
		return fmt.Errorf("jsbindings: encode tool table: %w", err)
	}
	tv, err := v8.JSONParse(c.Context, string(table))
	if err != nil {
		return fmt.Errorf("jsbindings: parse tool table: %w", err)
	}
	defer tv.Release()
	snapshot := make(map[string]string, len(store))
	for k, v := range store {
		snapshot[k] = string(v)
	}
	sj, err := json.Marshal(snapshot)
	if err != nil {
		return fmt.Errorf("jsbindings: encode store: %w", err)
	}
	sv, err := v8.JSONParse(c.Context, string(sj))
	if err != nil {
		return fmt.Errorf("jsbindings: parse store: %w", err)
	}
	defer sv.Release()
	lj, err := json.Marshal(scriptLimits{ScriptLimits: host.ScriptLimits(),
		NotifyBytes: NotifyTextBytes, ErrorBytes: ErrorTextBytes, SearchQueryChars: MaxSearchQuery, SearchLimit: toolsearch.DefaultLimit,
		RandomBytes: MaxRandomBytes})
	if err != nil {
		return fmt.Errorf("jsbindings: encode limits: %w", err)
	}
	lv, err := v8.JSONParse(c.Context, string(lj))
	if err != nil {
		return fmt.Errorf("jsbindings: parse limits: %w", err)
	}
	defer lv.Release()
	c.globals.host = host
	c.globals.current = c
	c.origin = time.Now()
	if _, err := c.internals.MethodCall("install", tv, sv, lv); err != nil {
		return fmt.Errorf("jsbindings: install tools: %w", err)
	}
	return nil
}

// FireTimer runs timer id's callback. An error is the callback's exception.
func (c *Context) FireTimer(id int) error {
	n, err := v8.JSONParse(c.Context, strconv.Itoa(id))
	if err != nil {
		return err
	}
	defer n.Release()
	_, err = c.internals.MethodCall("fireTimer", n)
	return err
}

// Describe returns the name, message and stack of a thrown value.
func (c *Context) Describe(v *v8.Value) (protocol.ErrorInfo, error) {
	info, _, err := c.errorInfo("describe", v)
	return info, err
}

// FirstUnhandled describes the first rejection that has no handler.
func (c *Context) FirstUnhandled() (protocol.ErrorInfo, bool, error) {
	return c.errorInfo("firstUnhandled")
}

// Result formats the script's return value, cut to the output limit: ok is
// false for undefined.
func (c *Context) Result(v *v8.Value) (text string, ok bool, err error) {
	return c.callString("result", v)
}

// callString calls an internal method that returns a string or undefined
// (ok false) and releases what it returned.
func (c *Context) callString(method string, args ...v8.Valuer) (string, bool, error) {
	s, err := c.internals.MethodCall(method, args...)
	if err != nil {
		return "", false, err
	}
	defer s.Release()
	if s.IsUndefined() {
		return "", false, nil
	}
	return goString(s), true, nil
}

// goString is the one place a string leaves V8 for Go: V8's encoding of a
// lone surrogate (and any other invalid UTF-8) becomes U+FFFD, so no
// frame can carry text its peer's decoder refuses.
func goString(v *v8.Value) string {
	return wellformed.String(v.String())
}

// errorInfo calls an internal method that describes an error as JSON.
func (c *Context) errorInfo(method string, args ...v8.Valuer) (protocol.ErrorInfo, bool, error) {
	var info protocol.ErrorInfo
	s, ok, err := c.callString(method, args...)
	if err != nil || !ok {
		return info, false, err
	}
	if err := json.Unmarshal([]byte(s), &info); err != nil {
		return info, false, fmt.Errorf("jsbindings: %s returned bad JSON: %w", method, err)
	}
	return info, true, nil
}

// guard wraps a host function: it releases the callback's handles, turns
// errors into exceptions and recovers panics, which must never unwind
// through V8's frames.
func (g *Globals) guard(name string, fn func(args []*v8.Value) (*v8.Value, error)) v8.FunctionCallback {
	return func(info *v8.FunctionCallbackInfo) (ret *v8.Value) {
		defer func() {
			if r := recover(); r != nil {
				ret = g.throw(fmt.Errorf("%s: internal error: %v", name, r))
			}
		}()
		// Released on every path, a panic's too, after fn read them.
		defer info.Release()
		v, err := fn(info.Args())
		if err != nil {
			return g.throw(err)
		}
		return v
	}
}

// throw raises err in the script as a real Error (TypeError unless err is
// a *NamedError).
func (g *Globals) throw(err error) *v8.Value {
	name, msg := "TypeError", err.Error()
	var ne *NamedError
	if errors.As(err, &ne) {
		name, msg = ne.Name, ne.Message
	}
	if c := g.current; c != nil {
		n, err1 := v8.JSONParse(c.Context, strconv.Quote(name))
		m, err2 := v8.JSONParse(c.Context, jsonString(msg))
		if err1 == nil && err2 == nil {
			if e, err := c.internals.MethodCall("makeError", n, m); err == nil {
				return g.iso.ThrowException(e)
			}
		}
	}
	v, err := v8.NewValue(g.iso, name+": "+msg)
	if err != nil {
		return nil
	}
	return g.iso.ThrowException(v)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (g *Globals) call(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("__cm_call expects 2 arguments")
	}
	return g.host.CallTool(int(args[0].Int32()), goString(args[1]))
}

func (g *Globals) out(args []*v8.Value) (*v8.Value, error) {
	if len(args) < 3 {
		return nil, fmt.Errorf("__cm_out expects 3 or 4 arguments")
	}
	item := protocol.Item{Type: goString(args[0]), Level: goString(args[1])}
	if item.Type == protocol.ItemImage {
		item.ImageURL = goString(args[2])
		if len(args) > 3 {
			item.Detail = goString(args[3])
		}
	} else {
		item.Text = goString(args[2])
	}
	g.host.Output(item)
	return nil, nil
}

func (g *Globals) timer(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("__cm_timer expects 2 arguments")
	}
	g.host.SetTimer(int(args[0].Int32()), args[1].Number())
	return nil, nil
}

func (g *Globals) exit(args []*v8.Value) (*v8.Value, error) {
	g.host.Exit()
	return nil, nil
}

func (g *Globals) unhandled(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("__cm_unhandled expects 1 argument")
	}
	g.host.Unhandled(int(args[0].Int32()))
	return nil, nil
}

func (g *Globals) notify(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("__cm_notify expects 1 argument")
	}
	return nil, g.host.Notify(goString(args[0]))
}

func (g *Globals) yield(args []*v8.Value) (*v8.Value, error) {
	g.host.Yield()
	return nil, nil
}

func (g *Globals) search(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("__cm_search expects 2 arguments")
	}
	if g.current == nil {
		return nil, fmt.Errorf("searchTools: no context")
	}
	return v8.JSONParse(g.current.Context, g.host.Search(goString(args[0]), int(args[1].Int32())))
}

func (g *Globals) store(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("__cm_store expects 2 arguments")
	}
	return nil, g.host.Store(goString(args[0]), goString(args[1]))
}

// random returns n bytes from crypto/rand as a string of n code units,
// each 0-255: crypto.getRandomValues copies them into the script's array.
func (g *Globals) random(args []*v8.Value) (*v8.Value, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("__cm_random expects 1 argument")
	}
	n := int(args[0].Int32())
	if n < 0 || n > MaxRandomBytes {
		return nil, fmt.Errorf("__cm_random: %d bytes is outside 0..%d", n, MaxRandomBytes)
	}
	raw := make([]byte, n)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("crypto.getRandomValues: %w", err)
	}
	text := make([]byte, 0, 2*n)
	for _, b := range raw {
		text = utf8.AppendRune(text, rune(b))
	}
	return v8.NewValue(g.iso, string(text))
}

// now returns the milliseconds since the current cell started, from the
// monotonic clock, to the nanosecond.
func (g *Globals) now([]*v8.Value) (*v8.Value, error) {
	var ms float64
	if c := g.current; c != nil {
		ms = float64(time.Since(c.origin).Nanoseconds()) / 1e6
	}
	return v8.NewValue(g.iso, ms)
}
