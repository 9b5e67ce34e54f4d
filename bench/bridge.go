package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
)

// BridgeHost runs cells in a host started by package bridge, the way a Go
// parent does: go-plugin launches the binary, frames travel on the fd 3/4
// pipe pair, and the bridge serves the echo tool (one goroutine per call).
// Safe from any goroutine.
type BridgeHost struct {
	client  *bridge.Client
	session *bridge.Session
}

// StartBridge launches bin through bridge.Start and opens the session Run
// uses.
func StartBridge(ctx context.Context, bin string) (*BridgeHost, error) {
	c, err := bridge.Start(ctx, bridge.Config{HostPath: bin, Executor: echoExecutor, StartTimeout: startTimeout})
	if err != nil {
		return nil, fmt.Errorf("bench: starting %s through the bridge: %w (run `make build` first)", bin, err)
	}
	b := &BridgeHost{client: c}
	if b.session, err = c.OpenSession(ctx, hostSession, nil); err != nil {
		_ = c.Close(0)
		return nil, fmt.Errorf("bench: opening session %s: %w", hostSession, err)
	}
	return b, nil
}

// Name implements System.
func (*BridgeHost) Name() string { return "host via bridge (go-plugin)" }

// Run implements System: it runs source in the bridge.Session StartBridge
// opened.
func (b *BridgeHost) Run(ctx context.Context, source string) (string, error) {
	res, err := execToEnd(ctx, hostSession, source,
		func(ctx context.Context, _ string, req bridge.ExecRequest) (*protocol.CellResult, error) {
			return b.session.Exec(ctx, req)
		},
		func(ctx context.Context, _, cell string, yield time.Duration) (*protocol.CellResult, error) {
			return b.session.Wait(ctx, cell, yield)
		})
	if err != nil {
		return "", err
	}
	return returnValue(res.Status, res.Error, res.Items)
}

// OpenSession implements hostSystem.
func (b *BridgeHost) OpenSession(ctx context.Context, id string) error {
	if _, err := b.client.OpenSession(ctx, id, nil); err != nil {
		return fmt.Errorf("bench: opening session %s: %w", id, err)
	}
	return nil
}

// Exec implements hostSystem, on the client's current connection.
func (b *BridgeHost) Exec(ctx context.Context, session, source string) (*protocol.CellResult, error) {
	conn, err := b.client.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return execToEnd(ctx, session, source, conn.Exec, conn.Wait)
}

// RSS implements hostSystem.
func (b *BridgeHost) RSS() (uint64, error) {
	pid := b.client.Pid()
	if pid == 0 {
		return 0, fmt.Errorf("bench: no host is running")
	}
	return processRSS(pid)
}

// Close implements System.
func (b *BridgeHost) Close() error {
	return b.client.Close(time.Second)
}
