package applypatch

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Result is what a patch changed. Paths are as the patch wrote them,
// relative to the root.
type Result struct {
	// Added are the files the patch created.
	Added []string `json:"added,omitempty"`
	// Updated are the files the patch edited, by their final path.
	Updated []string `json:"updated,omitempty"`
	// Deleted are the files the patch removed.
	Deleted []string `json:"deleted,omitempty"`
	// Moved are the files the patch renamed (they are also in Updated).
	Moved []Move `json:"moved,omitempty"`
}

// Move is one renamed file.
type Move struct {
	// From is the path the file had.
	From string `json:"from"`
	// To is the path it has now.
	To string `json:"to"`
}

// Summary is the result as the model reads it: one line per file, "A"
// added, "M" updated, "D" deleted.
func (r *Result) Summary() string {
	var b strings.Builder
	b.WriteString("Success. Updated the following files:")
	for _, p := range r.Added {
		b.WriteString("\nA " + p)
	}
	for _, p := range r.Updated {
		b.WriteString("\nM " + p)
	}
	for _, p := range r.Deleted {
		b.WriteString("\nD " + p)
	}
	return b.String()
}

// vfile is a file as the patch sees it: its content on disk when first
// touched, and its content after the operations so far.
type vfile struct {
	name       string // cleaned path, relative to the root
	origExists bool
	origData   []byte
	origMode   fs.FileMode
	exists     bool
	data       []byte
	mode       fs.FileMode
}

func (f *vfile) changed() bool {
	return f.exists != f.origExists || (f.exists && !bytes.Equal(f.data, f.origData))
}

// tree is the files of the root a patch touches, read once and changed in
// memory until the whole patch has applied.
type tree struct {
	root    *os.Root
	escape  error // os.Root's "path escapes" error value
	files   map[string]*vfile
	ordered []*vfile
}

// Apply applies p to the files under root, all at once or not at all: it
// reads every file and locates every hunk first, and writes nothing if
// any operation fails. Failures are *ApplyError values (see the Err*
// values for the reasons); a failure while writing rolls back what was
// already written. Safe from any goroutine, but patches applied at the
// same time to the same files are not isolated from each other.
func Apply(root string, p *Patch) (*Result, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("applypatch: can't open the root directory %q: %w; give the tool an existing directory", root, err)
	}
	defer r.Close()
	t := &tree{root: r, escape: escapeErr(r), files: make(map[string]*vfile)}
	res := &Result{}
	for _, op := range p.Files {
		if aerr := t.apply(op, res); aerr != nil {
			aerr.Action, aerr.Path = op.Action, op.Path
			if aerr.Line == 0 {
				aerr.Line = op.Line
			}
			return nil, aerr
		}
	}
	if err := t.commit(); err != nil {
		return nil, err
	}
	return res, nil
}

// ApplyText parses patch and applies it under root.
func ApplyText(root, patch string) (*Result, error) {
	p, err := Parse(patch)
	if err != nil {
		return nil, err
	}
	return Apply(root, p)
}

// escapeErr finds the error value os.Root reports for a path that leaves
// the root, so that symbolic links out of the root can be told apart from
// other failures.
func escapeErr(r *os.Root) error {
	_, err := r.Lstat("../.applypatch-probe")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return nil
}

func (t *tree) apply(op FileOp, res *Result) *ApplyError {
	f, aerr := t.get(op.Path)
	if aerr != nil {
		return aerr
	}
	switch op.Action {
	case Add:
		if f.exists {
			return &ApplyError{Err: ErrFileExists, Detail: "use \"*** Update File:\" to change it, or delete it first"}
		}
		f.exists, f.data = true, joinLines(op.Content)
		if f.mode == 0 {
			f.mode = 0o644
		}
		res.Added = append(res.Added, op.Path)
	case Delete:
		if !f.exists {
			return &ApplyError{Err: ErrFileMissing, Detail: "there is nothing to delete; check the path"}
		}
		f.exists, f.data = false, nil
		res.Deleted = append(res.Deleted, op.Path)
	case Update:
		if !f.exists {
			return &ApplyError{Err: ErrFileMissing, Detail: "use \"*** Add File:\" to create it, or check the path"}
		}
		lines, aerr := patchLines(splitLines(f.data), op)
		if aerr != nil {
			return aerr
		}
		data := joinLines(lines)
		if op.MoveTo == "" {
			f.data = data
			res.Updated = append(res.Updated, op.Path)
			return nil
		}
		dst, aerr := t.get(op.MoveTo)
		if aerr != nil {
			aerr.Detail = "in \"*** Move to:\": " + aerr.Detail
			return aerr
		}
		if dst != f {
			if dst.exists {
				return &ApplyError{Err: ErrFileExists, Detail: fmt.Sprintf("can't move to %q: it exists; delete it first or choose another path", op.MoveTo)}
			}
			f.exists, f.data = false, nil
			dst.mode = f.mode
		}
		dst.exists, dst.data = true, data
		res.Updated = append(res.Updated, op.MoveTo)
		res.Moved = append(res.Moved, Move{From: op.Path, To: op.MoveTo})
	}
	return nil
}

