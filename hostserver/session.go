package hostserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// session is one open session. Its fields are guarded by server.mu.
type session struct {
	id      string
	limits  protocol.Limits
	cells   map[string]*cell
	closing bool
	store   map[string]json.RawMessage // committed store values, by key
}

// liveCells lists the session's cells. Caller holds server.mu.
func (ss *session) liveCells() []*cell {
	out := make([]*cell, 0, len(ss.cells))
	for _, c := range ss.cells {
		out = append(out, c)
	}
	return out
}

func (s *server) openSession(m *protocol.OpenSession) {
	if len(m.Store) > 0 && !s.capable(protocol.CapStore) {
		s.replyError(m.ID, m.Type(), protocol.ErrCodeBadField, "%s", s.notNegotiated("session.open carries a store", protocol.CapStore))
		return
	}
	var override protocol.Limits
	if m.Limits != nil {
		override = *m.Limits
	}
	s.mu.Lock()
	if _, ok := s.sessions[m.Session]; ok {
		s.mu.Unlock()
		s.replyError(m.ID, m.Type(), protocol.ErrCodeSessionExists, "session %q is already open; choose another id or close it first", m.Session)
		return
	}
	if len(s.sessions) >= int(s.limits.SessionsPerHost) {
		s.mu.Unlock()
		s.replyError(m.ID, m.Type(), protocol.ErrCodeLimitExceeded, "the host already has %d open sessions (its limit); close one first", len(s.sessions))
		return
	}
	ss := &session{id: m.Session, limits: s.limits.Merge(override), cells: map[string]*cell{}, store: map[string]json.RawMessage{}}
	for _, e := range m.Store {
		if len(e.Value) > 0 {
			ss.store[e.Key] = e.Value
		}
	}
	if size := storeSize(ss.store); size > int(ss.limits.StoreBytes) {
		s.mu.Unlock()
		s.replyError(m.ID, m.Type(), protocol.ErrCodeLimitExceeded,
			"the store of session %q is %d bytes (protocol.StoreCost: key + value + %d per entry), over its store_bytes limit of %d; restore fewer or smaller entries",
			m.Session, size, protocol.StoreEntryOverhead, ss.limits.StoreBytes)
		return
	}
	s.sessions[m.Session] = ss
	s.mu.Unlock()
	s.log.Debug("session opened", "session", m.Session)
	s.send(&protocol.SessionOpened{ID: m.ID, Session: m.Session, Limits: ss.limits})
}

// lookupSession returns the open session id, or replies unknown_session.
// Caller holds server.mu.
func (s *server) lookupSession(id uint64, t, name string) *session {
	ss, ok := s.sessions[name]
	if !ok || ss.closing {
		s.replyError(id, t, protocol.ErrCodeUnknownSession, "no open session %q; open it with session.open first", name)
		return nil
	}
	return ss
}

func (s *server) closeSession(m *protocol.CloseSession) {
	s.mu.Lock()
	ss := s.lookupSession(m.ID, m.Type(), m.Session)
	if ss == nil {
		s.mu.Unlock()
		return
	}
	s.trackRequest(m.ID, m.Type(), nil)
	ss.closing = true
	cells := ss.liveCells()
	s.mu.Unlock()
	go func() {
		for _, c := range cells {
			c.release()
			c.terminate()
		}
		for _, c := range cells {
			<-c.closed
		}
		s.mu.Lock()
		delete(s.sessions, m.Session)
		s.mu.Unlock()
		s.log.Debug("session closed", "session", m.Session)
		s.forgetRequest(m.ID)
		s.send(&protocol.SessionClosed{ID: m.ID, Session: m.Session})
	}()
}

