package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codemode-host/codemode-host/internal/fixture"
	"github.com/codemode-host/codemode-host/internal/tsdecl"
	"github.com/codemode-host/codemode-host/runtime"
)

func newTypesCmd() *cobra.Command {
	var tools string
	var ts, description bool
	cmd := &cobra.Command{
		Use:   "types --tools FILE [--ts|--description]",
		Short: "Print what the model sees for a tool file: TypeScript declarations or the exec description",
		Long: `Print the TypeScript declarations of the tools in FILE that scripts can
call (--ts, the default), or the full description of the model-facing exec
tool (--description), exactly as the model would see them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tools == "" {
				return usageError{errors.New("types needs --tools FILE")}
			}
			if ts && description {
				return usageError{errors.New("give --ts or --description, not both")}
			}
			set, err := fixture.Load(tools)
			if err != nil {
				return usageError{err}
			}
			out := cmd.OutOrStdout()
			if description {
				fmt.Fprintln(out, strings.TrimRight(tsdecl.ExecDescription(set.Defs()), "\n"))
				return nil
			}
			bound, dropped := runtime.Bindable(set.Defs())
			for _, d := range dropped {
				fmt.Fprintf(cmd.ErrOrStderr(), "codemode-host: not bound: %s\n", d)
			}
			fmt.Fprintln(out, strings.TrimRight(tsdecl.Declarations(bound), "\n"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tools, "tools", "", "fixture file of tools (JSON: {\"tools\": [...]})")
	f.BoolVar(&ts, "ts", false, "print the TypeScript declarations (the default)")
	f.BoolVar(&description, "description", false, "print the full exec tool description")
	return cmd
}
