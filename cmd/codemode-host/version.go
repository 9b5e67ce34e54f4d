package main

import (
	"fmt"

	"github.com/spf13/cobra"
	v8 "rogchap.com/v8go"
)

// Version is the host's version, set at build time with
// -ldflags "-X main.Version=...".
var Version = "dev"

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the host and V8 versions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "codemode-host %s (V8 %s)\n", Version, v8.Version())
			return nil
		},
	}
}
