package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/doctor"
)

// newDoctorCmd checks every configured agent: key, endpoint, model,
// lifecycle and, with --live, one tiny call. It exits 1 on a problem.
func newDoctorCmd(g *globalFlags) *cobra.Command {
	var live bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check every agent's key, endpoint, model and its shutdown date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			loaded, err := loadConfiguration(cmd, g) // validated as it loads
			if err != nil {
				return err
			}
			now := time.Now()
			if g.Demo {
				fmt.Fprintln(cmd.OutOrStdout(), "--demo: every agent answers with the offline demo agents; no key, network or cost")
			}
			rows := doctor.Run(cmd.Context(), loaded.Config, doctor.Options{Live: live, Getenv: os.Getenv, Now: now, Demo: g.Demo})
			ok := doctor.Print(cmd.OutOrStdout(), rows)
			if g.Demo { // demo answers cost nothing: there is no worst case
				return nil
			}
			if err := doctor.PrintWorstCases(cmd.OutOrStdout(), loaded.Config, now); err != nil {
				return err
			}
			if !ok {
				return errors.New("doctor found problems")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&live, "live", false, "also make one tiny call per agent (costs a few tokens)")
	return cmd
}
