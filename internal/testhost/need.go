package testhost

import (
	"os"
	"testing"
)

// CIEnv is set (to anything) where the tests must not skip: under CI, a
// prerequisite that is missing fails the test instead.
const CIEnv = "CI"

// Need stops tb when err says a prerequisite of the test is missing
// (node, an npm package, tsc): it skips, or fails when CIEnv is set, with
// what and err in the message and how to install it (`make setup`). A nil
// err does nothing.
func Need(tb testing.TB, what string, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if os.Getenv(CIEnv) != "" {
		tb.Fatalf("%s is missing (%v); run make setup (CI runs every test)", what, err)
	}
	tb.Skipf("%s is missing (%v); run make setup to run this test", what, err)
}
