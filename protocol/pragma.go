package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// PragmaPrefix starts the optional first line of a cell's source through
// which the model that wrote it sets how the cell is run, as in Codex:
//
//	// @exec: {"yield_time_ms": 60000, "max_output_tokens": 2000}
//
// The line is a comment, so the source runs unchanged.
const PragmaPrefix = "// @exec:"

// Pragma is what a cell's first-line pragma asks for. Zero fields were not
// given.
type Pragma struct {
	// YieldMS is how long the exec waits before it answers yielded
	// (yield_time_ms); it replaces the request's yield_ms.
	YieldMS uint64
	// OutputTokens is the cell's output budget (max_output_tokens); like
	// any limit it can only tighten the session's.
	OutputTokens uint64
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: the largest
// value a model's JSON number is sure to mean exactly.
const maxSafeInteger = 1<<53 - 1

// ParsePragma reads the pragma on source's first line, if there is one
// (leading spaces and tabs are allowed before PragmaPrefix). It returns
// the zero Pragma when the first line is not a pragma, and an error that
// names the problem when it is one but malformed: not a JSON object, an
// unknown key, or a value that is not a whole number from 0 to 2^53-1.
func ParsePragma(source string) (Pragma, error) {
	line, _, _ := strings.Cut(source, "\n")
	line = strings.TrimRight(line, "\r")
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), PragmaPrefix)
	if !ok {
		return Pragma{}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rest), &fields); err != nil || fields == nil {
		return Pragma{}, fmt.Errorf("the first line's %q pragma is not a JSON object; write it as %s {\"yield_time_ms\": 30000}", PragmaPrefix, PragmaPrefix)
	}
	var p Pragma
	for key, raw := range fields {
		var dst *uint64
		switch key {
		case "yield_time_ms":
			dst = &p.YieldMS
		case "max_output_tokens":
			dst = &p.OutputTokens
		default:
			return Pragma{}, fmt.Errorf("the %q pragma has an unknown key %q; only yield_time_ms and max_output_tokens are allowed", PragmaPrefix, key)
		}
		n, err := pragmaInt(raw)
		if err != nil {
			return Pragma{}, fmt.Errorf("the %q pragma's %s is %s; want a whole number from 0 to %d", PragmaPrefix, key, bytes.TrimSpace(raw), uint64(maxSafeInteger))
		}
		*dst = n
	}
	return p, nil
}

// pragmaInt decodes a non-negative safe integer.
func pragmaInt(raw json.RawMessage) (uint64, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, err
	}
	if f < 0 || f > maxSafeInteger || f != float64(uint64(f)) {
		return 0, fmt.Errorf("out of range")
	}
	return uint64(f), nil
}
