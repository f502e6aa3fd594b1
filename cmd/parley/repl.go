package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
)

// ReplOptions are parley repl's (the shared flags are in F.Flags).
type ReplOptions struct {
	F   *factory.Factory
	Ctx context.Context
}

// NewCmdRepl is parley repl; runF, when given, replaces its run (replRun).
func NewCmdRepl(f *factory.Factory, runF func(*ReplOptions) error) *cobra.Command {
	opts := &ReplOptions{F: f}
	cmd := &cobra.Command{
		Use:   "repl",
		Short: "Plain line REPL (no full screen)",
		Long: `A line-by-line REPL with the prompt "> ". In mention mode, @name lines ask
agents and plain lines are notes. /mode NAME switches the mode; exit or quit
ends it (so does end of input). Ctrl+C cancels the answer in flight; a
second Ctrl+C within two seconds, or one at the prompt, ends the REPL.
Works with stdin from a pipe.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Ctx = cmd.Context()
			return runCmd(runF, replRun, opts)
		},
	}
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	return cmd
}

func replRun(o *ReplOptions) error {
	a, err := o.F.App("")
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RequireKeys(); err != nil {
		return err
	}
	sigs, stop := wiring.Interrupts()
	defer stop()
	return headless.REPL(o.Ctx, a.Engine, a.Printer(headless.Conversation), headless.REPLOptions{
		In: a.Stdin, Interactive: o.F.IO.InTTY, Interrupts: sigs})
}
