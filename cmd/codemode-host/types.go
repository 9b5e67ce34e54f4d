package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/protocol"
	"github.com/codemode-host/codemode-host/tsdecl"
)

func newTypesCmd() *cobra.Command {
	var tools string
	var ts, description, globals bool
	cmd := &cobra.Command{
		Use:   "types --tools FILE [--ts|--description] | types --globals [--tools FILE]",
		Short: "Print what the model sees for a tool file: TypeScript declarations or the exec description",
		Long: `Print the TypeScript declarations of the tools in FILE that scripts can
call (--ts, the default), or the full description of the model-facing exec
tool (--description), exactly as the model would see them. --globals
prints globals.d.ts, the declarations of every global a script sees, and
with --tools the tools' interface that augments it: the file to
type-check a cell with tsc (README, "Type-checking a cell").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if globals && (ts || description) {
				return usageError{errors.New("give --globals or --ts or --description, not two")}
			}
			if globals && tools == "" {
				fmt.Fprint(cmd.OutOrStdout(), tsdecl.Globals)
				return nil
			}
			if tools == "" {
				return usageError{errors.New("types needs --tools FILE")}
			}
			if ts && description {
				return usageError{errors.New("give --ts or --description, not both")}
			}
			// The tools run would bind, by the same rule (registry's
			// Code Mode set, then the host's binding).
			rt, err := loadRunTools(cmd.Context(), cmd.ErrOrStderr(), tools, nil)
			if err != nil {
				return err
			}
			defer rt.Close()
			out := cmd.OutOrStdout()
			if description {
				fmt.Fprintln(out, strings.TrimRight(tsdecl.ExecDescription(rt.defs), "\n"))
				return nil
			}
			rt.warnUnbound()
			bound := protocol.Bind(rt.defs).Defs()
			if globals {
				fmt.Fprint(out, tsdecl.Globals+"\n"+tsdecl.ToolsInterface(bound))
				return nil
			}
			fmt.Fprintln(out, strings.TrimRight(tsdecl.Declarations(bound), "\n"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tools, "tools", "", "fixture file of tools (JSON: {\"tools\": [...]})")
	f.BoolVar(&ts, "ts", false, "print the TypeScript declarations (the default)")
	f.BoolVar(&description, "description", false, "print the full exec tool description")
	f.BoolVar(&globals, "globals", false, "print globals.d.ts: every global a script sees")
	return cmd
}
