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

// runAsParent runs one cell the way a parent agent does: this binary is
// launched again as the host through go-plugin, the bridge serves the
// tool calls from executor, and the final result comes back as if the
// cell had run in process. ctx ending terminates the cell.
func runAsParent(ctx context.Context, stderr io.Writer, c cell, tools []protocol.ToolDef,
	executor bridge.ToolExecutor, timeout time.Duration) (runtime.Result, error) {
	self, err := os.Executable()
	if err != nil {
		return runtime.Result{}, fmt.Errorf("cannot find this executable to launch it as the host: %w", err)
	}
	ms := uint64(timeout.Milliseconds())
	client, err := bridge.Start(ctx, bridge.Config{
		HostPath:     self,
		HostLimits:   &protocol.Limits{WallTimeMS: ms, CPUTimeMS: ms},
		Executor:     executor,
		Capabilities: []string{protocol.CapTypeScript},
		Logger:       warnLogger("codemode-host", stderr),
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
	res, err := session.Exec(ctx, bridge.ExecRequest{Source: c.source, Filename: c.origin, Language: c.lang,
		Tools: tools, Yield: yield, OnEvent: func(e bridge.Event) {
			if e.Kind == bridge.EventNotify {
				fmt.Fprintf(stderr, "[notify] %s\n", e.Text)
			}
		}})
	if err != nil {
		return runtime.Result{}, err
	}
	items := res.Items
	for res.Status == protocol.StatusYielded {
		if res, err = session.Wait(context.WithoutCancel(ctx), res.Cell, yield); err != nil {
			return runtime.Result{}, err
		}
		items = append(items, res.Items...)
	}
	return runtime.Result{CellID: res.Cell, Status: res.Status, Items: items, Error: res.Error, Stats: res.Stats}, nil
}
