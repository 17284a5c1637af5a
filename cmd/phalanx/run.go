package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newRunCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Schedule pods in a real cluster (not yet available)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("phalanx run is not available yet: use phalanx simulate")
		},
	}
}
