// Command codemode-host runs model-written JavaScript (Code Mode) in V8.
//
// Usage:
//
//	codemode-host run SCRIPT [--tools FILE] [--json] [--timeout DUR] [--trace]
//	codemode-host stdio
//	codemode-host codex-host [--listen stdio|grpc+stdio://|grpc://IP:PORT]
//	codemode-host version
//
// run exits 0 when the cell completed, 1 when it failed or timed out, 2
// for bad usage or an unreadable file. stdio serves the protocol of
// docs/PROTOCOL.md on stdin/stdout and exits 0 when its input ends.
// Launched by the bridge through go-plugin (its magic cookie in the
// environment), the binary serves the same protocol on fds 3 and 4.
package main

import (
	"errors"
	"fmt"
	"os"
	goruntime "runtime"

	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/launch"
)

func init() {
	// Keep the main goroutine on the main thread so no isolate ever runs
	// there: V8 on the process's main thread re-reads /proc/self/maps on
	// every lock, which made each tool call ~25x slower.
	goruntime.LockOSThread()
}

// usageError is bad usage or an unreadable input: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError carries an exit code without a message (the output said it).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	if launch.Launched() {
		os.Exit(servePlugin())
	}
	if startedAsCodexHost(os.Args) {
		os.Exit(execute(append([]string{"codex-host"}, os.Args[1:]...)))
	}
	os.Exit(execute(os.Args[1:]))
}

func execute(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Every other error is bad usage or an unreadable input (flag and
	// argument errors from cobra included); runs report through exitError.
	fmt.Fprintf(os.Stderr, "codemode-host: %v\n", err)
	return 2
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "codemode-host",
		Short:         "Run model-written JavaScript that calls tools, in V8",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	root.AddCommand(newRunCmd(), newStdioCmd(), newCodexHostCmd(), newTypesCmd(), newVersionCmd())
	return root
}
