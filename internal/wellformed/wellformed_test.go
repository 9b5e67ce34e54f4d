package wellformed

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestStringKeepsValidTextAsIs(t *testing.T) {
	for _, s := range []string{"", "plain", "émoji 😀", "\uFFFD"} {
		assert.Equal(t, s, String(s))
	}
}

func TestStringReplacesEachLoneSurrogateWithOneReplacementChar(t *testing.T) {
	// What V8 hands out for "a" + "\ud83d" + "-" + "\udc00x" + "\ud800\ud800".
	in := "a\xed\xa0\xbd-\xed\xb0\x80x\xed\xa0\x80\xed\xa0\x80"
	assert.Equal(t, "a\uFFFD-\uFFFDx\uFFFD\uFFFD", String(in))
}

func TestStringReplacesOtherInvalidBytes(t *testing.T) {
	assert.Equal(t, "\uFFFDa\uFFFD\uFFFD", String("\xffa\xed\xa0"), "a truncated sequence at the end")
	assert.Equal(t, "x\uFFFD", String("x\xc3"))
}

func FuzzStringIsAlwaysValid(f *testing.F) {
	f.Add("a\xed\xa0\xbd")
	f.Add("\xf0\x9f\x98")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not valid UTF-8", s, out)
		}
		if utf8.ValidString(s) && out != s {
			t.Fatalf("String changed valid text %q", s)
		}
	})
}
