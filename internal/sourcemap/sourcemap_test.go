package sourcemap

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVLQ(t *testing.T) {
	for s, want := range map[string]int{"A": 0, "C": 1, "D": -1, "gB": 16, "hB": -16, "2H": 123, "+/////D": 1<<31 - 1} {
		v, n, err := vlq(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, v, s)
		assert.Equal(t, len(s), n, s)
	}
	for _, bad := range []string{"", "g", "!", "gggggggggB"} {
		_, _, err := vlq(bad)
		assert.Error(t, err, bad)
	}
}

func TestOriginal(t *testing.T) {
	// Generated line 1: col 0 → src 0:0, col 4 → src 0:10.
	// Generated line 2: empty. Generated line 3: col 2 → src 2:0.
	m, err := Parse([]byte(`{"version":3,"sources":["a.ts"],"mappings":"AAAA,IAAU;;EAEV"}`))
	require.NoError(t, err)
	cases := []struct{ line, col, wantLine, wantCol int }{
		{1, 1, 1, 1},
		{1, 3, 1, 1},
		{1, 5, 1, 11},
		{1, 9, 1, 11},
		{3, 3, 3, 1},
		{3, 1, 3, 1},
	}
	for _, c := range cases {
		l, col, ok := m.Original(c.line, c.col)
		require.True(t, ok, "%+v", c)
		assert.Equal(t, [2]int{c.wantLine, c.wantCol}, [2]int{l, col}, "%+v", c)
	}
	_, _, ok := m.Original(2, 1)
	assert.False(t, ok)
	_, _, ok = m.Original(9, 1)
	assert.False(t, ok)
}

func TestParseErrors(t *testing.T) {
	_, err := Parse([]byte(`{"version":2,"mappings":""}`))
	assert.ErrorContains(t, err, "version 2")
	_, err = Parse([]byte(`{"version":3,"mappings":"A!"}`))
	assert.ErrorContains(t, err, "malformed VLQ")
	_, err = Parse([]byte(`nope`))
	assert.Error(t, err)
}

func FuzzParse(f *testing.F) {
	f.Add("AAAA,IAAU;;EAEV")
	f.Add(";;;")
	f.Fuzz(func(t *testing.T, mappings string) {
		m, err := decode(mappings)
		if err == nil {
			m.Original(1, 1)
			m.Original(2, 5)
		}
	})
}
