package hostserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that Serve leaves no goroutine behind once its input is
// closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
