package main

import (
	"context"
	"fmt"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
)

// MCPOptions are parley mcp's (the shared flags, --max-cost among them,
// are in F.Flags).
type MCPOptions struct {
	F   *factory.Factory
	Ctx context.Context
}

// NewCmdMCP is parley mcp; runF, when given, replaces its run (mcpRun).
func NewCmdMCP(f *factory.Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{F: f}
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
			opts.Ctx = cmd.Context()
			return runCmd(runF, mcpRun, opts)
		},
	}
	wiring.AddCostFlag(cmd, f.Flags)
	return cmd
}

func mcpRun(o *MCPOptions) error {
	sv, err := o.F.Served(o.Ctx)
	if err != nil {
		return err
	}
	defer sv.Close()
	if sv.NoKeys && !o.F.Flags.Demo {
		fmt.Fprintln(o.F.IO.ErrOut, "parley: "+cli.KeyHelp+"; serving the demo agents")
	}
	ctx, stop := signal.NotifyContext(o.Ctx, wiring.StopSignals...)
	defer stop()
	return sv.MCP.RunStdio(ctx, o.F.IO.In, o.F.IO.Out)
}
