package main

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/hostserver"
	"github.com/codemode-host/codemode-host/internal/nbpipe"
	"github.com/codemode-host/codemode-host/launch"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

func newStdioCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stdio",
		Short: "Serve the codemode-host protocol on stdin/stdout (logs on stderr)",
		Long: `Serve the framed msgpack protocol of docs/PROTOCOL.md to one parent:
frames on standard input and output, one JSON log object per line on
standard error. Standard output carries frames only: stray writes to fd 1
are redirected to standard error. The host exits when standard input closes.
CODEMODE_HOST_LIMITS (JSON, for example {"wall_ms": 60000}) sets the host's
limits; CODEMODE_HOST_CELL_PREFIX a prefix for its cell ids;
CODEMODE_HOST_STUCK_AFTER (a Go duration, default 5s) how long a stopped
cell may take to end before the host reports it and exits with status 3;
CODEMODE_HOST_LOG_LEVEL (trace ... error) its log level.

Exit status: 0 after end of input or shutdown, 2 when the handshake was
rejected or the input's framing broke, 3 when a stopped cell was stuck
inside V8 (it is reported to the parent first; start a new host).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			limits, err := hostLimits()
			if err != nil {
				return usageError{err}
			}
			frames, err := reserveStdout()
			if err != nil {
				return err
			}
			return serveFrames(os.Stdin, frames, limits, newHostLogger(os.Stderr), nil)
		},
	}
}

// newHostLogger returns the JSON logger of a serving host.
// CODEMODE_HOST_LOG_LEVEL
// (trace, debug, info, warn, error) sets its level; default info.
func newHostLogger(w io.Writer) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(launch.LogLevelEnv))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	return hclog.New(&hclog.LoggerOptions{Name: "codemode-host", Output: w, JSONFormat: true, Level: level})
}

// serveFrames runs the protocol until the input ends; a rejected
// handshake or broken framing exits with status 2.
func serveFrames(in io.Reader, out io.WriteCloser, limits protocol.Limits, log hclog.Logger, onShutdown func()) error {
	rcfg := runtime.Config{StuckAfter: stuckAfter(log)}
	if f, ok := out.(*os.File); ok {
		out = nbpipe.Wrap(f) // tool calls leave from the loop's own thread
	}
	err := hostserver.Serve(in, out, hostserver.Config{HostVersion: Version, Limits: limits, Logger: log,
		CellPrefix: os.Getenv(launch.CellPrefixEnv), Runtime: rcfg,
		OnShutdown: onShutdown, OnStuck: exitStuck(log),
		// Before the first request is read: reading /proc/self/maps
		// takes tens of microseconds.
		OnReady: func() { log.Debug("released start-up pages", "mapped_bytes", releaseStartupPages()) }})
	if err == nil {
		return nil
	}
	if !errors.Is(err, hostserver.ErrRejected) {
		log.Error("stopped", "error", err)
	}
	return exitError{2}
}

// exitStuckStatus is the exit status of a host that had a stuck cell.
const exitStuckStatus = 3

// exitStuck returns the hostserver OnStuck of a serving host: the cell
// was already reported to the parent, and its isolate's thread cannot be
// reclaimed, so the process exits with exitStuckStatus and the parent
// starts a new host.
func exitStuck(log hclog.Logger) func(session, cell string, reason protocol.ErrorInfo) {
	return func(session, cell string, reason protocol.ErrorInfo) {
		log.Error("exiting: a stopped cell is stuck inside V8", "session", session, "cell", cell, "reason", reason.Message)
		os.Exit(exitStuckStatus)
	}
}

// stuckAfter reads launch.StuckAfterEnv, how long a stopped cell may take
// to end (runtime.Config.StuckAfter); 0 (the default) when it is unset or
// not a positive Go duration, which is logged.
func stuckAfter(log hclog.Logger) time.Duration {
	v := os.Getenv(launch.StuckAfterEnv)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		log.Error("ignoring a bad "+launch.StuckAfterEnv+"; want a positive Go duration such as 5s", "value", v)
		return 0
	}
	return d
}