// cleanPath checks a patch path and returns it in canonical form.
func cleanPath(p string) (string, *ApplyError) {
	switch {
	case strings.ContainsRune(p, 0):
		return "", &ApplyError{Err: ErrPathEscapes, Detail: "the path contains a NUL byte"}
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" || strings.HasPrefix(p, `\`):
		return "", &ApplyError{Err: ErrPathEscapes, Detail: "absolute paths are not allowed; write the path relative to the workspace root"}
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", &ApplyError{Err: ErrPathEscapes, Detail: "\"..\" is not allowed in paths; write the path relative to the workspace root"}
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", &ApplyError{Err: ErrNotRegularFile, Detail: "the path names the root directory; name a file"}
	}
	return c, nil
}

// get returns the file at p, reading it from disk the first time.
func (t *tree) get(p string) (*vfile, *ApplyError) {
	name, aerr := cleanPath(p)
	if aerr != nil {
		return nil, aerr
	}
	if f, ok := t.files[name]; ok {
		return f, nil
	}
	f := &vfile{name: name}
	fi, err := t.root.Lstat(name)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		kind := "a directory"
		if fi.Mode()&fs.ModeSymlink != 0 {
			kind = "a symbolic link; patch the file it points to instead"
		} else if !fi.IsDir() {
			kind = "not a regular file"
		}
		return nil, &ApplyError{Err: ErrNotRegularFile, Detail: "the path is " + kind}
	case err == nil:
		data, err := t.root.ReadFile(name)
		if err != nil {
			return nil, t.ioError(name, err)
		}
		f.origExists, f.origData, f.origMode = true, data, fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, t.ioError(name, err)
	}
	f.exists, f.data, f.mode = f.origExists, f.origData, f.origMode
	t.files[name] = f
	t.ordered = append(t.ordered, f)
	return f, nil
}

func (t *tree) ioError(name string, err error) *ApplyError {
	if t.escape != nil && errors.Is(err, t.escape) {
		return &ApplyError{Err: ErrPathEscapes, Detail: "the path leads out of the workspace root through a symbolic link"}
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return &ApplyError{Err: ErrNotRegularFile, Detail: "a parent in the path is a file, not a directory"}
	}
	if errors.Is(err, fs.ErrPermission) {
		return &ApplyError{Err: err, Detail: "permission denied; the file can't be patched"}
	}
	return &ApplyError{Err: err, Detail: fmt.Sprintf("reading %s failed", name)}
}

// splitLines splits a file into lines; a final newline ends the last
// line rather than starting an empty one.
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// joinLines is the file made of lines, each ending with a newline.
func joinLines(lines []string) []byte {
	if len(lines) == 0 {
		return []byte{}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// staged is one file change ready to be committed.
type staged struct {
	f   *vfile
	tmp string // written content, renamed over f.name; "" for a delete
}

// commit writes every changed file: new contents go to temporary files
// next to their targets (synced), then are renamed over them, and deleted
// files are removed. A failure undoes what was done.
func (t *tree) commit() error {
	var (
		work    []staged
		newDirs []string
	)
	cleanup := func() {
		for _, s := range work {
			if s.tmp != "" {
				_ = t.root.Remove(s.tmp)
			}
		}
		for i := len(newDirs) - 1; i >= 0; i-- {
			_ = t.root.Remove(newDirs[i])
		}
	}
	for _, f := range t.ordered {
		if !f.changed() {
			continue
		}
		s := staged{f: f}
		if f.exists {
			dirs, err := t.mkdirs(path.Dir(f.name))
			newDirs = append(newDirs, dirs...)
			if err == nil {
				s.tmp, err = t.writeTemp(f)
			}
			if err != nil {
				cleanup()
				return fmt.Errorf("applypatch: writing %s: %w; no file was changed", f.name, err)
			}
		}
		work = append(work, s)
	}
	for i, s := range work {
		var err error
		if s.tmp != "" {
			err = t.root.Rename(s.tmp, s.f.name)
		} else {
			err = t.root.Remove(s.f.name)
		}
		if err != nil {
			t.rollback(work[:i])
			work = work[i:]
			cleanup()
			return fmt.Errorf("applypatch: committing %s: %w; the files already written were restored", s.f.name, err)
		}
	}
	t.syncDirs(work)
	return nil
}

// mkdirs creates dir and its missing parents and returns those it
// created, parents first.
func (t *tree) mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if _, err := t.root.Stat(d); err == nil {
			break
		}
		missing = append([]string{d}, missing...)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	return missing, t.root.MkdirAll(dir, 0o755)
}

func (t *tree) writeTemp(f *vfile) (string, error) {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(path.Dir(f.name), ".applypatch-"+hex.EncodeToString(rnd[:])+".tmp")
	w, err := t.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
	if err != nil {
		return "", err
	}
	_, err = w.Write(f.data)
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.root.Chmod(tmp, f.mode) // OpenFile's mode is masked by umask
	}
	if err != nil {
		_ = t.root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// rollback restores the files of done to their original contents.
func (t *tree) rollback(done []staged) {
	for _, s := range done {
		if s.f.origExists {
			_ = t.root.WriteFile(s.f.name, s.f.origData, s.f.origMode)
		} else {
			_ = t.root.Remove(s.f.name)
		}
	}
}

// syncDirs flushes the directories whose entries changed, so the renames
// survive a crash.
func (t *tree) syncDirs(work []staged) {
	seen := map[string]bool{}
	for _, s := range work {
		d := path.Dir(s.f.name)
		if seen[d] {
			continue
		}
		seen[d] = true
		if dir, err := t.root.Open(d); err == nil {
			_ = dir.Sync()
			_ = dir.Close()
		}
	}
}
