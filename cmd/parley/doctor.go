package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/doctor"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
)

// DoctorOptions are parley doctor's flags (the shared flags are in F.Flags).
type DoctorOptions struct {
	F    *factory.Factory
	Ctx  context.Context
	Live bool // --live
}

// NewCmdDoctor is parley doctor: it checks every configured agent (key,
// endpoint, model, lifecycle and, with --live, one tiny call) and exits 1
// on a problem; runF, when given, replaces its run (doctorRun).
func NewCmdDoctor(f *factory.Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{F: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check every agent's key, endpoint, model and its shutdown date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			return runCmd(runF, doctorRun, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Live, "live", false, "also make one tiny call per agent (costs a few tokens)")
	return cmd
}

func doctorRun(o *DoctorOptions) error {
	g, out := o.F.Flags, o.F.IO.Out
	loaded, err := o.F.Config() // validated as it loads
	if err != nil {
		return err
	}
	now := o.F.Now()
	if g.Demo {
		fmt.Fprintln(out, "--demo: every agent answers with the offline demo agents; no key, network or cost")
	}
	rows := doctor.Run(o.Ctx, loaded.Config, doctor.Options{Live: o.Live, Getenv: o.F.Getenv, Now: now, Demo: g.Demo})
	ok := doctor.Print(out, rows)
	if g.Demo { // demo answers cost nothing: there is no worst case
		return nil
	}
	if err := doctor.PrintWorstCases(out, loaded.Config, now); err != nil {
		return err
	}
	if !ok {
		return errors.New("doctor found problems")
	}
	return nil
}
