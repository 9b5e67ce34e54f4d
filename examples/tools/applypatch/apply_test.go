package applypatch_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/examples/tools/applypatch"
)

const goFile = `package main

func a() int {
	x := 1
	return x
}

func b() int {
	x := 1
	return x
}
`

func TestApplyWellFormedPatches(t *testing.T) {
	for name, tc := range map[string]struct {
		before map[string]string
		patch  string
		after  map[string]string
		result applypatch.Result
	}{
		"add file in new directories": {
			before: map[string]string{},
			patch:  patch("*** Begin Patch", "*** Add File: a/b/c.txt", "+hello", "+", "+world", "*** End Patch"),
			after:  map[string]string{"a/b/c.txt": "hello\n\nworld\n"},
			result: applypatch.Result{Added: []string{"a/b/c.txt"}},
		},
		"delete file": {
			before: map[string]string{"x.txt": "x\n", "y.txt": "y\n"},
			patch:  patch("*** Begin Patch", "*** Delete File: x.txt", "*** End Patch"),
			after:  map[string]string{"y.txt": "y\n"},
			result: applypatch.Result{Deleted: []string{"x.txt"}},
		},
		"update without @@": {
			before: map[string]string{"f.txt": "one\ntwo\nthree\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f.txt", " one", "-two", "+2", " three", "*** End Patch"),
			after:  map[string]string{"f.txt": "one\n2\nthree\n"},
			result: applypatch.Result{Updated: []string{"f.txt"}},
		},
		"update with @@ context disambiguates": {
			before: map[string]string{"m.go": goFile},
			patch:  patch("*** Begin Patch", "*** Update File: m.go", "@@ func b() int {", "-\tx := 1", "+\tx := 2", "*** End Patch"),
			after:  map[string]string{"m.go": replace(goFile, 9, "\tx := 2")},
			result: applypatch.Result{Updated: []string{"m.go"}},
		},
		"@@ context matches ignoring indentation": {
			before: map[string]string{"c.py": "class A:\n    def run(self):\n        return 1\n"},
			patch:  patch("*** Begin Patch", "*** Update File: c.py", "@@ def run(self):", "-        return 1", "+        return 2", "*** End Patch"),
			after:  map[string]string{"c.py": "class A:\n    def run(self):\n        return 2\n"},
			result: applypatch.Result{Updated: []string{"c.py"}},
		},
		"nested @@ lines": {
			before: map[string]string{"c.py": "class A:\n  def run():\n    pass\nclass B:\n  def run():\n    pass\n"},
			patch:  patch("*** Begin Patch", "*** Update File: c.py", "@@ class B:", "@@ def run():", "-    pass", "+    return 2", "*** End Patch"),
			after:  map[string]string{"c.py": "class A:\n  def run():\n    pass\nclass B:\n  def run():\n    return 2\n"},
			result: applypatch.Result{Updated: []string{"c.py"}},
		},
		"several hunks in order": {
			before: map[string]string{"f": "a\nb\nc\nd\ne\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f", "@@", "-a", "+A", "@@", " c", "-d", "+D", "*** End Patch"),
			after:  map[string]string{"f": "A\nb\nc\nD\ne\n"},
			result: applypatch.Result{Updated: []string{"f"}},
		},
		"insert after @@ line": {
			before: map[string]string{"f": "import (\n)\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f", "@@ import (", "+\t\"os\"", "*** End Patch"),
			after:  map[string]string{"f": "import (\n\t\"os\"\n)\n"},
			result: applypatch.Result{Updated: []string{"f"}},
		},
		"insert at end of file": {
			before: map[string]string{"f": "a\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f", "+b", "*** End Patch"),
			after:  map[string]string{"f": "a\nb\n"},
			result: applypatch.Result{Updated: []string{"f"}},
		},
		"end of file anchors the last hunk": {
			before: map[string]string{"f": "x\ny\nx\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f", "-x", "+z", "*** End of File", "*** End Patch"),
			after:  map[string]string{"f": "x\ny\nz\n"},
			result: applypatch.Result{Updated: []string{"f"}},
		},
		"trailing white space is forgiven": {
			before: map[string]string{"f": "a  \nb\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f", " a", "-b", "+c", "*** End Patch"),
			after:  map[string]string{"f": "a  \nc\n"},
			result: applypatch.Result{Updated: []string{"f"}},
		},
		"CRLF files keep their line ends": {
			before: map[string]string{"w.txt": "a\r\nb\r\n"},
			patch:  patch("*** Begin Patch", "*** Update File: w.txt", "@@ a", "+x", "@@", "-b", "+c", "*** End Patch"),
			after:  map[string]string{"w.txt": "a\r\nx\r\nc\r\n"},
			result: applypatch.Result{Updated: []string{"w.txt"}},
		},
		"no final newline gets one": {
			before: map[string]string{"f": "a\nb"},
			patch:  patch("*** Begin Patch", "*** Update File: f", "-b", "+c", "*** End Patch"),
			after:  map[string]string{"f": "a\nc\n"},
			result: applypatch.Result{Updated: []string{"f"}},
		},
		"move and edit": {
			before: map[string]string{"old/f.txt": "a\nb\n"},
			patch:  patch("*** Begin Patch", "*** Update File: old/f.txt", "*** Move to: new/g.txt", "-b", "+c", "*** End Patch"),
			after:  map[string]string{"new/g.txt": "a\nc\n"},
			result: applypatch.Result{Updated: []string{"new/g.txt"}, Moved: []applypatch.Move{{From: "old/f.txt", To: "new/g.txt"}}},
		},
		"pure move": {
			before: map[string]string{"f": "a\n"},
			patch:  patch("*** Begin Patch", "*** Update File: f", "*** Move to: g", "*** End Patch"),
			after:  map[string]string{"g": "a\n"},
			result: applypatch.Result{Updated: []string{"g"}, Moved: []applypatch.Move{{From: "f", To: "g"}}},
		},
		"several files, later operations see earlier ones": {
			before: map[string]string{"keep": "k\n", "del": "d\n"},
			patch: patch("*** Begin Patch",
				"*** Add File: n", "+1",
				"*** Update File: n", "-1", "+2",
				"*** Delete File: del",
				"*** Update File: keep", "-k", "+K",
				"*** Add File: del", "+again",
				"*** End Patch"),
			after:  map[string]string{"n": "2\n", "keep": "K\n", "del": "again\n"},
			result: applypatch.Result{Added: []string{"n", "del"}, Updated: []string{"n", "keep"}, Deleted: []string{"del"}},
		},
		"colons are fine in names": {
			before: map[string]string{},
			patch:  patch("*** Begin Patch", "*** Add File: a:b.txt", "+x", "*** End Patch"),
			after:  map[string]string{"a:b.txt": "x\n"},
			result: applypatch.Result{Added: []string{"a:b.txt"}},
		},
		"dot segments are cleaned": {
			before: map[string]string{"d/f": "a\n"},
			patch:  patch("*** Begin Patch", "*** Update File: ./d//f", "-a", "+b", "*** End Patch"),
			after:  map[string]string{"d/f": "b\n"},
			result: applypatch.Result{Updated: []string{"./d//f"}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, tc.before)
			res, err := applypatch.ApplyText(root, tc.patch)
			require.NoError(t, err)
			assert.Equal(t, tc.result, *res)
			assert.Equal(t, tc.after, readTree(t, root))
		})
	}
}

