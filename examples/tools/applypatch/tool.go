package applypatch

import (
	"context"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/registry"
)

// Name is the tool's name.
const Name = "apply_patch"

// Tool returns the apply_patch tool: a freeform tool (its input is the
// patch text, not JSON) that applies patches under root, which should be
// an absolute path to an existing directory. The spec carries Grammar and
// Description. The structured result (what scripts get) is a Result; the
// model reads Result.Summary. A patch that does not parse, or does not
// apply, fails the call with the *SyntaxError or *ApplyError text, and
// changes nothing.
//
// From a script: await tools.apply_patch("*** Begin Patch\n...").
func Tool(root string) registry.Tool {
	spec := registry.Spec{
		Name:        registry.Plain(Name),
		Description: Description,
		Kind:        protocol.KindFreeform,
		Grammar:     Grammar,
		Search:      registry.SearchInfo{Keywords: []string{"edit", "file", "diff", "patch", "write", "create", "delete", "rename"}},
	}
	return registry.NewFunc(spec, func(_ context.Context, inv registry.Invocation) (registry.Output, error) {
		text, err := inv.Text()
		if err != nil {
			return registry.Output{}, err
		}
		res, err := ApplyText(root, text)
		if err != nil {
			return registry.Output{}, err
		}
		out, err := registry.JSONOutput(res)
		if err != nil {
			return registry.Output{}, err
		}
		out.Text = res.Summary()
		return out, nil
	})
}
