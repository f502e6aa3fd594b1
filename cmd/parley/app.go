package main

import (
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
)

// runCmd runs a command: runF when a test replaced the run (it then sees
// the options the command line filled, and nothing runs), else def.
func runCmd[O any](runF func(*O) error, def func(*O) error, opts *O) error {
	if runF != nil {
		return runF(opts)
	}
	return def(opts)
}

// addSessionFlag gives a headless command --session: continue a saved
// session (a unique ID prefix is enough) in that command's mode.
func addSessionFlag(cmd *cobra.Command, g *wiring.Flags) {
	cmd.Flags().StringVar(&g.Session, "session", "", "continue the saved session with this ID (a unique prefix is enough)")
	addWaitFlag(cmd, g)
}

// addWaitFlag gives a command that writes to a saved session --wait: queue
// behind another process answering in it instead of being refused.
func addWaitFlag(cmd *cobra.Command, g *wiring.Flags) {
	cmd.Flags().BoolVar(&g.Wait, "wait", false, "when another process is answering in the session, wait for it to finish instead of refusing")
}
