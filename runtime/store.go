package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-host/codemode-host/jsbindings"
	"github.com/codemode-host/codemode-host/protocol"
)

// scriptSide is what a cell counts of its script's helper calls: the
// store's size and the bytes of notify texts. Loop only.
type scriptSide struct {
	storeBytes  int  // the store as the cell sees it, by protocol.StoreCost
	storeCount  bool // storeBytes counts the snapshot
	notifyBytes int  // notify texts so far
}

// ScriptLimits implements jsbindings.Host.
func (r *cellRun) ScriptLimits() jsbindings.ScriptLimits {
	lim := r.c.lim
	return jsbindings.ScriptLimits{OutputBytes: lim.outputBytes, StoreBytes: lim.storeBytes}
}

// Stopped implements jsbindings.Host.
func (r *cellRun) Stopped() bool { return r.c.stopped() != nil }

// Store implements jsbindings.Host: it checks the write and records it in
// r.writes, which the cell's Result carries whatever ended it. The limit is
// Limits.StoreBytes over the snapshot the cell started with plus its own
// writes, a replaced key's old value no longer counting. An empty value
// (the script's store(key, undefined)) deletes key: it is recorded as an
// empty value, which frees the key's bytes.
func (r *cellRun) Store(key, value string) error {
	if key == "" {
		return &jsbindings.NamedError{Name: "TypeError", Message: "store: the key must be a non-empty string"}
	}
	if r.c.stopped() != nil {
		// The cell was stopped (exit() included) and V8 let some JS run on:
		// nothing it stores may commit.
		return nil
	}
	if value != "" && !protocol.ValidJSON([]byte(value)) {
		return &jsbindings.NamedError{Name: "TypeError", Message: fmt.Sprintf("store: the value of %s is not valid JSON", keyLabel(key))}
	}
	s := &r.script
	if !s.storeCount {
		for k, v := range r.c.req.Store {
			s.storeBytes += protocol.StoreCost(k, v)
		}
		s.storeCount = true
	}
	old := 0
	v, written := r.writes[key]
	if !written {
		v = r.c.req.Store[key]
	}
	if len(v) > 0 { // a deleted key costs nothing
		old = protocol.StoreCost(key, v)
	}
	if value == "" && len(v) == 0 {
		return nil // deleting what the session does not hold: nothing to record
	}
	raw := json.RawMessage(value)
	next := s.storeBytes - old
	if value != "" {
		next += protocol.StoreCost(key, raw)
	}
	if limit := r.c.lim.storeBytes; next > limit && next > s.storeBytes {
		return &jsbindings.NamedError{Name: "RangeError", Message: fmt.Sprintf(
			"store: storing %s would make the session's store %d bytes, over its limit of %d bytes (store_bytes); store less, or overwrite keys you no longer need with a small value",
			keyLabel(key), next, limit)}
	}
	s.storeBytes = next
	if value == "" && len(r.c.req.Store[key]) == 0 {
		// Written by this cell only: forget the write; the session never
		// had the key. Only deletions of snapshot keys are recorded, so the
		// records stay within the store's own size.
		delete(r.writes, key)
		return nil
	}
	if r.writes == nil {
		r.writes = map[string]json.RawMessage{}
	}
	r.writes[key] = raw
	return nil
}

// keyLabel quotes a store key for an error message, cut to 64 bytes.
func keyLabel(key string) string {
	if len(key) > 64 {
		return fmt.Sprintf("%q...", cutRunes(key, 64, true))
	}
	return fmt.Sprintf("%q", key)
}

// notifyBudget is how many bytes of notify texts a cell may send in all:
// its output budget (limits.budget: the token budget, never more than
// OutputBytes).
func (r *cellRun) notifyBudget() int {
	return r.c.lim.budget().Bytes
}

// checkNotify counts text against the cell's notify limits (the number of
// notifications and their bytes in all) and returns the RangeError the
// script gets when it is over one of them.
func (r *cellRun) checkNotify(text string) error {
	lim := r.c.lim
	if r.notified >= lim.notifications {
		return &jsbindings.NamedError{Name: "RangeError",
			Message: fmt.Sprintf("notify: this cell reached its limit of %d notifications", lim.notifications)}
	}
	if budget := r.notifyBudget(); r.script.notifyBytes+len(text) > budget {
		return &jsbindings.NamedError{Name: "RangeError",
			Message: fmt.Sprintf("notify: this cell's notifications would pass their limit of %d bytes in all (its output budget); notify less often, or with shorter texts", budget)}
	}
	r.notified++
	r.script.notifyBytes += len(text)
	return nil
}
