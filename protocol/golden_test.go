package protocol

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenCases are the messages whose frames are pinned, by file name.
func goldenCases() map[string]Message {
	cases := map[string]Message{}
	for _, m := range samples() {
		cases[m.Type()] = m
	}
	cases["tool.result.error"] = toolErrorResult()
	for name, m := range variantSamples() {
		cases[name] = m
	}
	return cases
}

// goldenHex formats a frame as lowercase hex, 32 bytes per line.
func goldenHex(frame []byte) string {
	var b strings.Builder
	for len(frame) > 0 {
		n := min(len(frame), 32)
		b.WriteString(hex.EncodeToString(frame[:n]))
		b.WriteByte('\n')
		frame = frame[n:]
	}
	return b.String()
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "golden", name+".hex"))
	require.NoError(t, err, "run UPDATE_GOLDEN=1 go test ./protocol to create it")
	frame, err := hex.DecodeString(strings.Join(strings.Fields(string(text)), ""))
	require.NoError(t, err)
	return frame
}

func TestGoldenFramesPinEveryMessageEncoding(t *testing.T) {
	update := os.Getenv("UPDATE_GOLDEN") != ""
	cases := goldenCases()
	for _, typ := range Types() {
		require.Contains(t, cases, typ, "every message type needs a golden frame")
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			frame, err := AppendFrame(nil, m)
			require.NoError(t, err)
			path := filepath.Join("testdata", "golden", name+".hex")
			if update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(goldenHex(frame)), 0o644))
			}
			want := readGolden(t, name)
			assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(frame), "encoding changed; if on purpose, rerun with UPDATE_GOLDEN=1 and update docs/PROTOCOL.md")

			got, err := Decode(want[4:])
			require.NoError(t, err)
			assert.Equal(t, m, got, "the golden frame decodes back to the message")
		})
	}
}

func TestGoldenFramesStartWithTheTypeTag(t *testing.T) {
	for name, m := range goldenCases() {
		frame := readGolden(t, name)
		body := frame[4:]
		_, hdr := mapLen(body)
		require.NotZero(t, hdr, name)
		tag := appendStr([]byte{0xa1, 't'}, m.Type())
		assert.Equal(t, tag, body[hdr:hdr+len(tag)], "%s: t must be the first key", name)
	}
}
