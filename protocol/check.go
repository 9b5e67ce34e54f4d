package protocol

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Side names the sender of a message.
type Side uint8

// Sides.
const (
	// FromParent: only the parent sends it.
	FromParent Side = 1 << iota
	// FromHost: only the host sends it.
	FromHost
	// FromEither: both sides send it.
	FromEither = FromParent | FromHost
)

// SentBy reports which side sends messages of type t (0 for an unknown t).
// A receiver answers a message from the wrong side with ErrCodeUnexpected.
func SentBy(t string) Side {
	switch t {
	case TypeHello, TypeOpenSession, TypeCloseSession, TypeExec, TypeWait,
		TypeTerminate, TypeCancel, TypeToolResult, TypeShutdown:
		return FromParent
	case TypeHelloOK, TypeHelloRejected, TypeSessionOpened, TypeSessionClosed,
		TypeExecStarted, TypeCellResult, TypeCellClosed, TypeNotify,
		TypeOutput, TypeToolCall, TypeToolCancelled:
		return FromHost
	case TypePing, TypePong, TypeError:
		return FromEither
	}
	return 0
}

// MaxIDLen is the longest session or cell id, in bytes.
const MaxIDLen = 256

func badField(field, format string, args ...any) *ProtocolError {
	e := errorf(ErrCodeBadField, format, args...)
	e.Message = field + ": " + e.Message
	return e
}

func needID(id uint64) error {
	if id == 0 {
		return badField("id", "missing; requests need a nonzero id")
	}
	return nil
}

func needName(field, v string) error {
	switch {
	case v == "":
		return badField(field, "missing")
	case len(v) > MaxIDLen:
		return badField(field, "%d bytes; at most %d", len(v), MaxIDLen)
	}
	return nil
}

func needCell(session, cell string) error {
	if err := needName("session", session); err != nil {
		return err
	}
	return needName("cell", cell)
}

// checkJSON accepts an absent value or, when on, valid JSON text.
func checkJSON(on bool, field string, v json.RawMessage) error {
	if on && len(v) != 0 && !ValidJSON(v) {
		return badField(field, "not valid JSON text")
	}
	return nil
}

func checkStatus(s Status) error {
	switch s {
	case StatusCompleted, StatusFailed, StatusYielded, StatusTerminated,
		StatusTimedOut, StatusOutOfMemory:
		return nil
	}
	return badField("status", "unknown status %q", string(s))
}

func checkItems(items []Item) error {
	for i := range items {
		if t := items[i].Type; t != ItemText && t != ItemImage {
			return badField("items", "item %d has unknown type %q", i, t)
		}
	}
	return nil
}

func checkStore(strict bool, entries []StoreEntry) error {
	for i := range entries {
		if entries[i].Key == "" {
			return badField("store", "entry %d has no key", i)
		}
		if err := checkJSON(strict, "store", entries[i].Value); err != nil {
			return err
		}
	}
	return nil
}

func checkToolDef(strict bool, i int, d *ToolDef) error {
	if d.Name == "" {
		return badField("tools", "tool %d has no name", i)
	}
	if !d.Kind.Valid() {
		return badField("tools", "tool %q has unknown kind %q", d.QualifiedName(), string(d.Kind))
	}
	if !CodeModeCallable(d.Exposure) {
		return badField("tools", "tool %q: %s; only direct, deferred and code_mode_only tools can be sent to the host", d.QualifiedName(), exposureRefusal(d.Exposure))
	}
	if err := checkJSON(strict, "tools.input_schema", d.InputSchema); err != nil {
		return err
	}
	return checkJSON(strict, "tools.output_schema", d.OutputSchema)
}

func (m *Hello) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if len(m.Versions) == 0 {
		return badField("versions", "missing; list the protocol versions you speak, e.g. [1]")
	}
	return nil
}

func (m *HelloOK) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if m.Version == 0 {
		return badField("version", "missing")
	}
	return nil
}

