package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/runtime"
)

func Example() {
	rt := runtime.New(runtime.Config{})
	defer rt.Close()
	res, err := rt.Run(context.Background(), runtime.CellRequest{
		Source: `const r = await tools.echo({x: 1}); text("got " + r.x); return r`,
		Tools:  []protocol.ToolDef{{Name: "echo"}},
		Caller: runtime.ToolCallerFunc(func(ctx context.Context, c protocol.ToolCall) (json.RawMessage, error) {
			return c.Input, nil
		}),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status)
	for _, it := range res.Items {
		fmt.Println(it.Text)
	}
	// Output:
	// completed
	// got 1
	// {"x":1}
}
