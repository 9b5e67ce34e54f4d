package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/codexhost"
	"github.com/codemode-host/codemode-host/internal/nbpipe"
	"github.com/codemode-host/codemode-host/internal/pipeconn"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// codexHostName is the name Codex starts its Code Mode host by: the
// binary started under it runs codex-host with the arguments it got
// (none: v1 on stdio; `--listen grpc+stdio://`: what codex 0.169 starts).
const codexHostName = "codex-code-mode-host"

// startedAsCodexHost reports whether the process was started as Codex's
// host.
func startedAsCodexHost(args []string) bool {
	return len(args) >= 1 && filepath.Base(args[0]) == codexHostName
}

func newCodexHostCmd() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "codex-host [--listen stdio|grpc+stdio://|grpc://IP:PORT]",
		Short: "Serve Codex's Code Mode host protocol (v1 framed JSON or gRPC)",
		Long: `Serve the protocols of Codex's codex-code-mode-host; logs go to standard
error. The binary started under the name codex-code-mode-host does the
same with the arguments it got.

--listen stdio (or stdio://, the default): protocol "v1", a 4-byte
little-endian length, then one JSON object, on standard input and output.
--listen grpc+stdio://: the gRPC service codex.code_mode.v1.CodeModeHost
over HTTP/2 with prior knowledge on the standard input/output pipe pair
(what codex 0.169 starts); one connection, the host exits when it closes.
--listen grpc://IP:PORT: the same service on TCP; the address it listens
on is printed as http://IP:PORT on standard output.
CODEMODE_HOST_LIMITS (JSON, for example {"wall_ms": 60000}) sets the
cells' limits; CODEMODE_HOST_STUCK_AFTER (a Go duration, default 5s) how
long a stopped cell may take to end before the host exits with status 3;
CODEMODE_HOST_LOG_LEVEL (trace ... error) its log level.

Exit status: 0 when standard input (the connection) ends or the handshake
was rejected, 1 when the client sent a frame Codex's host treats as fatal
(the reason on standard error, in Codex's words), 2 for bad usage, 3 when
a stopped cell was stuck inside V8.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case listen == "stdio" || listen == "stdio://":
				return serveCodex("")
			case listen == "grpc+stdio://":
				return serveCodex(listen)
			case strings.HasPrefix(listen, "grpc://"):
				addr := strings.TrimPrefix(listen, "grpc://")
				if _, _, err := net.SplitHostPort(addr); err != nil {
					return usageError{fmt.Errorf("--listen %q: want grpc://IP:PORT: %v", listen, err)}
				}
				return serveCodex(listen)
			}
			return usageError{fmt.Errorf("unsupported --listen URL %q; expected grpc://IP:PORT, grpc+stdio://, stdio, or stdio://", listen)}
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "stdio", "where to serve: stdio or stdio:// (v1), grpc+stdio:// or grpc://IP:PORT (gRPC)")
	return cmd
}

// serveCodex serves v1 on stdin/stdout (listen "") or gRPC until the
// input or the connection ends.
func serveCodex(listen string) error {
	limits, err := hostLimits()
	if err != nil {
		return usageError{err}
	}
	frames, err := reserveStdout()
	if err != nil {
		return err
	}
	log := newHostLogger(os.Stderr)
	rcfg := runtime.Config{Logger: log, StuckAfter: stuckAfter(log), OnStuck: func(c *runtime.Cell, _ protocol.Status, reason protocol.ErrorInfo) {
		// Its isolate's thread cannot be reclaimed: exit, and let
		// Codex start a new host.
		log.Error("exiting: a stopped cell is stuck inside V8", "cell", c.ID(), "reason", reason.Message)
		os.Exit(exitStuckStatus)
	}}
	cfg := codexhost.Config{Limits: limits, Logger: log, RuntimeConfig: rcfg}
	switch {
	case listen == "grpc+stdio://":
		return codexhost.ServeGRPC(codexhost.OneConn(pipeconn.New(os.Stdin, frames)), cfg)
	case listen != "":
		l, err := net.Listen("tcp", strings.TrimPrefix(listen, "grpc://"))
		if err != nil {
			return usageError{err}
		}
		fmt.Fprintf(frames, "http://%s\n", l.Addr())
		log.Info("codex-code-mode-host listening on http://" + l.Addr().String())
		return codexhost.ServeGRPC(codexhost.WithHealth(l), cfg)
	}
	err = codexhost.Serve(os.Stdin, nbpipe.Wrap(frames), cfg) // tool calls leave from the loop's own thread
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
