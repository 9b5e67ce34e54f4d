package jsbindings_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// TestConsoleHasNodesMethods: the console methods beyond log a script
// may call print what Node prints (to its stdout or stderr), as items at
// a console level, through the real runtime.
func TestConsoleHasNodesMethods(t *testing.T) {
	rt := runtime.New(runtime.Config{})
	t.Cleanup(rt.Close)
	res, err := rt.Run(context.Background(), runtime.CellRequest{Source: `
console.group("G");
console.log("in\nside");
console.count(); console.count(); console.count("x"); console.countReset(); console.count();
console.assert(1 === 2, "math %s", "broke"); console.assert(true, "never"); console.assert(0);
console.groupEnd();
console.time("t"); console.time("t"); console.timeLog("t", "so far"); console.timeEnd("t"); console.timeEnd("t");
console.dir({b: 2}); console.table([1]);`})
	require.NoError(t, err)
	require.Equal(t, protocol.StatusCompleted, res.Status, "%+v", res.Error)
	type line struct{ level, text string }
	var got []line
	for _, it := range res.Items {
		got = append(got, line{it.Level, it.Text})
	}
	require.Len(t, got, 14, "%q", got)
	assert.Equal(t, []line{
		{"log", "G"}, {"log", "  in\n  side"},
		{"log", "  default: 1"}, {"log", "  default: 2"}, {"log", "  x: 1"}, {"log", "  default: 1"},
		{"error", "  Assertion failed: math broke"}, {"error", "  Assertion failed"},
		{"warn", "Warning: Label 't' already exists for console.time()"},
	}, got[:9])
	assert.Regexp(t, regexp.MustCompile(`^t: \d+\.\d{3}ms so far$`), got[9].text)
	assert.Regexp(t, regexp.MustCompile(`^t: \d+\.\d{3}ms$`), got[10].text)
	assert.Equal(t, []line{{"warn", "Warning: No such label 't' for console.timeEnd()"}, {"log", `{"b":2}`}, {"log", "[1]"}}, got[11:])
}
