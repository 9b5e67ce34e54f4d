package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/codemode-host/codemode-host/protocol"
)

// Reserved tool names. External tools may not use the first two in the
// default namespace; in Code Mode, exec and wait are the model-facing Code
// Mode tools and default-namespace tools of those names are dropped; with
// search, tool_search is the search tool.
const (
	ExecCommandName  = "exec_command"
	ShellCommandName = "shell_command"
	ExecToolName     = "exec"
	WaitToolName     = "wait"
	SearchToolName   = "tool_search"
)

// entry is one registered tool. Entries are immutable once created, so
// tool sets share them.
type entry struct {
	tool     Tool
	spec     Spec
	name     ToolName // canonical (Key)
	exposure Exposure
	trusted  bool
	// ungated: the call does not pass the concurrency gate (exec and
	// wait: the cell they run makes its own calls through the gate, and
	// would wait on itself).
	ungated bool
	server  string // external source ("" for trusted and single external tools)
	// serverDesc is the description of the server that added the tool
	// (Server.Description), "" when it has none. It describes the tool's
	// namespace only while the tool is registered.
	serverDesc string
	schema     *jsonschema.Schema
	params     *paramMap // Spec.ParamNames, nil when none
}

func (e *entry) parallel() bool { return e.exposure != Hidden && e.spec.SupportsParallel }

// Registry holds the agent's tools. Add tools, then Finalize a ToolSet for
// each model step. All methods are safe from any goroutine.
type Registry struct {
	cfg   Config
	log   hclog.Logger
	gate  *gate // shared by every set: exclusive tools never overlap
	state *stateStore

	mu              sync.Mutex
	entries         []*entry
	byName          map[ToolName]*entry
	firstCollision  *ToolName
	reminders       []Reminder
	version         uint64 // bumped on every change
	deferredVersion uint64 // bumped when the deferred set changes
	sets            map[Mode]*ToolSet
	latest          *ToolSet
	search          searchCache
}

// New returns an empty registry configured by cfg (see Config for the
// defaults of its zero value).
func New(cfg Config) *Registry {
	cfg = cfg.withDefaults()
	return &Registry{
		cfg:    cfg,
		log:    cfg.Logger.Named("registry"),
		gate:   &gate{},
		state:  newStateStore(cfg.State, cfg.Logger.Named("registry")),
		byName: make(map[ToolName]*entry),
		sets:   make(map[Mode]*ToolSet),
	}
}

func (r *Registry) newEntry(t Tool, exp Exposure, trusted bool, server string) (*entry, error) {
	spec := t.Spec()
	if spec.Name.Name == "" {
		return nil, fmt.Errorf("registry: a tool has an empty name (description %.40q); set Spec.Name", spec.Description)
	}
	if !spec.Kind.Valid() {
		return nil, fmt.Errorf("registry: tool %s has unknown kind %q; use %q or %q", spec.Name, spec.Kind, protocol.KindFunction, protocol.KindFreeform)
	}
	if spec.Kind == "" {
		spec.Kind = protocol.KindFunction
	}
	params, err := advertiseParams(&spec)
	if err != nil {
		return nil, err
	}
	e := &entry{tool: t, spec: spec, name: spec.Name.Key(), exposure: exp, trusted: trusted, server: server, params: params}
	if spec.Kind == protocol.KindFunction {
		s, err := compileSchema(spec.Name, spec.InputSchema)
		if err != nil {
			return nil, err
		}
		e.schema = s
	}
	return e, nil
}

// AddTrusted adds a built-in tool after the others, with the exposure in
// its spec. A name that is taken is a bug: see Config.TrustedDuplicates.
func (r *Registry) AddTrusted(t Tool) error {
	return r.addTrusted(t, t.Spec().Exposure, false)
}

// AddTrustedWithExposure is AddTrusted with exposure exp instead of the
// spec's.
func (r *Registry) AddTrustedWithExposure(t Tool, exp Exposure) error {
	return r.addTrusted(t, exp, false)
}

// PrependTrusted adds a built-in tool before all others, so the model sees
// it first.
func (r *Registry) PrependTrusted(t Tool) error {
	return r.addTrusted(t, t.Spec().Exposure, true)
}

func (r *Registry) addTrusted(t Tool, exp Exposure, first bool) error {
	e, err := r.newEntry(t, exp, true, "")
	if err != nil {
		r.log.Error("refusing tool", "error", err)
		return err
	}
	r.mu.Lock()
	if _, taken := r.byName[e.name]; taken {
		r.mu.Unlock()
		return r.trustedDuplicate(e.name)
	}
	r.insertLocked(e, first)
	r.mu.Unlock()
	return nil
}

func (r *Registry) trustedDuplicate(name ToolName) error {
	err := &DuplicateToolError{Tool: name}
	switch r.cfg.TrustedDuplicates {
	case DuplicatePanic:
		panic(err.Error())
	case DuplicateDefault:
		if testing.Testing() {
			panic(err.Error())
		}
	}
	r.log.Error("duplicate built-in tool", "tool", name.String())
	return err
}

