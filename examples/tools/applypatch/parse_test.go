package applypatch_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/examples/tools/applypatch"
)

func TestParseReadsEveryKindOfHunk(t *testing.T) {
	p, err := applypatch.Parse(patch(
		"*** Begin Patch",
		"*** Add File: a/new.txt",
		"+one",
		"+",
		"*** Delete File: gone.txt",
		"*** Update File: src/x.go",
		"*** Move to: src/y.go",
		" keep",
		"-old",
		"+new",
		"@@ func f() {",
		"-\treturn 1",
		"+\treturn 2",
		"@@",
		" tail",
		"*** End of File",
		"*** Update File: only-move.txt",
		"*** Move to: moved.txt",
		"*** End Patch",
	))
	require.NoError(t, err)
	want := &applypatch.Patch{Files: []applypatch.FileOp{
		{Action: applypatch.Add, Path: "a/new.txt", Line: 2, Content: []string{"one", ""}},
		{Action: applypatch.Delete, Path: "gone.txt", Line: 5},
		{Action: applypatch.Update, Path: "src/x.go", Line: 6, MoveTo: "src/y.go", EndOfFile: true, Hunks: []applypatch.Hunk{
			{Line: 8, Lines: []applypatch.Line{{Op: ' ', Text: "keep"}, {Op: '-', Text: "old"}, {Op: '+', Text: "new"}}},
			{Line: 11, Marked: true, Context: "func f() {", Lines: []applypatch.Line{{Op: '-', Text: "\treturn 1"}, {Op: '+', Text: "\treturn 2"}}},
			{Line: 14, Marked: true, Lines: []applypatch.Line{{Op: ' ', Text: "tail"}}},
		}},
		{Action: applypatch.Update, Path: "only-move.txt", Line: 17, MoveTo: "moved.txt"},
	}}
	assert.Equal(t, want, p)
	assert.Equal(t, []string{"keep", "old"}, p.Files[2].Hunks[0].Old())
	assert.Equal(t, []string{"keep", "new"}, p.Files[2].Hunks[0].New())
}

func TestParseAcceptsAMissingFinalNewlineOnly(t *testing.T) {
	_, err := applypatch.Parse("*** Begin Patch\n*** Delete File: a\n*** End Patch")
	assert.NoError(t, err)
	_, err = applypatch.Parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n")
	assert.Error(t, err)
}

func TestParseRefusesWhatTheGrammarDoesNot(t *testing.T) {
	for name, tc := range map[string]struct {
		patch string
		line  int
		msg   string
	}{
		"empty":                   {"", 1, "starts with"},
		"leading space":           {patch(" *** Begin Patch", "*** Delete File: a", "*** End Patch"), 1, "starts with"},
		"CRLF":                    {"*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\n", 1, "starts with"},
		"no hunks":                {patch("*** Begin Patch", "*** End Patch"), 2, "at least one"},
		"no end":                  {patch("*** Begin Patch", "*** Delete File: a"), 3, "ends without"},
		"no end, no newline":      {"*** Begin Patch\n*** Update File: a\n+x", 3, "ends without"},
		"trailing text":           {patch("*** Begin Patch", "*** Delete File: a", "*** End Patch", "bye"), 4, "nothing may follow"},
		"unknown header":          {patch("*** Begin Patch", "*** Rename File: a", "*** End Patch"), 2, "expected"},
		"empty path":              {patch("*** Begin Patch", "*** Delete File: ", "*** End Patch"), 2, "file path"},
		"add without lines":       {patch("*** Begin Patch", "*** Add File: a", "*** End Patch"), 3, "at least one line"},
		"add with context line":   {patch("*** Begin Patch", "*** Add File: a", "+x", " y", "*** End Patch"), 4, "expected"},
		"blank line in update":    {patch("*** Begin Patch", "*** Update File: a", " x", "", " y", "*** End Patch"), 4, "single space"},
		"@@ with trailing space":  {patch("*** Begin Patch", "*** Update File: a", "@@ ", "-x", "*** End Patch"), 3, "must be followed"},
		"@@ glued":                {patch("*** Begin Patch", "*** Update File: a", "@@x", "*** End Patch"), 3, "no line numbers"},
		"end of file alone":       {patch("*** Begin Patch", "*** Update File: a", "*** End of File", "*** End Patch"), 3, "expected"},
		"lines after end of file": {patch("*** Begin Patch", "*** Update File: a", "-x", "*** End of File", "+y", "*** End Patch"), 5, "expected"},
		"move after hunk":         {patch("*** Begin Patch", "*** Update File: a", "-x", "*** Move to: b", "*** End Patch"), 4, "expected"},
		"two moves":               {patch("*** Begin Patch", "*** Update File: a", "*** Move to: b", "*** Move to: c", "*** End Patch"), 4, "expected"},
		"end patch in middle":     {patch("*** Begin Patch", "*** Delete File: a", "*** End Patch", "*** Delete File: b", "*** End Patch"), 4, "nothing may follow"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := applypatch.Parse(tc.patch)
			var se *applypatch.SyntaxError
			require.True(t, errors.As(err, &se), "got %v", err)
			assert.Equal(t, tc.line, se.Line, se.Error())
			assert.Contains(t, se.Error(), tc.msg)
			assert.Contains(t, se.Error(), "applypatch: invalid patch at line")
		})
	}
}

func TestPatchStringRoundTrips(t *testing.T) {
	src := patch(
		"*** Begin Patch",
		"*** Add File: n",
		"++plus",
		"*** Update File: u",
		"@@",
		"-a",
		"@@ ctx",
		"+b",
		"*** Delete File: d",
		"*** End Patch",
	)
	p, err := applypatch.Parse(src)
	require.NoError(t, err)
	assert.Equal(t, src, p.String())
}

func TestGrammarIsLarkAndNamesEveryMarker(t *testing.T) {
	for _, lit := range []string{`"*** Begin Patch"`, `"*** End Patch"`, `"*** Add File: "`, `"*** Delete File: "`,
		`"*** Update File: "`, `"*** Move to: "`, `"*** End of File"`, `"@@"`, `"@@ "`, "start:", "%import common.LF"} {
		assert.Contains(t, applypatch.Grammar, lit)
	}
}
