package main

import (
	"fmt"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
)

func newMCPCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp [--max-cost USD]",
		Short: "MCP server over stdio: ask, magi, council, debate_start/step, sessions",
		Long: `Serve Parley to an MCP client (Claude Code, Cursor, crush, …) over
stdin/stdout. Tools: ask, magi, council, debate_start, debate_step,
sessions_list, session_get; every saved session is the resource
parley://sessions/ID (Markdown). Every tool call runs under a cost cap: the
call's max_cost, else --max-cost (else budget_usd, else $1.00), which is
also the ceiling. The same server
answers at /mcp under parley serve.`,
		Example: `  claude mcp add parley -- parley mcp
  parley --demo mcp            # offline demo agents`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sv, err := wiring.NewServed(cmd, g)
			if err != nil {
				return err
			}
			defer sv.Close()
			if sv.NoKeys && !g.Demo {
				fmt.Fprintln(cmd.ErrOrStderr(), "parley: "+cli.KeyHelp+"; serving the demo agents")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), wiring.StopSignals...)
			defer stop()
			return sv.MCP.RunStdio(ctx)
		},
	}
	addCostFlag(cmd, g)
	return cmd
}
