package main

import (
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
)

// The flags every command shares and one run of Parley (configuration,
// engine, store) live in package wiring; these names keep the commands short.
type (
	globalFlags = wiring.Flags
	app         = wiring.App
)

var (
	newApp            = wiring.New
	dbPath            = wiring.DBPath
	dbPlace           = wiring.DBPlace
	openDB            = wiring.OpenDB
	requestedSession  = wiring.RequestedSession
	sessionRefErr     = wiring.SessionRefErr
	loadConfiguration = wiring.LoadConfiguration
	interrupts        = wiring.Interrupts
	addCostFlag       = wiring.AddCostFlag
	addCheckpointFlag = wiring.AddCheckpointFlag
)

// addSessionFlag gives a headless command --session: continue a saved
// session (a unique ID prefix is enough) in that command's mode.
func addSessionFlag(cmd *cobra.Command, g *globalFlags) {
	cmd.Flags().StringVar(&g.Session, "session", "", "continue the saved session with this ID (a unique prefix is enough)")
	addWaitFlag(cmd, g)
}

// addWaitFlag gives a command that writes to a saved session --wait: queue
// behind another process answering in it instead of being refused.
func addWaitFlag(cmd *cobra.Command, g *globalFlags) {
	cmd.Flags().BoolVar(&g.Wait, "wait", false, "when another process is answering in the session, wait for it to finish instead of refusing")
}
