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
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.FromSlash(stdlibbuild.Output), out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genstdlib:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "genstdlib: wrote %s (%d bytes)\n", stdlibbuild.Output, len(out))
}
