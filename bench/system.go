package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode-host/codemode-host/protocol"
)

// System runs cells with an echo tool bound as tools.echo. Implementations
// are used from one goroutine at a time.
type System interface {
	// Name labels the system in the report.
	Name() string
	// Run runs source as one cell to the end and returns its return value
	// as JSON text. A cell that does not complete is an error.
	Run(ctx context.Context, source string) (string, error)
	// Close releases everything the system started.
	Close() error
}

// Scenario is one measured script. Ours and the peer's differ only in how
// a tool is named (tools.echo here, bench.echo in the peer).
type Scenario struct {
	// Key names the scenario in the peer's JSON and in the results file.
	Key string
	// Title is the table's label.
	Title string
	// Source is our cell.
	Source string
	// Want is the cell's return value as JSON text.
	Want string
	// Target is the largest passing ratio ours/peer (DESIGN §7).
	Target float64
}

// Scenarios are the four scenarios of DESIGN §7, in table order. Keep the
// scripts in step with SCENARIOS in peer/peer.mjs.
var Scenarios = []Scenario{
	{Key: "trivial", Title: "trivial cell", Source: "return 1", Want: "1", Target: 0.3},
	{Key: "seq100", Title: "100 sequential echo calls", Source: `
let n = 0;
for (let i = 0; i < 100; i++) { const r = await tools.echo({ i }); n += r.i; }
return n;`, Want: "4950", Target: 0.6},
	{Key: "all1000", Title: "Promise.all of 1,000 echo calls", Source: `
const ps = [];
for (let i = 0; i < 1000; i++) ps.push(tools.echo({ i }));
const rs = await Promise.all(ps);
return rs.length;`, Want: "1000", Target: 0.5},
	{Key: "fib27", Title: "fib(27)", Source: `
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
return fib(27);`, Want: "196418", Target: 1.2},
}

// echoTool is the one tool every system binds.
var echoTool = protocol.ToolDef{Name: "echo", Description: "Returns its input."}

// echo answers a tool call with its input.
func echo(call protocol.ToolCall) (json.RawMessage, error) {
	if call.Name != echoTool.Name || !protocol.IsDefaultNamespace(call.Namespace) {
		return nil, &protocol.ToolError{Code: protocol.CodeUnknownTool, Message: "bench: only echo is served", Tool: call.QualifiedName()}
	}
	return call.Input, nil
}

// runTimeout bounds one run of a scenario, so a lost reply fails the run
// instead of hanging it.
const runTimeout = time.Minute

// checkRun runs sc once on sys and compares its return value with sc.Want.
func checkRun(ctx context.Context, sys System, sc Scenario) error {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	got, err := sys.Run(ctx, sc.Source)
	if err != nil {
		return fmt.Errorf("%s, %s: %w", sys.Name(), sc.Key, err)
	}
	if strings.TrimSpace(got) != sc.Want {
		return fmt.Errorf("%s, %s: returned %q, want %s", sys.Name(), sc.Key, got, sc.Want)
	}
	return nil
}
