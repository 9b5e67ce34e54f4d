package applypatch_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/examples/tools/applypatch"
)

var seedPatches = []string{
	patch("*** Begin Patch", "*** Add File: a/b.txt", "+x", "*** End Patch"),
	patch("*** Begin Patch", "*** Delete File: f", "*** End Patch"),
	patch("*** Begin Patch", "*** Update File: f", "*** Move to: g", "@@ a", " b", "-c", "+d", "@@", "+e", "*** End of File", "*** End Patch"),
	"*** Begin Patch\n*** Update File: f\n-a\n*** End Patch",
	patch("*** Begin Patch", "*** Update File: f", "", "*** End Patch"),
	patch("*** Begin Patch", "*** Update File: ../f", "@@ ", "*** End Patch"),
	"*** Begin Patch\r\n",
	"",
}

// grammarRE is Grammar written as one regular expression (the language is
// regular): an independent recognizer to check Parse against.
var grammarRE = func() *regexp.Regexp {
	const (
		line   = `[^\n]*\n`
		name   = `[^\n]+\n`
		add    = `\*\*\* Add File: ` + name + `(\+` + line + `)+`
		del    = `\*\*\* Delete File: ` + name
		change = `((@@|@@ [^\n]+)\n|[-+ ]` + line + `)+(\*\*\* End of File\n)?`
		update = `\*\*\* Update File: ` + name + `(\*\*\* Move to: ` + name + `)?(` + change + `)?`
	)
	return regexp.MustCompile(`^\*\*\* Begin Patch\n(` + add + `|` + del + `|` + update + `)+\*\*\* End Patch\n?$`)
}()

func TestGrammarRegexpAgreesWithTheSeeds(t *testing.T) {
	for i, s := range seedPatches {
		_, err := applypatch.Parse(s)
		assert.Equal(t, err == nil, grammarRE.MatchString(s), "seed %d", i)
	}
	assert.True(t, grammarRE.MatchString(seedPatches[2]))
}

// FuzzParse checks that Parse never panics, that it accepts exactly what
// the grammar (as grammarRE) accepts, that what it accepts formats back to
// the same text (so it read every byte as the grammar says), and that what
// it refuses is reported as a *SyntaxError on a real line.
func FuzzParse(f *testing.F) {
	for _, s := range seedPatches {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := applypatch.Parse(s)
		require.Equal(t, grammarRE.MatchString(s), err == nil, "Parse and the grammar disagree on %q: %v", s, err)
		if err != nil {
			var se *applypatch.SyntaxError
			require.True(t, errors.As(err, &se), "%T %v", err, err)
			require.GreaterOrEqual(t, se.Line, 1)
			require.LessOrEqual(t, se.Line, strings.Count(s, "\n")+1)
			return
		}
		out := p.String()
		require.True(t, out == s || out == s+"\n", "format(parse(s)) != s:\n%q\n%q", s, out)
		again, err := applypatch.Parse(out)
		require.NoError(t, err)
		require.Equal(t, p, again)
	})
}

// FuzzApply checks that a patch either applies or changes nothing, and
// never touches files outside the root.
func FuzzApply(f *testing.F) {
	for _, s := range seedPatches {
		f.Add(s)
	}
	f.Add(patch("*** Begin Patch", "*** Update File: f", "-a", "+z", "*** Add File: f", "+x", "*** End Patch"))
	f.Add(patch("*** Begin Patch", "*** Update File: link/secret", "-s", "*** End Patch"))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := applypatch.Parse(s)
		if err != nil {
			return
		}
		outside := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644))
		before := map[string]string{"f": "a\nb\nc\n", "d/g": "a\n"}
		root := writeTree(t, before)
		require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
		before["link"] = "-> " + outside
		if _, err := applypatch.Apply(root, p); err != nil {
			assert.Equal(t, before, readTree(t, root), "failed with %v but changed files", err)
		}
		assert.Equal(t, map[string]string{"secret": "s\n"}, readTree(t, outside))
		for name := range readTree(t, root) {
			assert.False(t, strings.Contains(name, ".applypatch-"), "temporary file %s left behind", name)
		}
	})
}
