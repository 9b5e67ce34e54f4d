package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// DefaultStateFlushDelay is how long after a session's first unsaved
// change its state file is written, unless StateConfig says otherwise.
const DefaultStateFlushDelay = 100 * time.Millisecond

// stateFileVersion is the version of the session state file format this
// package writes and reads.
const stateFileVersion = 1

// StateConfig says where and when per-session tool state is saved (see
// StateKey). The zero value keeps state in memory only.
//
// Durability: with Dir set, a change made through StateKey is on disk
// (written to a temporary file, synced, renamed over the session's file)
// at most FlushDelay after it was made, plus the time to write it; with
// Sync, before StateKey.Set or Update returns, and so before the tool call
// that made it returns. Registry.Close and Registry.FlushState write every
// unsaved change. A process killed before then loses the unsaved changes
// and nothing else: the file always holds a complete earlier state.
type StateConfig struct {
	// Dir is the directory of the state files, one per session, created
	// when first needed. Default "": state lives in memory only and is
	// lost when the process ends.
	Dir string
	// FlushDelay is how long after a session's first unsaved change its
	// file is written; changes made meanwhile are written together.
	// Default DefaultStateFlushDelay.
	FlushDelay time.Duration
	// Sync writes the file before each change returns, instead of after
	// FlushDelay. Default false.
	Sync bool
	// OnWrite, if set, is called after each attempt to write a session's
	// file, with the error if it failed (the change stays unsaved and is
	// written with the next one). Called from the writing goroutine: the
	// caller of the change with Sync, else a timer goroutine. Default none.
	OnWrite func(sessionID string, err error)
}

// stateFile is a session's state file.
type stateFile struct {
	Version int                        `json:"version"`
	Session string                     `json:"session"`
	Tools   map[string]json.RawMessage `json:"tools"`
	Config  map[string]json.RawMessage `json:"config"`
}

// StateKey names one typed value of per-session state that tools keep
// across calls (a todo list, a cursor) or one typed value of per-session
// configuration. Declare keys once, as package variables, and reach the
// session through the call: key.Update(registry.SessionStateOf(ctx), ...).
// Values are stored as JSON, so T must round-trip through encoding/json;
// Get returns a copy. The key's name is shared by every tool that uses it
// in a session; prefix it with the tool's name when it is the tool's own.
type StateKey[T any] struct {
	name   string
	config bool
}

// NewStateKey returns the key of a state value named name: state that
// tools change (saved in the file's "tools" object).
func NewStateKey[T any](name string) StateKey[T] { return StateKey[T]{name: name} }

// NewConfigKey returns the key of a configuration value named name: the
// agent sets it (usually through Registry.SessionState) and tools read it
// (saved in the file's "config" object, apart from state of the same
// name).
func NewConfigKey[T any](name string) StateKey[T] { return StateKey[T]{name: name, config: true} }

// Name is the key's name.
func (k StateKey[T]) Name() string { return k.name }

// Get returns the session's value, or the zero T when it has none. It
// fails when s is nil or the session's file can't be read. Safe from any
// goroutine.
func (k StateKey[T]) Get(s *SessionState) (T, error) {
	var v T
	e, err := s.entry()
	if err != nil {
		return v, err
	}
	e.mu.Lock()
	raw := e.section(k.config)[k.name]
	e.mu.Unlock()
	if raw == nil {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("registry: session %q: the saved %s can't be decoded into %T: %w; delete the key or migrate the value", s.id, k.describe(), v, err)
	}
	return v, nil
}

// Set replaces the session's value. See StateConfig for when it is saved.
// Safe from any goroutine.
func (k StateKey[T]) Set(s *SessionState, v T) error {
	return k.Update(s, func(p *T) error { *p = v; return nil })
}

// Update changes the session's value in place: fn gets the current value
// (the zero T when there is none) and the change is kept only if fn
// returns nil. Updates of one session are serialised, so read-modify-write
// is safe; fn must not use the same session's state. See StateConfig for
// when the change is saved. Safe from any goroutine.
func (k StateKey[T]) Update(s *SessionState, fn func(v *T) error) error {
	e, err := s.entry()
	if err != nil {
		return err
	}
	e.mu.Lock()
	var v T
	sec := e.section(k.config)
	if raw := sec[k.name]; raw != nil {
		if err := json.Unmarshal(raw, &v); err != nil {
			e.mu.Unlock()
			return fmt.Errorf("registry: session %q: the saved %s can't be decoded into %T: %w; delete the key or migrate the value", s.id, k.describe(), v, err)
		}
	}
	if err := fn(&v); err != nil {
		e.mu.Unlock()
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		e.mu.Unlock()
		return fmt.Errorf("registry: session %q: %s can't be encoded as JSON: %w; store a JSON-friendly type", s.id, k.describe(), err)
	}
	sec[k.name] = raw
	e.dirty = true
	e.mu.Unlock()
	return s.store.changed(e)
}

