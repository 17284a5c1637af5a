package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/phalanx-dev/phalanx/pkg/version"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version (the same as --version)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "phalanx "+version.Get().String())
			return nil
		},
	}
}
