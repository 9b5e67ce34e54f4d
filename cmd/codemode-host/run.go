package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/render"
	"github.com/codemode-host/codemode-host/runtime"
)

type runOptions struct {
	tools   string
	mcp     []string
	lang    string
	json    bool
	timeout time.Duration
	trace   bool
}

func newRunCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run SCRIPT",
		Short: "Run a script with fixture tools and print its output (for debugging)",
		Long: `Run SCRIPT (a file, or - for standard input) as one cell, the way the
model's code runs in production: top-level await and return work, tools are
bound as tools.<name>(args), and errors point at lines in SCRIPT. Like a
parent agent, run launches a host process (this binary, through the bridge)
and answers its tool calls.

--tools FILE binds the tools of a fixture file ({"tools": [...]}, see the
README); each call is answered from the file. --trace prints every tool call
on stderr with its arguments and duration.

Exit status: 0 when the cell completed, 1 when it failed or timed out, 2 for
bad usage or an unreadable file.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("run takes exactly one SCRIPT argument, got %d (see 'codemode-host run --help')", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScript(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tools, "tools", "", "fixture file of tools to bind (JSON: {\"tools\": [...]})")
	f.BoolVar(&o.json, "json", false, "print one JSON object: status, items, error, stats")
	f.DurationVar(&o.timeout, "timeout", time.Minute, "stop the script after this much wall time")
	f.BoolVar(&o.trace, "trace", false, "print every tool call on stderr")
	f.StringArrayVar(&o.mcp, "mcp", nil, "bind an MCP server's tools: 'NAME=COMMAND ARGS…' or 'NAME=https://…' (repeatable)")
	f.StringVar(&o.lang, "lang", "", "js or ts (default: ts for .ts/.mts/.cts files, else js)")
	return cmd
}

func readScript(path string) (string, string, error) {
	if path == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return "", "", usageError{fmt.Errorf("read standard input: %w", err)}
		}
		return string(b), "stdin.js", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", usageError{fmt.Errorf("cannot read script: %w", err)}
	}
	return string(b), filepath.Base(path), nil
}

func runScript(ctx context.Context, stdout, stderr io.Writer, path string, o runOptions) error {
	if o.timeout <= 0 {
		return usageError{fmt.Errorf("--timeout must be positive, got %s", o.timeout)}
	}
	source, origin, err := readScript(path)
	if err != nil {
		return err
	}
	if source == "" {
		// An empty file is an empty program, as a blank one is; the
		// protocol's exec requires some source.
		source = "\n"
	}
	lang, err := language(path, o.lang)
	if err != nil {
		return err
	}
	// Traces, progress, notifications and logs come from many goroutines.
	stderr = &lockedWriter{w: stderr}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	tools, err := loadRunTools(ctx, stderr, o.tools, o.mcp)
	if err != nil {
		return err
	}
	defer tools.Close()
	tools.warnUnbound()
	var executor bridge.ToolExecutor = tools
	if o.trace {
		executor = &tracer{next: tools, w: stderr}
	}
	res, err := runAsParent(ctx, stderr, cell{source: source, origin: origin, lang: lang}, tools.defs, executor, o.timeout)
	if err != nil {
		// The cell has no result: the host died, stopped answering, or
		// the bridge failed. Say so, on stdout too with --json.
		fmt.Fprintf(stderr, "codemode-host: %v\n", err)
		if o.json {
			if err := printJSON(stdout, hostFailure(err)); err != nil {
				return err
			}
		}
		return exitError{1}
	}
	if o.json {
		err = printJSON(stdout, res)
	} else {
		printHuman(stdout, res, source)
	}
	if err != nil {
		return err
	}
	if res.Status != protocol.StatusCompleted {
		return exitError{1}
	}
	return nil
}

// Error names of the --json output of a run that got no result from the
// host.
const (
	// errNameHostDied: the host process died mid-cell (a V8 abort, a
	// crash, a kill).
	errNameHostDied = "HostDiedError"
	// errNameHostUnresponsive: the cell's time was up and the host did not
	// answer the terminate within the grace; it was killed.
	errNameHostUnresponsive = "HostUnresponsiveError"
	// errNameHost: the host could not be started or talked to.
	errNameHost = "HostError"
)

// hostFailure is the result run reports when the host gave none: status
// timed_out and HostUnresponsiveError when the time was up and the host
// did not answer; else status failed, with HostDiedError and what killed
// the host in words ("the host process died (exit status 2: Fatal
// JavaScript invalid size error 134217738): the script built ..."), or
// HostError and the bridge's error.
func hostFailure(err error) runtime.Result {
	var died *bridge.HostDiedError
	var unresponsive *bridge.HostUnresponsiveError
	switch {
	case errors.As(err, &unresponsive):
		status := protocol.StatusTimedOut
		if !errors.Is(unresponsive.Err, context.DeadlineExceeded) {
			status = protocol.StatusTerminated // interrupted
		}
		return runtime.Result{Status: status, Error: &protocol.ErrorInfo{Name: errNameHostUnresponsive,
			Message: fmt.Sprintf("the script did not stop when its time was up and the host did not answer within %s after it was told to stop it, so the host was killed; nothing of the cell's output or store writes is kept", unresponsive.Grace)}}
	case errors.As(err, &died):
		msg := "the host process died"
		switch {
		case died.Exit != "" && died.Cause != "":
			msg += fmt.Sprintf(" (%s: %s)", died.Exit, died.Cause)
		case died.Exit != "":
			msg += fmt.Sprintf(" (%s)", died.Exit)
		case died.Cause != "":
			msg += fmt.Sprintf(" (%s)", died.Cause)
		}
		if died.Explanation != "" {
			msg += ": " + died.Explanation
		}
		return runtime.Result{Status: protocol.StatusFailed, Error: &protocol.ErrorInfo{Name: errNameHostDied,
			Message: msg + "; nothing of the cell's output or store writes is kept"}}
	}
	return runtime.Result{Status: protocol.StatusFailed, Error: &protocol.ErrorInfo{Name: errNameHost, Message: err.Error()}}
}

// jsonResult is the --json output.
type jsonResult struct {
	Status    protocol.Status     `json:"status"`
	Items     []protocol.Item     `json:"items"`
	Truncated bool                `json:"truncated,omitempty"`
	Error     *protocol.ErrorInfo `json:"error,omitempty"`
	Stats     protocol.Stats      `json:"stats"`
}

func printJSON(w io.Writer, res runtime.Result) error {
	out := jsonResult{Status: res.Status, Items: res.Items, Truncated: res.Truncated, Error: res.Error, Stats: res.Stats}
	if out.Items == nil {
		out.Items = []protocol.Item{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func printHuman(w io.Writer, res runtime.Result, source string) {
	for _, it := range res.Items {
		switch {
		case it.Type == protocol.ItemImage:
			fmt.Fprintf(w, "[image %s, detail %s, %d bytes]\n", render.MediaType(it.ImageURL), it.Detail, len(it.ImageURL))
		default:
			fmt.Fprintln(w, render.ItemText(&it))
		}
	}
	calls := "tool calls"
	if res.Stats.ToolCalls == 1 {
		calls = "tool call"
	}
	fmt.Fprintf(w, "── %s in %.1f ms, %d %s\n", res.Status, res.Stats.WallMS, res.Stats.ToolCalls, calls)
	if e := res.Error; e != nil {
		fmt.Fprintf(w, "%s: %s\n", e.Name, e.Message)
		if e.Line > 0 {
			fmt.Fprint(w, excerpt(source, e.Line, e.Column))
		}
		for _, l := range strings.Split(e.Stack, "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "at ") {
				fmt.Fprintf(w, "    %s\n", t)
			}
		}
	}
}

// excerpt shows the line before and the failing line with a caret.
func excerpt(source string, line, col int) string {
	lines := strings.Split(source, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	var b strings.Builder
	width := len(fmt.Sprint(line))
	for n := max(1, line-1); n <= line; n++ {
		mark := " "
		if n == line {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s %*d | %s\n", mark, width, n, strings.TrimRight(lines[n-1], "\r"))
	}
	if col > 0 {
		fmt.Fprintf(&b, "  %*s | %s^\n", width, "", strings.Repeat(" ", col-1))
	}
	return b.String()
}

// language picks the cell's language from --lang or the script's name.
func language(path, flag string) (protocol.Language, error) {
	switch flag {
	case "js":
		return protocol.LangJS, nil
	case "ts":
		return protocol.LangTS, nil
	case "":
	default:
		return "", usageError{fmt.Errorf("--lang must be js or ts, got %q", flag)}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return protocol.LangTS, nil
	}
	return protocol.LangJS, nil
}
