package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/codexhost"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// codexHostName is the name Codex starts its Code Mode host by: the
// binary started under it with no arguments serves v1 on stdio.
const codexHostName = "codex-code-mode-host"

// startedAsCodexHost reports whether the process was started as Codex's
// host with no arguments.
func startedAsCodexHost(args []string) bool {
	return len(args) == 1 && filepath.Base(args[0]) == codexHostName
}

func newCodexHostCmd() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "codex-host [--listen stdio]",
		Short: "Serve Codex's Code Mode host protocol (v1 framed JSON) on stdin/stdout",
		Long: `Serve the protocol Codex's codex-code-mode-host speaks without arguments
("v1": a 4-byte little-endian length, then one JSON object) on standard
input and output; logs go to standard error. The binary started under the
name codex-code-mode-host with no arguments does the same.
CODEMODE_HOST_LIMITS (JSON, for example {"wall_ms": 60000}) sets the
cells' limits.

Exit status: 0 when standard input ends or the handshake was rejected,
1 when the client sent a frame Codex's host treats as fatal (the reason
on standard error, in Codex's words), 2 for bad usage, 3 when a stopped
cell was stuck inside V8.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen != "stdio" && listen != "stdio://" {
				return usageError{fmt.Errorf("--listen %q is not supported: only stdio or stdio:// (v1 framed JSON) is", listen)}
			}
			return serveCodex()
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "stdio", "where to serve: stdio (or stdio://, as Codex's host spells it)")
	return cmd
}

// serveCodex serves v1 on stdin/stdout until the input ends.
func serveCodex() error {
	limits, err := hostLimits()
	if err != nil {
		return usageError{err}
	}
	frames, err := reserveStdout()
	if err != nil {
		return err
	}
	log := newHostLogger(os.Stderr)
	rcfg := runtime.Config{Logger: log, OnStuck: func(c *runtime.Cell, _ protocol.Status, reason protocol.ErrorInfo) {
		// Its isolate's thread cannot be reclaimed: exit, and let
		// Codex start a new host.
		log.Error("exiting: a stopped cell is stuck inside V8", "cell", c.ID(), "reason", reason.Message)
		os.Exit(exitStuckStatus)
	}}
	err = codexhost.Serve(os.Stdin, frames, codexhost.Config{Limits: limits, Logger: log, RuntimeConfig: rcfg})
	var fe *codexhost.FatalError
	if errors.As(err, &fe) {
		fmt.Fprint(os.Stderr, fe.Report())
		return exitError{1}
	}
	if err != nil {
		return err
	}
	return nil
}