// replace returns s with its line n (1-based) replaced by line.
func replace(s string, n int, line string) string {
	lines := splitKeep(s)
	lines[n-1] = line + "\n"
	out := ""
	for _, l := range lines {
		out += l
	}
	return out
}

func splitKeep(s string) []string {
	var out []string
	start := 0
	for i := range s {
		if s[i] == '\n' {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	return out
}

func TestFailedPatchesChangeNothingAndSayWhy(t *testing.T) {
	before := map[string]string{"m.go": goFile, "other.txt": "o\n", "sub/x": "x\n"}
	for name, tc := range map[string]struct {
		patch  string
		reason error
		hunk   int
		line   int
		says   string
	}{
		"context not found": {
			patch:  patch("*** Begin Patch", "*** Update File: other.txt", "-o", "+O", "*** Update File: m.go", " func c() {", "-x", "*** End Patch"),
			reason: applypatch.ErrContextNotFound, hunk: 1, line: 6, says: "Update File: m.go, hunk 1",
		},
		"@@ line not found": {
			patch:  patch("*** Begin Patch", "*** Update File: m.go", "@@ func zzz() {", "-x", "*** End Patch"),
			reason: applypatch.ErrContextNotFound, hunk: 1, line: 3, says: `no line from the start of the file reads "func zzz() {"`,
		},
		"line numbers instead of context": {
			patch:  patch("*** Begin Patch", "*** Update File: m.go", "@@ -1,3 +1,3 @@", "-x", "*** End Patch"),
			reason: applypatch.ErrContextNotFound, hunk: 1, line: 3, says: "not line numbers",
		},
		"second hunk not found after the first": {
			patch:  patch("*** Begin Patch", "*** Update File: m.go", "@@ func b() int {", " \tx := 1", "@@ func a() int {", " \treturn x", "*** End Patch"),
			reason: applypatch.ErrContextNotFound, hunk: 2, line: 5, says: "after line 9",
		},
		"ambiguous context": {
			patch:  patch("*** Begin Patch", "*** Add File: new.txt", "+n", "*** Update File: m.go", " \tx := 1", "-\treturn x", "+\treturn 2", "*** End Patch"),
			reason: applypatch.ErrAmbiguousContext, hunk: 1, line: 5, says: "match the file at lines 4, 9",
		},
		"end of file mismatch": {
			patch:  patch("*** Begin Patch", "*** Update File: m.go", "-func a() int {", "*** End of File", "*** End Patch"),
			reason: applypatch.ErrContextNotFound, hunk: 1, line: 3, says: "not the last lines",
		},
		"update of a missing file": {
			patch:  patch("*** Begin Patch", "*** Update File: nope.go", "-x", "*** End Patch"),
			reason: applypatch.ErrFileMissing, line: 2, says: "Add File",
		},
		"delete of a missing file": {
			patch:  patch("*** Begin Patch", "*** Delete File: other.txt", "*** Delete File: other.txt", "*** End Patch"),
			reason: applypatch.ErrFileMissing, line: 3,
		},
		"add of an existing file": {
			patch:  patch("*** Begin Patch", "*** Delete File: sub/x", "*** Add File: other.txt", "+o", "*** End Patch"),
			reason: applypatch.ErrFileExists, line: 3,
		},
		"move onto an existing file": {
			patch:  patch("*** Begin Patch", "*** Update File: sub/x", "*** Move to: other.txt", "*** End Patch"),
			reason: applypatch.ErrFileExists, line: 2, says: "can't move to",
		},
		"update of a directory": {
			patch:  patch("*** Begin Patch", "*** Update File: sub", "-x", "*** End Patch"),
			reason: applypatch.ErrNotRegularFile, line: 2,
		},
		"absolute path": {
			patch:  patch("*** Begin Patch", "*** Add File: /tmp/evil", "+x", "*** End Patch"),
			reason: applypatch.ErrPathEscapes, line: 2, says: "absolute",
		},
		"dot dot": {
			patch:  patch("*** Begin Patch", "*** Delete File: other.txt", "*** Add File: sub/../../evil", "+x", "*** End Patch"),
			reason: applypatch.ErrPathEscapes, line: 3, says: `".."`,
		},
		"dot dot in move": {
			patch:  patch("*** Begin Patch", "*** Update File: other.txt", "*** Move to: ../evil", "*** End Patch"),
			reason: applypatch.ErrPathEscapes, line: 2, says: "Move to",
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, before)
			_, err := applypatch.ApplyText(root, tc.patch)
			var ae *applypatch.ApplyError
			require.ErrorAs(t, err, &ae)
			assert.ErrorIs(t, err, tc.reason)
			assert.Equal(t, tc.hunk, ae.Hunk, err.Error())
			assert.Equal(t, tc.line, ae.Line, err.Error())
			assert.Contains(t, err.Error(), tc.says)
			assert.Contains(t, err.Error(), "no file was changed")
			assert.Equal(t, before, readTree(t, root), "a failed patch must not change any file")
		})
	}
}