func (s *server) exec(m *protocol.Exec) {
	switch {
	case m.Language == protocol.LangTS && !s.capable(protocol.CapTypeScript):
		s.replyError(m.ID, m.Type(), protocol.ErrCodeBadField, "%s", s.notNegotiated("exec asks for language ts", protocol.CapTypeScript))
		return
	case m.Language != "" && m.Language != protocol.LangJS && m.Language != protocol.LangTS:
		s.replyError(m.ID, m.Type(), protocol.ErrCodeBadField, "unknown language %q; send js", m.Language)
		return
	case m.Stream && !s.capable(protocol.CapStreamOutput):
		s.replyError(m.ID, m.Type(), protocol.ErrCodeBadField, "%s", s.notNegotiated("exec asks for stream", protocol.CapStreamOutput))
		return
	}
	// The model that wrote the cell may set its yield time and output
	// budget on its first line; the pragma wins over the request's
	// yield_ms, and the budget, like any limit, only tightens.
	pragma, err := protocol.ParsePragma(m.Source)
	if err != nil {
		s.replyError(m.ID, m.Type(), protocol.ErrCodeBadField, "source: %s", err)
		return
	}
	yieldMS := m.YieldMS
	if pragma.YieldMS > 0 {
		yieldMS = pragma.YieldMS
	}
	s.mu.Lock()
	ss := s.lookupSession(m.ID, m.Type(), m.Session)
	if ss == nil {
		s.mu.Unlock()
		return
	}
	var override protocol.Limits
	if m.Limits != nil {
		override = *m.Limits
	}
	override.CellsPerSession = 0
	lim := ss.limits.Merge(override)
	lim = lim.Merge(protocol.Limits{OutputTokens: m.MaxOutputTokens})
	if pragma.OutputTokens > 0 {
		lim = lim.Merge(protocol.Limits{OutputTokens: uint32(min(pragma.OutputTokens, math.MaxUint32))})
	}
	// Cell ids are unique within a session id for the host's lifetime: a
	// session closed and opened again under its id numbers on, so a late
	// wait for an old cell gets unknown_cell, never a new cell's result.
	c := newCell(s, ss.id, fmt.Sprintf("%sc%d", s.cfg.CellPrefix, s.cellCounts[ss.id]+1), lim, m.Stream)
	rc, err := s.rt.Prepare(runtime.CellRequest{
		ID:            c.id,
		SessionID:     ss.id,
		Source:        m.Source,
		Language:      m.Language,
		Origin:        m.Filename,
		Tools:         m.Tools,
		Events:        c,
		Limits:        lim,
		NoTokenBudget: true, // the cell budgets each cell.result (see budget)
		Store:         ss.storeSnapshot(),
	})
	if err != nil {
		s.mu.Unlock()
		var refused *runtime.RefusedError
		if errors.As(err, &refused) {
			s.replyError(m.ID, m.Type(), refused.Code, "%s", refused.Message)
		} else {
			s.replyError(m.ID, m.Type(), protocol.ErrCodeInternal, "hostserver: the cell could not start: %s", err)
		}
		return
	}
	if len(ss.cells) >= int(ss.limits.CellsPerSession) {
		s.mu.Unlock()
		s.replyError(m.ID, m.Type(), protocol.ErrCodeLimitExceeded, "session %q already has %d live cells (its limit); wait for or terminate one first", ss.id, len(ss.cells))
		return
	}
	s.cellCounts[ss.id]++
	c.rc = rc
	s.trackRequest(m.ID, m.Type(), c)
	ss.cells[c.id] = c
	s.mu.Unlock()

	// exec.started goes out before anything the cell can send.
	s.send(&protocol.ExecStarted{ID: m.ID, Session: ss.id, Cell: c.id})
	c.addRequest(m.ID, m.Type(), reqExec, yieldTime(yieldMS), 0)
	if err := rc.Start(); err != nil {
		c.finish(runtime.Result{CellID: c.id, Status: protocol.StatusFailed,
			Error: &protocol.ErrorInfo{Name: "InternalError", Message: "hostserver: the cell could not start: " + err.Error()}})
	}
}