// Delete removes the session's value. Safe from any goroutine.
func (k StateKey[T]) Delete(s *SessionState) error {
	e, err := s.entry()
	if err != nil {
		return err
	}
	e.mu.Lock()
	sec := e.section(k.config)
	_, had := sec[k.name]
	delete(sec, k.name)
	e.dirty = e.dirty || had
	e.mu.Unlock()
	if !had {
		return nil
	}
	return s.store.changed(e)
}

func (k StateKey[T]) describe() string {
	if k.config {
		return fmt.Sprintf("config %q", k.name)
	}
	return fmt.Sprintf("state %q", k.name)
}

// SessionState is one session's tool state and configuration, read and
// changed through StateKey values. Tools get it from their call
// (SessionStateOf, Invocation.SessionState); the agent from
// Registry.SessionState. Safe from any goroutine.
type SessionState struct {
	store *stateStore
	id    string
}

// ID is the session's id.
func (s *SessionState) ID() string {
	if s == nil {
		return ""
	}
	return s.id
}

type sessionStateKey struct{}

// SessionStateOf is the state of the session of the call whose context is
// ctx (the call's SessionID; calls without one share the session ""), or
// nil outside a call dispatched by a ToolSet. StateKey methods fail on
// nil.
func SessionStateOf(ctx context.Context) *SessionState {
	s, _ := ctx.Value(sessionStateKey{}).(*SessionState)
	return s
}

// SessionState is the state of the call's session, as SessionStateOf.
func (inv Invocation) SessionState() *SessionState {
	if inv.ToolSet == nil || inv.ToolSet.state == nil {
		return nil
	}
	return &SessionState{store: inv.ToolSet.state, id: inv.SessionID}
}

func (s *SessionState) entry() (*sessionEntry, error) {
	if s == nil || s.store == nil {
		return nil, errors.New("registry: no session state here; use StateKey inside a tool call dispatched by a ToolSet, or on Registry.SessionState")
	}
	return s.store.load(s.id)
}

// SessionState opens the state of session id, reading its file the first
// time (the session is "reopened" after a restart simply by using its id
// again). It fails when the file can't be read. Safe from any goroutine.
func (r *Registry) SessionState(id string) (*SessionState, error) {
	if _, err := r.state.load(id); err != nil {
		return nil, err
	}
	return &SessionState{store: r.state, id: id}, nil
}

// FlushState writes every session's unsaved state now and returns the
// first error. Safe from any goroutine.
func (r *Registry) FlushState() error { return r.state.flushAll() }

// CloseSession writes the session's unsaved state and forgets it; the
// next use of the id reads the file again. Safe from any goroutine.
func (r *Registry) CloseSession(id string) error { return r.state.forget(id) }

// Close writes every session's unsaved state and stops the flush timer.
// Changes made after Close are written before they return. Safe from any
// goroutine; it may be called more than once.
func (r *Registry) Close() error { return r.state.close() }

// sessionEntry is one session's state in memory.
type sessionEntry struct {
	id   string
	file string // "" when state is not saved

	mu     sync.Mutex
	loaded bool
	tools  map[string]json.RawMessage
	config map[string]json.RawMessage
	dirty  bool // changed since the last snapshot was taken for writing

	writeMu sync.Mutex // serialises writes of the file, in snapshot order
}

func (e *sessionEntry) section(config bool) map[string]json.RawMessage {
	if config {
		return e.config
	}
	return e.tools
}

// stateStore keeps every session's state and writes it to disk.
type stateStore struct {
	cfg StateConfig
	log hclog.Logger

	mu       sync.Mutex
	sessions map[string]*sessionEntry
	pending  map[*sessionEntry]bool // waiting for the timer
	timer    *time.Timer
	closed   bool
}

func newStateStore(cfg StateConfig, log hclog.Logger) *stateStore {
	if cfg.FlushDelay <= 0 {
		cfg.FlushDelay = DefaultStateFlushDelay
	}
	return &stateStore{cfg: cfg, log: log, sessions: map[string]*sessionEntry{}, pending: map[*sessionEntry]bool{}}
}

// plainID is a session id used as its file name as it is.
var plainID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// fileName is the state file of session id: the id itself when it is a
// safe file name, else "_" and a hash of it (the file records the id).
func fileName(id string) string {
	if plainID.MatchString(id) {
		return id + ".json"
	}
	sum := sha256.Sum256([]byte(id))
	return "_" + hex.EncodeToString(sum[:16]) + ".json"
}

