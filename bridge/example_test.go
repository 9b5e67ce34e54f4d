package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/codemode-host/codemode-host/bridge"
	"github.com/codemode-host/codemode-host/protocol"
)

// A parent launches the host, opens a session and runs a cell whose tool
// calls it answers itself.
func ExampleStart() {
	ctx := context.Background()
	client, err := bridge.Start(ctx, bridge.Config{
		HostPath: "bin/codemode-host",
		Executor: bridge.ToolExecutorFunc(func(ctx context.Context, call protocol.ToolCall) (json.RawMessage, error) {
			return call.Input, nil // a real parent dispatches into its registry
		}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close(time.Second)
	session, err := client.OpenSession(ctx, "s1", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := session.Exec(ctx, bridge.ExecRequest{
		Source: `return (await tools.echo({x: 1})).x`,
		Tools:  []protocol.ToolDef{{Name: "echo"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, res.Items[0].Text)
}
