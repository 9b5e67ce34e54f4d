package applypatch

import (
	"errors"
	"fmt"
)

// Why a patch failed to apply; an *ApplyError matches one of these with
// errors.Is.
var (
	// ErrContextNotFound: an "@@" line, or a hunk's old lines, are not in
	// the file.
	ErrContextNotFound = errors.New("context not found")
	// ErrAmbiguousContext: a hunk without an "@@" line matches the file in
	// more than one place.
	ErrAmbiguousContext = errors.New("ambiguous context")
	// ErrFileMissing: the file to update or delete does not exist.
	ErrFileMissing = errors.New("file missing")
	// ErrFileExists: the file to add, or to move to, already exists.
	ErrFileExists = errors.New("file exists")
	// ErrNotRegularFile: the path names a directory, a symbolic link or
	// another non-regular file.
	ErrNotRegularFile = errors.New("not a regular file")
	// ErrPathEscapes: the path is absolute, uses "..", or leads out of the
	// root through a symbolic link.
	ErrPathEscapes = errors.New("path escapes the root")
)

// ApplyError says which file operation and which hunk of a patch failed
// to apply, and why. Nothing was written when Apply returns one.
type ApplyError struct {
	// Action and Path are the failed file operation, as in the patch.
	Action Action
	Path   string
	// Hunk is the failed hunk of an Update (1-based); 0 when the file
	// operation itself failed.
	Hunk int
	// Line is the patch line where the failed operation or hunk starts
	// (1-based).
	Line int
	// Err is one of the Err* values, or an I/O error.
	Err error
	// Detail says what was looked for and what to do next.
	Detail string
}

// Error names the operation and hunk, the reason and the way out.
func (e *ApplyError) Error() string {
	where := fmt.Sprintf("%s: %s", e.Action, e.Path)
	if e.Hunk > 0 {
		where += fmt.Sprintf(", hunk %d", e.Hunk)
	}
	msg := fmt.Sprintf("applypatch: %s (patch line %d): %v", where, e.Line, e.Err)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg + "; no file was changed"
}

// Unwrap returns Err.
func (e *ApplyError) Unwrap() error { return e.Err }