// load returns the session's entry, reading its file the first time.
func (st *stateStore) load(id string) (*sessionEntry, error) {
	st.mu.Lock()
	e := st.sessions[id]
	if e == nil {
		e = &sessionEntry{id: id}
		if st.cfg.Dir != "" {
			e.file = filepath.Join(st.cfg.Dir, fileName(id))
		}
		st.sessions[id] = e
	}
	st.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.loaded {
		return e, nil
	}
	f, err := readStateFile(e.file, id)
	if err != nil {
		return nil, err
	}
	e.tools, e.config, e.loaded = f.Tools, f.Config, true
	return e, nil
}

// readStateFile reads a session's file; a missing file is an empty state.
func readStateFile(path, id string) (stateFile, error) {
	f := stateFile{Tools: map[string]json.RawMessage{}, Config: map[string]json.RawMessage{}}
	if path == "" {
		return f, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	fail := func(format string, args ...any) (stateFile, error) {
		return stateFile{}, fmt.Errorf("registry: the state of session %q in %s %s", id, path, fmt.Sprintf(format, args...))
	}
	if err != nil {
		return fail("can't be read: %v; check the file's permissions", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return fail("is not valid JSON (%v); restore or delete the file, and the session starts empty", err)
	}
	switch {
	case f.Version > stateFileVersion:
		return fail("has version %d, newer than this program's %d; upgrade the program", f.Version, stateFileVersion)
	case f.Version < 1:
		return fail("has no version; it is not a state file, move it out of the state directory")
	case f.Session != id:
		return fail("belongs to session %q; move it out of the state directory", f.Session)
	}
	if f.Tools == nil {
		f.Tools = map[string]json.RawMessage{}
	}
	if f.Config == nil {
		f.Config = map[string]json.RawMessage{}
	}
	return f, nil
}

// changed saves e now (Sync, or after Close) or schedules it.
func (st *stateStore) changed(e *sessionEntry) error {
	if e.file == "" {
		return nil
	}
	st.mu.Lock()
	if st.cfg.Sync || st.closed {
		st.mu.Unlock()
		return st.write(e)
	}
	st.pending[e] = true
	if st.timer == nil {
		st.timer = time.AfterFunc(st.cfg.FlushDelay, st.flushPending)
	}
	st.mu.Unlock()
	return nil
}

// flushPending writes the sessions the timer was started for.
func (st *stateStore) flushPending() {
	st.mu.Lock()
	pending := st.pending
	st.pending = map[*sessionEntry]bool{}
	st.timer = nil
	st.mu.Unlock()
	for e := range pending {
		_ = st.write(e) // logged and reported by write
	}
}

// write saves e's state if it has unsaved changes.
func (st *stateStore) write(e *sessionEntry) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	e.mu.Lock()
	if !e.dirty {
		e.mu.Unlock()
		return nil
	}
	data, err := json.MarshalIndent(stateFile{Version: stateFileVersion, Session: e.id, Tools: e.tools, Config: e.config}, "", "  ")
	e.dirty = false
	e.mu.Unlock()
	if err == nil {
		err = writeFileAtomic(e.file, append(data, '\n'))
	}
	if err != nil {
		e.mu.Lock()
		e.dirty = true
		e.mu.Unlock()
		err = fmt.Errorf("registry: saving the state of session %q: %w; check StateConfig.Dir (the change is kept in memory and saved with the next one)", e.id, err)
		st.log.Error("saving session state failed", "session", e.id, "error", err)
	}
	if st.cfg.OnWrite != nil {
		st.cfg.OnWrite(e.id, err)
	}
	return err
}

// writeFileAtomic replaces path with data: a synced temporary file in the
// same directory is renamed over it, and the directory is synced, so the
// file holds either the old or the new data after a crash.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// flushAll writes every session with unsaved changes.
func (st *stateStore) flushAll() error {
	st.mu.Lock()
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
	st.pending = map[*sessionEntry]bool{}
	all := make([]*sessionEntry, 0, len(st.sessions))
	for _, e := range st.sessions {
		all = append(all, e)
	}
	st.mu.Unlock()
	var first error
	for _, e := range all {
		if e.file == "" {
			continue
		}
		if err := st.write(e); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (st *stateStore) forget(id string) error {
	st.mu.Lock()
	e := st.sessions[id]
	delete(st.sessions, id)
	delete(st.pending, e)
	st.mu.Unlock()
	if e == nil || e.file == "" {
		return nil
	}
	return st.write(e)
}

func (st *stateStore) close() error {
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	return st.flushAll()
}
