package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

var validJSONCases = []string{
	``, ` `, `null`, ` true `, `false`, `nul`, `truex`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`,
	`-12.5e10`, `.5`, `+1`, `"`, `""`, `"a\"b"`, `"\u00e9\uD83D"`, `"\u12"`, `"\x"`, "\"\t\"", "\"\x7f\xff\"",
	`"\/\b\f\n\r\t\\"`, `{}`, `[]`, `{ }`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`,
	`{a:1}`, `{"a":}`, `{"a":1 "b":2}`, `[{"a":[1,{"b":null}]},"x",-1e9]`, `{"a":{"b":{}}}`, `[1]]`, `[[1]`,
	`{}{}`, `1 2`, "\n[\r1\t]\n", `{"":""}`, `[true,false,null]`, `{"a":[}`, `{"a":]}`, `["a":1]`, `{,}`,
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validJSONCases {
		assert.Equal(t, json.Valid([]byte(c)), ValidJSON([]byte(c)), "%q", c)
	}
	for _, depth := range []int{maxJSONDepth, maxJSONDepth + 1} {
		for _, open := range []string{"[", `{"k":`} {
			closer := "]"
			if open != "[" {
				closer = "}"
			}
			c := strings.Repeat(open, depth) + "1" + strings.Repeat(closer, depth)
			assert.Equal(t, json.Valid([]byte(c)), ValidJSON([]byte(c)), "%d × %s", depth, open)
		}
	}
}

// TestValidJSONFindsSpecialBytesInLongStrings puts each byte a string scan
// must stop at, and a few it must not, at every offset of a string longer
// than the eight-byte words skipPlain reads.
func TestValidJSONFindsSpecialBytesInLongStrings(t *testing.T) {
	for _, c := range []string{`"`, `\`, `\n`, `\u00e9`, `\x`, "\x00", "\x1f", "\t", " ", "!", "#", "[", "]", "\x7f", "\x80", "\xff"} {
		for at := range 24 {
			doc := []byte(`["` + strings.Repeat("a", at) + c + strings.Repeat("b", 24-at) + `"]`)
			assert.Equal(t, json.Valid(doc), ValidJSON(doc), "%q", doc)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, c := range validJSONCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if want := json.Valid(b); ValidJSON(b) != want {
			t.Fatalf("ValidJSON(%q) = %v, encoding/json says %v", b, !want, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	doc := []byte(`{"pad":"` + strings.Repeat("y", 10000) + `","i":42,"list":[1,2.5,-3e4,true,null,{"k":"v\n"}]}`)
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			ValidJSON(doc)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			json.Valid(doc)
		}
	})
}
