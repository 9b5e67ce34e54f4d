package tscript

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each of these made esbuild overflow the Go stack, which kills the host.
var tooDeep = map[string]string{
	"parentheses": strings.Repeat("(", 300_000) + "1" + strings.Repeat(")", 300_000),
	"brackets":    strings.Repeat("[", 300_000) + strings.Repeat("]", 300_000),
	"not":         strings.Repeat("!", 600_000) + "1",
	"minus":       strings.Repeat("- ", 300_000) + "1",
	"arrows":      strings.Repeat("x=>", 200_000) + "1",
	"assignments": strings.Repeat("a=", 300_000) + "1",
	"assign-asi":  "a" + strings.Repeat("\n=a", 200_000),
	"await":       strings.Repeat("await ", 100_000) + "1",
	"new":         strings.Repeat("new ", 200_000) + "a",
	"if":          strings.Repeat("if(a)", 200_000) + "1",
	"labels":      strings.Repeat("a:", 300_000) + "1",
	"members":     "a" + strings.Repeat(".a", 300_000),
	"calls":       "a" + strings.Repeat("()", 300_000),
	"templates":   strings.Repeat("`${", 200_000) + strings.Repeat("}`", 200_000),
	"objects":     "x = {}" + strings.Repeat(".a={}", 150_000),
}

func TestStripRefusesNestingPastTheLimitWithoutCrashing(t *testing.T) {
	for name, src := range tooDeep {
		t.Run(name, func(t *testing.T) {
			_, _, err := Strip("let q = 1;\n"+src, "cell.ts")
			var e *Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Contains(t, e.Message, fmt.Sprintf("nested more than %d levels deep", MaxNesting))
			assert.GreaterOrEqual(t, e.Line, 2, "%+v", e)
			assert.Positive(t, e.Column)
		})
	}
}

func TestStripNestingSkipsStringsCommentsAndRegExps(t *testing.T) {
	deep := strings.Repeat("(", 5000)
	srcs := []string{
		"const a = '" + deep + "';",
		`const a = "` + deep + `";`,
		"const a = `" + deep + "`;",
		"// " + deep + "\nconst a = 1;",
		"/* " + deep + " */ const a = 1;",
		"const a = /" + strings.Repeat(`\(`, 5000) + "/;",
		"const a = `${'" + deep + "'}`;",
	}
	for _, src := range srcs {
		_, _, err := Strip(src, "cell.ts")
		assert.NoError(t, err, "%.60s", src)
	}
}

func TestStripAcceptsLongFlatCode(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "if (x%d) { y = y + %d }\nlet z%d: number = a.b.c(d)[0]\n", i, i, i)
	}
	b.WriteString("if (a) 1;" + strings.Repeat(" else if (a) 1;", 3000) + "\n")
	b.WriteString("const s = a" + strings.Repeat(" + a && b || c", 5000) + ";\n")
	b.WriteString("const o = {" + strings.Repeat("k: 1 ? 2 : 3, ", 5000) + "};\n")
	b.WriteString("f(" + strings.Repeat("x => x, ", 5000) + ");\n")
	_, _, err := Strip(b.String(), "cell.ts")
	assert.NoError(t, err)
}

func TestStripAcceptsNestingAtTheLimit(t *testing.T) {
	n := MaxNesting - 10
	_, _, err := Strip("const a = "+strings.Repeat("(", n)+"1"+strings.Repeat(")", n)+";", "cell.ts")
	assert.NoError(t, err)
}