func (m *HelloRejected) check(strict bool) error {
	if m.Reason == "" {
		return badField("reason", "missing")
	}
	return nil
}

func (m *OpenSession) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if err := needName("session", m.Session); err != nil {
		return err
	}
	return checkStore(strict, m.Store)
}

func (m *SessionOpened) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	return needName("session", m.Session)
}

func (m *CloseSession) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	return needName("session", m.Session)
}

func (m *SessionClosed) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	return needName("session", m.Session)
}

func (m *Exec) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if err := needName("session", m.Session); err != nil {
		return err
	}
	if m.Source == "" {
		return badField("source", "missing")
	}
	if _, _, msg := SourceNUL(m.Source); msg != "" {
		return badField("source", "%s", msg)
	}
	if m.Language != "" && m.Language != LangJS && m.Language != LangTS {
		return badField("language", "%q; use \"js\" or \"ts\"", string(m.Language))
	}
	for i := range m.Tools {
		if err := checkToolDef(strict, i, &m.Tools[i]); err != nil {
			return err
		}
	}
	return nil
}

func (m *ExecStarted) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	return needCell(m.Session, m.Cell)
}

func (m *Wait) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	return needCell(m.Session, m.Cell)
}

func (m *Terminate) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	return needCell(m.Session, m.Cell)
}

func (m *Cancel) check(strict bool) error {
	if m.Target == 0 {
		return badField("target", "missing; name the id of the exec or wait to answer")
	}
	return nil
}

func (m *CellResult) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if err := needCell(m.Session, m.Cell); err != nil {
		return err
	}
	if err := checkStatus(m.Status); err != nil {
		return err
	}
	if err := checkItems(m.Items); err != nil {
		return err
	}
	return checkStore(strict, m.Store)
}

func (m *CellClosed) check(strict bool) error { return needCell(m.Session, m.Cell) }

func (m *Notify) check(strict bool) error { return needCell(m.Session, m.Cell) }

func (m *Output) check(strict bool) error {
	if err := needCell(m.Session, m.Cell); err != nil {
		return err
	}
	return checkItems(m.Items)
}

func (m *ToolCallRequest) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if err := needName("cell", m.CellID); err != nil {
		return err
	}
	if m.Name == "" {
		return badField("name", "missing")
	}
	if !m.Kind.Valid() {
		return badField("kind", "unknown kind %q", string(m.Kind))
	}
	if len(m.Input) == 0 {
		return badField("input", "missing; send {} for no arguments")
	}
	return checkJSON(strict, "input", m.Input)
}

func (m *ToolResult) check(strict bool) error {
	if err := needID(m.ID); err != nil {
		return err
	}
	if m.Error != nil {
		if len(m.Value) != 0 {
			return badField("value", "set together with error; send one of them")
		}
		if m.Error.Code == "" {
			return badField("error.code", "missing")
		}
		return nil
	}
	return checkJSON(strict, "value", m.Value)
}

func (m *ToolCancelled) check(strict bool) error { return needID(m.ID) }

func (m *Ping) check(strict bool) error { return needID(m.ID) }

func (m *Pong) check(strict bool) error { return needID(m.ID) }

func (m *Shutdown) check(strict bool) error { return nil }

func (m *ErrorReply) check(strict bool) error {
	if m.Code == "" {
		return badField("code", "missing")
	}
	return nil
}

// SourceNUL is the one check that a cell's source holds no NUL byte: msg
// is "" for a clean source, else what is wrong and where ("contains a
// NUL byte at line 2, column 5; remove it"), with that line and column
// (1-based). The wire refuses such an exec (bad_field); an in-process
// cell fails with it.
func SourceNUL(source string) (line, col int, msg string) {
	i := strings.IndexByte(source, 0)
	if i < 0 {
		return 0, 0, ""
	}
	line = strings.Count(source[:i], "\n") + 1
	col = i - strings.LastIndexByte(source[:i], '\n')
	return line, col, fmt.Sprintf("contains a NUL byte at line %d, column %d; remove it", line, col)
}