func TestSymlinksOutOfTheRootAreRefused(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644))
	root := writeTree(t, map[string]string{"in.txt": "i\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "out")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "secret-link")))
	for name, p := range map[string]string{
		"through a linked directory": patch("*** Begin Patch", "*** Update File: out/secret", "-s", "+pwned", "*** End Patch"),
		"add through a link":         patch("*** Begin Patch", "*** Add File: out/new", "+pwned", "*** End Patch"),
		"a linked file":              patch("*** Begin Patch", "*** Update File: secret-link", "-s", "+pwned", "*** End Patch"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := applypatch.ApplyText(root, p)
			require.Error(t, err)
			assert.True(t, errors.Is(err, applypatch.ErrPathEscapes) || errors.Is(err, applypatch.ErrNotRegularFile), err.Error())
			assert.Equal(t, map[string]string{"secret": "s\n"}, readTree(t, outside))
		})
	}
}

func TestApplyKeepsTheFileMode(t *testing.T) {
	root := writeTree(t, map[string]string{"run.sh": "echo a\n"})
	require.NoError(t, os.Chmod(filepath.Join(root, "run.sh"), 0o755))
	_, err := applypatch.ApplyText(root, patch("*** Begin Patch", "*** Update File: run.sh", "*** Move to: bin/run.sh", "-echo a", "+echo b", "*** End Patch"))
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(root, "bin", "run.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
}

func TestApplyFailsOnAMissingRoot(t *testing.T) {
	_, err := applypatch.ApplyText(filepath.Join(t.TempDir(), "nope"), patch("*** Begin Patch", "*** Delete File: a", "*** End Patch"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "applypatch: can't open the root directory")
}

func TestResultSummaryListsEveryFile(t *testing.T) {
	r := applypatch.Result{Added: []string{"a"}, Updated: []string{"u"}, Deleted: []string{"d"}}
	assert.Equal(t, "Success. Updated the following files:\nA a\nM u\nD d", r.Summary())
}

func TestAFailureWhileWritingChangesNothing(t *testing.T) {
	before := map[string]string{"f": "a\n"}
	for name, p := range map[string]string{
		"file then directory": patch("*** Begin Patch", "*** Update File: f", "-a", "+b", "*** Add File: x", "+x", "*** Add File: x/y", "+y", "*** End Patch"),
		"directory then file": patch("*** Begin Patch", "*** Update File: f", "-a", "+b", "*** Add File: x/y", "+y", "*** Add File: x", "+x", "*** End Patch"),
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, before)
			_, err := applypatch.ApplyText(root, p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "applypatch: committing")
			assert.Equal(t, before, readTree(t, root), "written files are restored, temporary files removed")
			_, err = os.Stat(filepath.Join(root, "x"))
			assert.ErrorIs(t, err, os.ErrNotExist, "created directories are removed")
		})
	}
}

func TestAFileInThePathIsReported(t *testing.T) {
	root := writeTree(t, map[string]string{"x": "1\n"})
	_, err := applypatch.ApplyText(root, patch("*** Begin Patch", "*** Add File: x/y", "+y", "*** End Patch"))
	assert.ErrorIs(t, err, applypatch.ErrNotRegularFile)
	assert.Contains(t, err.Error(), "is a file, not a directory")
}
