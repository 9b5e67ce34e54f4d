package tscript

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStripKeepsPositions(t *testing.T) {
	src := "(async () => {interface User { name: string }\n" +
		"enum Color { Red, Green }\n" +
		"function first<T>(xs: T[]): T { return xs[0]; }\n" +
		"const u: User = { name: 'a' };\n" +
		"throw new Error(first([u.name]) + Color.Green);\n})()"
	code, m, err := Strip(src, "cell.ts")
	require.NoError(t, err)
	assert.NotContains(t, code, "interface")
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		if c := strings.Index(l, "throw new Error"); c >= 0 {
			line, col, ok := m.Original(i+1, c+1)
			require.True(t, ok)
			assert.Equal(t, 5, line)
			assert.Equal(t, 1, col)
			return
		}
	}
	t.Fatalf("no throw in %s", code)
}

func TestStripSyntaxError(t *testing.T) {
	_, _, err := Strip("const a: number = 1;\nconst b: = 2;\n", "cell.ts")
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, 2, e.Line)
	assert.Equal(t, 10, e.Column)
	assert.NotEmpty(t, e.Message)
}
