// Command tokens reports what the model reads about its tools in one step,
// per tool mode, for a fixed catalogue of real MCP servers' tools: the
// bytes of the tool list as a Responses API request sends it (exec and
// wait included), and an estimate of its tokens (bytes / 4). It shows the
// catalogue inline (every tool Direct), deferred (every tool Deferred,
// found through search) and deferred after one tool_search has loaded the
// tools it found into the session's next step.
//
//	go run ./bench/tokens [-catalogue FILE] [-exec freeform|function] [-json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/codemode-host/codemode-host/registry"
)

// defaultCatalogue is the committed catalogue: the tools the filesystem,
// memory and everything reference servers list.
const defaultCatalogue = "tsdecl/testdata/mcp/catalogue-37.json"

func main() {
	path := flag.String("catalogue", defaultCatalogue, "the catalogue: the servers' tools/list results, as registry/mcp's TestCatalogue writes them")
	shape := flag.String("exec", "freeform", "the shape of exec: freeform or function")
	asJSON := flag.Bool("json", false, "print the rows as JSON")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *path, *shape, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "tokens:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, path, shapeName string, asJSON bool) error {
	shape, err := registry.ParseExecShape(shapeName)
	if err != nil {
		return err
	}
	cat, err := readCatalogue(path)
	if err != nil {
		return err
	}
	rows, err := measure(ctx, cat, shape)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	fmt.Fprintf(out, "%d tools of %s, exec %s; tokens = bytes/4\n\n", cat.size(), strings.Join(cat.names(), ", "), shape)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "mode\tdeclarations\ttools listed\tbytes\ttokens\texec bytes\twait bytes\t")
	for _, r := range rows {
		def := ""
		if r.Mode == registry.DefaultAgentMode {
			def = " (default)"
		}
		fmt.Fprintf(w, "%s%s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", r.Mode, def, r.Placement, r.Tools, r.ListBytes, r.Tokens, r.ExecBytes, r.WaitBytes)
	}
	return w.Flush()
}
