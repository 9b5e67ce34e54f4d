// Command genstdlib rebuilds jsbindings/stdlib/stdlib.js from
// jsbindings/stdlib/entry.js and node_modules (make stdlib). Run it from
// the repository root after changing the entry or the core-js version.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/codemode-host/codemode-host/jsbindings/internal/stdlibbuild"
)

func main() {
	out, err := stdlibbuild.Build(".")
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.FromSlash(stdlibbuild.Output), out, 0o644); err != nil {
		fail(fmt.Errorf("genstdlib: %w", err))
	}
	fmt.Fprintf(os.Stderr, "genstdlib: wrote %s (%d bytes)\n", stdlibbuild.Output, len(out))
}

// fail reports err on stderr and exits 1.
func fail(err error) {
	fmt.Fprintf(os.Stderr, "%v\n", err)
	os.Exit(1)
}
