package main

import (
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
)

func newReplCmd(g *globalFlags) *cobra.Command {
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
			a, err := newApp(cmd, g, "")
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.RequireKeys(); err != nil {
				return err
			}
			interactive := false
			if f, ok := a.Stdin.(*os.File); ok {
				interactive = term.IsTerminal(f.Fd())
			}
			sigs, stop := interrupts()
			defer stop()
			return headless.REPL(cmd.Context(), a.Engine, a.Printer(headless.Conversation), headless.REPLOptions{
				In: a.Stdin, Interactive: interactive, Interrupts: sigs})
		},
	}
	addSessionFlag(cmd, g)
	addCostFlag(cmd, g)
	return cmd
}
