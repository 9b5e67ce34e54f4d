package stdlibbuild_test

import (
	"errors"
	"testing"

	"github.com/codemode-host/codemode-host/internal/testhost"
	"github.com/codemode-host/codemode-host/jsbindings/internal/stdlibbuild"
	"github.com/codemode-host/codemode-host/jsbindings/stdlib"
)

// TestStdlibBundleIsReproducible rebuilds the standard library from the
// entry and node_modules and checks that it is, byte for byte, the bundle
// the host embeds: the committed file comes from the pinned packages and
// nothing else.
func TestStdlibBundleIsReproducible(t *testing.T) {
	got, err := stdlibbuild.Build("../../..")
	if errors.Is(err, stdlibbuild.ErrNoNodeModules) {
		testhost.Need(t, "node_modules/core-js (to rebuild the standard library)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != stdlib.Source {
		t.Fatalf("%s is not what %s builds (%d bytes built, %d committed): run `make stdlib` and commit the result",
			stdlibbuild.Output, stdlibbuild.Entry, len(got), len(stdlib.Source))
	}
	again, err := stdlibbuild.Build("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(got) {
		t.Fatal("two builds of the standard library differ")
	}
}