// yieldTime is a request's (or pragma's) yield_ms as a duration: 0 is
// DefaultYieldMS, and a value past what a Duration holds (the pragma takes
// up to 2^53-1 ms) is the longest one rather than a wrapped one.
func yieldTime(ms uint64) time.Duration {
	if ms == 0 {
		ms = protocol.DefaultYieldMS
	}
	return time.Duration(min(ms, uint64(math.MaxInt64/int64(time.Millisecond)))) * time.Millisecond
}

// lookupCell finds a live cell or replies with the right error.
func (s *server) lookupCell(id uint64, t, sessionID, cellID string) *cell {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.lookupSession(id, t, sessionID)
	if ss == nil {
		return nil
	}
	c, ok := ss.cells[cellID]
	if !ok {
		s.replyError(id, t, protocol.ErrCodeUnknownCell, "session %q has no live cell %q (it finished and was closed, or never existed)", sessionID, cellID)
		return nil
	}
	return c
}

func (s *server) wait(m *protocol.Wait) {
	kind := reqWait
	if m.Quiet {
		kind = reqQuietWait // answered as an exec is: at the end, the yield time or yield_control()
	}
	s.cellRequest(m.ID, m.Type(), m.Session, m.Cell, kind, yieldTime(m.YieldMS), m.MaxOutputTokens)
}

func (s *server) terminate(m *protocol.Terminate) {
	if c := s.cellRequest(m.ID, m.Type(), m.Session, m.Cell, reqTerminate, 0, 0); c != nil {
		c.terminate()
	}
}

// cellRequest finds a live cell, tracks request id and attaches it to the
// cell. It answers every failure itself and then returns nil.
func (s *server) cellRequest(id uint64, t, sessionID, cellID string, kind reqKind, yield time.Duration, tokens uint32) *cell {
	c := s.lookupCell(id, t, sessionID, cellID)
	if c == nil {
		return nil
	}
	s.trackRequest(id, t, c)
	if !c.addRequest(id, t, kind, yield, tokens) {
		s.forgetRequest(id)
		s.replyError(id, t, protocol.ErrCodeUnknownCell, "cell %q of session %q has finished and was closed", cellID, sessionID)
		return nil
	}
	return c
}

// removeCell forgets a closed cell.
func (s *server) removeCell(sessionID, cellID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[sessionID]; ok {
		delete(ss.cells, cellID)
	}
}

// commitStore applies a finished cell's store writes to its session (only
// for a cell that completed or failed, DESIGN §5) and returns them sorted
// by key for cell.result (an empty value: the key was deleted), or nil
// without the store capability: then the session keeps its store in the
// host all the same (later cells load it), and the parent is told nothing.
func (s *server) commitStore(sessionID string, res runtime.Result) []protocol.StoreEntry {
	if len(res.StoreWrites) == 0 {
		return nil
	}
	if res.Status != protocol.StatusCompleted && res.Status != protocol.StatusFailed {
		return nil
	}
	entries := make([]protocol.StoreEntry, 0, len(res.StoreWrites))
	s.mu.Lock()
	ss := s.sessions[sessionID]
	for k, v := range res.StoreWrites {
		entries = append(entries, protocol.StoreEntry{Key: k, Value: v})
		if ss == nil {
			continue
		}
		if len(v) == 0 {
			delete(ss.store, k)
		} else {
			ss.store[k] = v
		}
	}
	s.mu.Unlock()
	if !s.capable(protocol.CapStore) {
		return nil
	}
	slices.SortFunc(entries, func(a, b protocol.StoreEntry) int { return strings.Compare(a.Key, b.Key) })
	return entries
}

// storeSize is what store counts against Limits.StoreBytes.
func storeSize(store map[string]json.RawMessage) int {
	n := 0
	for k, v := range store {
		n += protocol.StoreCost(k, v)
	}
	return n
}

// storeSnapshot copies a session's store for a new cell. Caller holds
// server.mu.
func (ss *session) storeSnapshot() map[string]json.RawMessage {
	if len(ss.store) == 0 {
		return nil
	}
	return maps.Clone(ss.store)
}
