package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

// cell is the script `run` runs.
type cell struct {
	source, origin string
	lang           protocol.Language
}

// runSlack is how long after --timeout run stops waiting for the host's
// own wall-time limit to end the cell and terminates it itself.
const runSlack = 2 * time.Second

// runGrace is how long run then waits for the host's answer before it
// gives up on the host (kills it) and fails: the bridge's default, twice
// the host's stuck deadline. A run therefore ends within timeout +
// runSlack + runGrace, whatever the host does.
const runGrace = bridge.DefaultTerminateGrace

// runAsParent runs one cell the way a parent agent does: this binary is
// launched again as the host through go-plugin, the bridge serves the
// tool calls from executor, and the final result comes back as if the
// cell had run in process. ctx ending, or timeout + runSlack passing,
// terminates the cell; a host that does not answer within runGrace after
// that is killed and the error is a *bridge.HostUnresponsiveError.
func runAsParent(ctx context.Context, stderr io.Writer, c cell, tools []protocol.ToolDef,
	executor bridge.ToolExecutor, timeout time.Duration) (runtime.Result, error) {
	self, err := os.Executable()
	if err != nil {
		return runtime.Result{}, fmt.Errorf("cannot find this executable to launch it as the host: %w", err)
	}
	ms := uint64(timeout.Milliseconds())
	client, err := bridge.Start(ctx, bridge.Config{
		HostPath:       self,
		HostLimits:     &protocol.Limits{WallTimeMS: ms, CPUTimeMS: ms},
		Executor:       executor,
		Capabilities:   []string{protocol.CapTypeScript},
		TerminateGrace: runGrace,
		Logger:         warnLogger("codemode-host", stderr),
	})
	if err != nil {
		return runtime.Result{}, err
	}
	defer client.Close(0)
	session, err := client.OpenSession(ctx, "run", nil)
	if err != nil {
		return runtime.Result{}, err
	}
	// Wait for the end: the wall-time limit ends the cell before this
	// yield time; yield_control() may still yield early.
	yield := timeout + time.Minute
	cellCtx, cancel := context.WithTimeout(ctx, timeout+runSlack)
	defer cancel()
	res, err := session.Exec(cellCtx, bridge.ExecRequest{Source: c.source, Filename: c.origin, Language: c.lang,
		Tools: tools, Yield: yield, OnEvent: func(e bridge.Event) {
			if e.Kind == bridge.EventNotify {
				fmt.Fprintf(stderr, "[notify] %s\n", e.Text)
			}
		}})
	if err != nil {
		return runtime.Result{}, err
	}
	items, cut := res.Items, res.Truncated
	for res.Status == protocol.StatusYielded {
		cellID := res.Cell
		if res, err = session.Wait(cellCtx, cellID, yield); err != nil && cellCtx.Err() != nil {
			res, err = terminate(ctx, session, cellID, cellCtx.Err())
		}
		if err != nil {
			return runtime.Result{}, err
		}
		items = append(items, res.Items...)
		cut = cut || res.Truncated
	}
	return runtime.Result{CellID: res.Cell, Status: res.Status, Items: items, Error: res.Error, Stats: res.Stats, Truncated: cut}, nil
}

// terminate stops a yielded cell whose time is up (why is the cell
// context's error) and returns its final result, or a
// *bridge.HostUnresponsiveError when the host does not answer within
// runGrace (the deferred Client.Close then kills it).
func terminate(ctx context.Context, session *bridge.Session, cellID string, why error) (*protocol.CellResult, error) {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runGrace)
	defer cancel()
	res, err := session.Terminate(tctx, cellID)
	if err != nil && tctx.Err() != nil {
		return nil, &bridge.HostUnresponsiveError{Request: protocol.TypeTerminate, Grace: runGrace, Err: why}
	}
	return res, err
}
