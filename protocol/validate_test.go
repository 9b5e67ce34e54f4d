package protocol

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pingPrefix is the start of a valid map {t: "ping", id: 1, x: <value>}:
// hostile values go after it.
var pingPrefix = []byte{0x83, 0xa1, 't', 0xa4, 'p', 'i', 'n', 'g', 0xa2, 'i', 'd', 0x01, 0xa1, 'x'}

func withValue(v ...byte) []byte { return append(append([]byte{}, pingPrefix...), v...) }

// requireBadFrame asserts Decode refuses frame as bad_frame and still
// recovers the envelope of pingPrefix.
func requireBadFrame(t *testing.T, frame []byte, want string) {
	t.Helper()
	require.Error(t, Validate(frame))
	_, err := Decode(frame)
	pe := requireProtocolError(t, err, ErrCodeBadFrame)
	assert.Contains(t, pe.Message, want)
	assert.Equal(t, TypePing, pe.Type, "t is recovered from a broken frame")
	assert.Equal(t, uint64(1), pe.ID, "id is recovered from a broken frame")
}

func TestValidateAcceptsEverySample(t *testing.T) {
	for _, m := range samples() {
		assert.NoError(t, Validate(body(t, m)), m.Type())
	}
}

func TestValidateHugeDeclaredLengths(t *testing.T) {
	cases := map[string][]byte{
		"array32":  withValue(0xdd, 0xff, 0xff, 0xff, 0xff),
		"array16":  withValue(0xdc, 0xff, 0xff),
		"map32":    withValue(0xdf, 0xff, 0xff, 0xff, 0xff),
		"map16":    withValue(0xde, 0xff, 0xff),
		"str32":    withValue(0xdb, 0xff, 0xff, 0xff, 0xff, 'a'),
		"str8":     withValue(0xd9, 0xff, 'a'),
		"bin32":    withValue(0xc6, 0xff, 0xff, 0xff, 0xff),
		"bin16":    withValue(0xc5, 0xff, 0xff, 1, 2, 3),
		"fixarray": withValue(0x9f),
		"fixmap":   withValue(0x8f, 0xa1, 'a'),
	}
	for name, frame := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			requireBadFrame(t, frame, "left")
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "refusing a hostile length must not allocate for it")
		})
	}
}

func TestValidateRefusesExtTypes(t *testing.T) {
	for name, frame := range map[string][]byte{
		"ext32 huge": withValue(0xc9, 0xff, 0xff, 0xff, 0xff, 0x01),
		"ext8":       withValue(0xc7, 0x01, 0x05, 0x00),
		"fixext1":    withValue(0xd4, 0x01, 0x00),
		"timestamp":  withValue(0xd6, 0xff, 0, 0, 0, 0),
	} {
		t.Run(name, func(t *testing.T) { requireBadFrame(t, frame, "ext types") })
	}
}

func TestValidateDeepNesting(t *testing.T) {
	deep := func(levels int) []byte {
		f := withValue(bytes.Repeat([]byte{0x91}, levels-1)...) // the top map is level 1
		return append(f, 0xc0)
	}
	assert.NoError(t, Validate(deep(MaxDepth)), "exactly MaxDepth levels is fine")
	requireBadFrame(t, deep(MaxDepth+1), "nesting deeper than 64")
	requireBadFrame(t, deep(10_000_000), "nesting deeper than 64")

	maps := withValue(bytes.Repeat([]byte{0x81, 0xa1, 'k'}, 100)...)
	requireBadFrame(t, append(maps, 0xc0), "nesting deeper")
}

func TestValidateItemBudget(t *testing.T) {
	arr := withValue(0xdd, 0x00, 0x04, 0x00, 0x00) // 262144 nils, plus the top map's 6 values
	arr = append(arr, bytes.Repeat([]byte{0xc0}, MaxItems)...)
	requireBadFrame(t, arr, "more than 262144 values")

	ok := withValue(0xdd, 0x00, 0x03, 0x00, 0x00)
	ok = append(ok, bytes.Repeat([]byte{0xc0}, 3<<16)...)
	assert.NoError(t, Validate(ok))
}

func TestValidateGarbage(t *testing.T) {
	cases := map[string]struct {
		frame []byte
		want  string
	}{
		"empty":             {nil, "empty frame"},
		"not a map":         {[]byte{0x92, 0x01, 0x02}, "not a msgpack map"},
		"text":              {[]byte("hello world"), "not a msgpack map"},
		"truncated map":     {[]byte{0x82, 0xa1, 't'}, "declared 2 entries"},
		"map16 no length":   {[]byte{0xde, 0x00}, "needs 2 bytes"},
		"value missing":     {[]byte{0x81, 0xa1, 't'}, "truncated: value missing"},
		"trailing bytes":    {[]byte{0x80, 0x00}, "trailing"},
		"never-used 0xc1":   {withValue(0xc1), "0xc1"},
		"int key":           {[]byte{0x81, 0x01, 0x02}, "not a string"},
		"nested int key":    {withValue(0x81, 0x01, 0x02), "not a string"},
		"bad utf8 value":    {withValue(0xa2, 0xff, 0xfe), "UTF-8"},
		"bad utf8 key":      {[]byte{0x81, 0xa1, 0xff, 0xc0}, "UTF-8"},
		"float64 truncated": {withValue(0xcb, 0x00), "float64"},
		"uint64 truncated":  {withValue(0xcf, 0x00), "uint"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := Validate(tc.frame)
			pe := requireProtocolError(t, err, ErrCodeBadFrame)
			assert.Contains(t, pe.Message, tc.want)
			_, err = Decode(tc.frame)
			requireProtocolError(t, err, ErrCodeBadFrame)
		})
	}
}

func TestValidateDoesNotAllocate(t *testing.T) {
	frame := body(t, sampleOf(TypeCellResult))
	allocs := testing.AllocsPerRun(100, func() {
		if err := Validate(frame); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}