// AddExternal adds a tool from outside the agent (an MCP server, a plugin,
// a dynamic tool) after the others, with the exposure in its spec. It
// reports whether the tool was added. A taken name keeps the first tool,
// logs a warning and records the collision (see Config.Strict). The
// reserved default-namespace names exec_command and shell_command are
// refused (recorded as a collision only if a built-in has the name). An
// invalid spec is refused with a warning.
func (r *Registry) AddExternal(t Tool) bool {
	return r.addExternal(t, t.Spec().Exposure, "")
}

// AddExternalWithExposure is AddExternal with exposure exp instead of the
// spec's.
func (r *Registry) AddExternalWithExposure(t Tool, exp Exposure) bool {
	return r.addExternal(t, exp, "")
}

func (r *Registry) addExternal(t Tool, exp Exposure, server string) bool {
	e, err := r.newEntry(t, exp, false, server)
	if err != nil {
		r.log.Warn("skipping external tool with an invalid spec", "server", server, "error", err)
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addExternalLocked(e)
}

func (r *Registry) addExternalLocked(e *entry) bool {
	if e.name.IsDefaultNamespace() && (e.name.Name == ExecCommandName || e.name.Name == ShellCommandName) {
		r.log.Warn("skipping external tool with a reserved name", "tool", e.name.String(), "server", e.server)
		if _, taken := r.byName[e.name]; taken {
			r.recordCollisionLocked(e.name)
		}
		return false
	}
	if _, taken := r.byName[e.name]; taken {
		r.log.Warn("skipping duplicate external tool; the first registration wins", "tool", e.name.String(), "server", e.server)
		r.recordCollisionLocked(e.name)
		return false
	}
	r.insertLocked(e, false)
	return true
}

func (r *Registry) recordCollisionLocked(name ToolName) {
	if r.firstCollision == nil {
		r.firstCollision = &name
		r.version++
	}
}

func (r *Registry) insertLocked(e *entry, first bool) {
	if first {
		r.entries = slices.Insert(r.entries, 0, e)
	} else {
		r.entries = append(r.entries, e)
	}
	r.byName[e.name] = e
	r.changedLocked(e)
}

func (r *Registry) changedLocked(e *entry) {
	r.version++
	if e.exposure.IsDeferred() {
		r.deferredVersion++
	}
}

// Remove removes the tool named name, trusted or external, and reports
// whether there was one. Tool sets already finalized keep it.
func (r *Registry) Remove(name ToolName) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := name.Key()
	e, ok := r.byName[key]
	if !ok {
		return false
	}
	r.removeLocked(e)
	return true
}

func (r *Registry) removeLocked(e *entry) {
	delete(r.byName, e.name)
	r.entries = slices.DeleteFunc(r.entries, func(x *entry) bool { return x == e })
	r.changedLocked(e)
}

// AddReminder registers a reminder; tool sets finalized from now on run
// it after every successful call.
func (r *Registry) AddReminder(rem Reminder) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reminders = append(r.reminders, rem)
	r.version++
}

// FirstCollision is the first name that collided while registering, if
// any. A collision stays recorded after the tools involved are removed.
func (r *Registry) FirstCollision() (ToolName, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstCollision == nil {
		return ToolName{}, false
	}
	return *r.firstCollision, true
}

// Names lists the registered tools' canonical names in registration order.
func (r *Registry) Names() []ToolName {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ToolName, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.name
	}
	return out
}

// Lookup describes the registered tool named name.
func (r *Registry) Lookup(name ToolName) (ToolInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byName[name.Key()]
	if !ok {
		return ToolInfo{}, false
	}
	return e.info(), true
}

// Latest is the most recently finalized tool set, or nil before the first
// Finalize.
func (r *Registry) Latest() *ToolSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.latest
}

// Dispatch runs call with the most recently finalized tool set. Prefer
// ToolSet.Dispatch with the set that advertised the call.
func (r *Registry) Dispatch(ctx context.Context, call Call) (Result, error) {
	set := r.Latest()
	if set == nil {
		return Result{}, toolError(protocol.CodeInternal, call.Name, "registry: no tool set has been finalized yet; call Registry.Finalize before dispatching")
	}
	return set.Dispatch(ctx, call)
}

// CallTool implements bridge.ToolExecutor with the most recently finalized
// tool set. Prefer passing the set that built a cell's definitions to the
// bridge; this is for callers that don't keep sets.
func (r *Registry) CallTool(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
	set := r.Latest()
	if set == nil {
		return nil, &protocol.ToolError{Code: protocol.CodeInternal, Tool: call.QualifiedName(),
			Message: "registry: no tool set has been finalized yet; call Registry.Finalize before running cells"}
	}
	return set.CallTool(ctx, call)
}
