package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/codemode-host/codemode-host/internal/testhost"
)

// TestNodeClientSpeaksTheProtocol runs test/node/client.mjs, a parent
// written in JavaScript from docs/PROTOCOL.md alone, against the built
// binary's stdio mode, and test/node/golden.mjs, which checks the golden
// frames with the same non-Go msgpack library. Without node or node_modules it skips, except under
// CI, where it fails (run `make setup`).
func TestNodeClientSpeaksTheProtocol(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	node, err := exec.LookPath("node")
	testhost.Need(t, "node", err)
	_, err = os.Stat(filepath.Join(root, "node_modules", "@msgpack", "msgpack"))
	testhost.Need(t, "node_modules/@msgpack/msgpack", err)
	for _, tc := range []struct{ script, arg string }{
		{"client.mjs", hostBin}, // a whole session against `codemode-host stdio`
		{"golden.mjs", ""},      // the golden frames of protocol/testdata
	} {
		t.Run(tc.script, func(t *testing.T) {
			args := []string{filepath.Join(root, "test", "node", tc.script)}
			if tc.arg != "" {
				args = append(args, tc.arg)
			}
			cmd := exec.Command(node, args...)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), tc.script+": ok")
		})
	}
}
