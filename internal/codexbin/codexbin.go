// Package codexbin finds the binaries of the pinned Codex that `make setup`
// installs into test/codex (npm ci of @openai/codex, whose native codex and
// codex-code-mode-host come in the optional platform package), for the
// tests that compare our host with Codex's own.
//
// Outside CI a test whose binaries are missing is skipped; with CI set it
// fails, so a machine without them cannot pass by running nothing.
package codexbin

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Version is the Codex release test/codex/package.json pins.
const Version = "0.169.0"

// Binary names in the vendor directory.
const (
	// CodexName is the codex CLI itself (`codex exec`, ...).
	CodexName = "codex"
	// HostName is Codex's code-mode host: v1 framed JSON on stdio with no
	// arguments, gRPC with `--listen grpc+stdio://` (what codex starts).
	HostName = "codex-code-mode-host"
)

// vendorDir is where npm puts the native binaries for linux/amd64, the
// only platform the tests run on, relative to the module root.
const vendorDir = "test/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl"

// Dir returns the absolute directory that holds the codex and
// codex-code-mode-host binaries, after checking they are the pinned
// Version. The module root is found from the working directory up.
func Dir() (string, error) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", fmt.Errorf("codexbin: only linux/amd64 is set up, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	vendor := filepath.Join(root, vendorDir)
	manifest := filepath.Join(vendor, "codex-package.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		return "", fmt.Errorf("codexbin: Codex %s is not installed (%w); run make setup", Version, err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("codexbin: %s: %w", manifest, err)
	}
	if pkg.Version != Version {
		return "", fmt.Errorf("codexbin: test/codex has Codex %q, want %s; run make setup", pkg.Version, Version)
	}
	bin := filepath.Join(vendor, "bin")
	for _, name := range []string{CodexName, HostName} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return "", fmt.Errorf("codexbin: %w; run make setup", err)
		}
	}
	return bin, nil
}

// Path returns the absolute path of the named binary (CodexName or
// HostName).
func Path(name string) (string, error) {
	if name != CodexName && name != HostName {
		return "", fmt.Errorf("codexbin: unknown binary %q (want %q or %q)", name, CodexName, HostName)
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// Host returns the path of codex-code-mode-host. When it is missing it
// fails tb under CI and skips tb otherwise.
func Host(tb testing.TB) string {
	tb.Helper()
	return need(tb, HostName)
}

// Codex returns the path of the codex CLI, failing or skipping tb as Host
// does.
func Codex(tb testing.TB) string {
	tb.Helper()
	return need(tb, CodexName)
}

func need(tb testing.TB, name string) string {
	tb.Helper()
	p, err := Path(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatal(err)
		}
		tb.Skip(err)
	}
	return p
}

// moduleRoot is the nearest directory at or above the working directory
// that has a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("codexbin: no go.mod at or above the working directory")
		}
		dir = parent
	}
}
