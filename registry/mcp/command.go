package mcp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// commandTransport runs a server as a child process speaking MCP on its
// stdin and stdout. Unlike the SDK's CommandTransport it drops the lines
// a server prints to stdout that are not JSON (banners, logs), which would
// otherwise end the session, and it knows when and how the process exited.
type commandTransport struct {
	cmd  *exec.Cmd
	stop time.Duration
	log  hclog.Logger

	// exited is closed once the process has exited and been reaped;
	// waitErr is then its exit error.
	exited  chan struct{}
	waitErr error

	closeOnce sync.Once
}

func newCommandTransport(cmd *exec.Cmd, stop time.Duration, log hclog.Logger) *commandTransport {
	return &commandTransport{cmd: cmd, stop: stop, log: log, exited: make(chan struct{})}
}

// Connect starts the process. It is called once, by the SDK's Connect.
func (t *commandTransport) Connect(context.Context) (sdk.Connection, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating the server's stdin: %w", err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, fmt.Errorf("creating the server's stdout: %w", err)
	}
	t.cmd.Stdin, t.cmd.Stdout = stdinR, stdoutW
	err = t.cmd.Start()
	stdinR.Close() // the child has its own copies now
	stdoutW.Close()
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		return nil, fmt.Errorf("starting %s: %w", t.cmd.Path, err)
	}
	go func() {
		t.waitErr = t.cmd.Wait()
		// Whatever the server started must not keep its stdout open.
		killProcessGroup(t.cmd)
		close(t.exited)
	}()
	jsonR, jsonW := io.Pipe()
	go t.filterStdout(stdoutR, jsonW)
	reader := &readCloser{Reader: jsonR, close: func() error {
		jsonR.Close()
		return stdoutR.Close()
	}}
	writer := &writeCloser{Writer: stdinW, close: func() error {
		t.shutdown(stdinW)
		return nil
	}}
	return (&sdk.IOTransport{Reader: reader, Writer: writer}).Connect(context.Background())
}

// filterStdout copies the JSON lines of the server's stdout to w and logs
// the others.
func (t *commandTransport) filterStdout(stdout io.Reader, w *io.PipeWriter) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	warned := false
	for {
		line, err := r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if trimmed[0] == '{' || trimmed[0] == '[' {
				if _, werr := w.Write(line); werr != nil {
					return
				}
			} else if !warned {
				warned = true
				t.log.Warn("the server writes text that is not MCP to stdout; ignoring it (servers should log to stderr)", "line", string(trimmed))
			} else {
				t.log.Debug("server stdout", "line", string(trimmed))
			}
		}
		if err != nil {
			w.CloseWithError(err)
			return
		}
	}
}

// shutdown stops the server as the MCP spec asks: close its stdin, wait,
// SIGTERM, wait, SIGKILL.
func (t *commandTransport) shutdown(stdin *os.File) {
	t.closeOnce.Do(func() {
		stdin.Close()
		if t.waitExit(t.stop) {
			return
		}
		_ = t.cmd.Process.Signal(syscall.SIGTERM)
		if t.waitExit(t.stop) {
			return
		}
		killProcessGroup(t.cmd)
		_ = t.cmd.Process.Kill()
		<-t.exited
	})
}

func (t *commandTransport) waitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.exited:
		return true
	case <-timer.C:
		return false
	}
}

// exitStatus says how the process ended, if it has ("exit status 3",
// "signal: killed"), waiting up to grace for it.
func (t *commandTransport) exitStatus(grace time.Duration) (string, bool) {
	if !t.waitExit(grace) {
		return "", false
	}
	if st := t.cmd.ProcessState; st != nil {
		return st.String(), true
	}
	if t.waitErr != nil {
		return t.waitErr.Error(), true
	}
	return "exited", true
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r *readCloser) Close() error { return r.close() }

type writeCloser struct {
	io.Writer
	close func() error
}

func (w *writeCloser) Close() error { return w.close() }
