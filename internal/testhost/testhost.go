// Package testhost builds the codemode-host binary for the tests that run
// it as a parent would: the bridge's, the command's, the hostile suite's,
// the bench's and the example agent's. Each test binary builds it once,
// on first use, into a temporary directory that Main removes.
//
// Set CODEMODE_TEST_HOST to a prebuilt binary to test that one instead
// (one built from another checkout, say).
package testhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Env names a prebuilt host binary to use instead of building one.
const Env = "CODEMODE_TEST_HOST"

// pkg is the host's main package.
const pkg = "github.com/codemode-host/codemode-host/cmd/codemode-host"

var (
	once sync.Once
	path string
	dir  string
	err  error
)

// Path returns the host binary, building it on the first call. Safe from
// any goroutine.
func Path() (string, error) {
	once.Do(func() {
		if p := os.Getenv(Env); p != "" {
			path = p
			return
		}
		dir, err = os.MkdirTemp("", "codemode-test-host")
		if err != nil {
			return
		}
		path = filepath.Join(dir, "codemode-host")
		out, berr := exec.Command("go", "build", "-o", path, pkg).CombinedOutput()
		if berr != nil {
			err = fmt.Errorf("building codemode-host: %w\n%s", berr, out)
		}
	})
	return path, err
}

// Bin returns the host binary, building it on the first call, and fails
// tb when it cannot be built.
func Bin(tb testing.TB) string {
	tb.Helper()
	p, err := Path()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Main runs a test binary's tests after building the host and removes
// the build afterwards; it exits with the tests' status. Use it as the
// body of TestMain when every test needs the host, so a build failure is
// reported once instead of per test.
func Main(m *testing.M) {
	os.Exit(Run(m.Run))
}

// Run builds the host, calls run and removes the build; it returns run's
// status, or 1 when the host could not be built. For a TestMain that does
// more around its tests than Main.
func Run(run func() int) int {
	if _, err := Path(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer Cleanup()
	return run()
}

// Cleanup removes the binary Path built, if it built one.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
