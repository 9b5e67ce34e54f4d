package protocol

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePragma(t *testing.T) {
	for src, want := range map[string]Pragma{
		"return 1":               {},
		"":                       {},
		"// a comment\nreturn 1": {},
		"//@exec: {\"yield_time_ms\": 5}\nreturn 1":                                 {}, // not the prefix
		"return 1 // @exec: {\"yield_time_ms\": 5}":                                 {}, // not on its own line
		"\n// @exec: {\"yield_time_ms\": 5}\nreturn 1":                              {}, // not the first line
		"// @exec: {\"yield_time_ms\": 60000}\nreturn 1":                            {YieldMS: 60000},
		"  \t// @exec:{\"max_output_tokens\":200}\r\nx":                             {OutputTokens: 200},
		"// @exec: {\"yield_time_ms\": 0, \"max_output_tokens\": 9007199254740991}": {OutputTokens: 9007199254740991},
		"// @exec: {}\ntext(1)":                                                     {},
	} {
		got, err := ParsePragma(src)
		require.NoError(t, err, src)
		assert.Equal(t, want, got, src)
	}
}

func TestParsePragmaNamesTheProblem(t *testing.T) {
	for src, want := range map[string]string{
		"// @exec: yield 5s\nreturn 1":                    `pragma is not a JSON object; write it as // @exec: {"yield_time_ms": 30000}`,
		"// @exec: [1]":                                   "not a JSON object",
		"// @exec: null":                                  "not a JSON object",
		"// @exec: {\"yield_ms\": 5}":                     `unknown key "yield_ms"; only yield_time_ms and max_output_tokens are allowed`,
		"// @exec: {\"yield_time_ms\": -1}":               "yield_time_ms is -1; want a whole number from 0 to 9007199254740991",
		"// @exec: {\"yield_time_ms\": 1.5}":              "yield_time_ms is 1.5",
		"// @exec: {\"max_output_tokens\": \"10\"}":       `max_output_tokens is "10"`,
		"// @exec: {\"max_output_tokens\": 1e300}":        "max_output_tokens is 1e300",
		"// @exec: {\"yield_time_ms\": 9007199254740992}": "9007199254740992; want",
	} {
		_, err := ParsePragma(src)
		if assert.Error(t, err, src) {
			assert.Contains(t, err.Error(), want, src)
		}
	}
}

func TestSourceNULSaysWhere(t *testing.T) {
	line, col, msg := SourceNUL("ok\nab\x00c")
	assert.Equal(t, 2, line)
	assert.Equal(t, 3, col)
	assert.Equal(t, "contains a NUL byte at line 2, column 3; remove it", msg)
	_, _, msg = SourceNUL("clean")
	assert.Empty(t, msg)
	err := (&Exec{ID: 1, Session: "s", Source: "\x00"}).check(true)
	assert.ErrorContains(t, err, "contains a NUL byte at line 1, column 1; remove it")
}
