package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes/alternate"
)

// AlternateOptions are parley alternate's flags and arguments (the shared
// flags are in F.Flags).
type AlternateOptions struct {
	F     *factory.Factory
	Ctx   context.Context
	Args  []string // the instruction's words, or "-" for stdin
	Steps int      // --steps
}

// NewCmdAlternate is parley alternate; runF, when given, replaces its run
// (alternateRun).
func NewCmdAlternate(f *factory.Factory, runF func(*AlternateOptions) error) *cobra.Command {
	opts := &AlternateOptions{F: f}
	cmd := &cobra.Command{
		Use:   `alternate "instruction" [--steps N]`,
		Short: "Two agents take turns: one answer per step instead of two",
		Long: `Start an alternation: the first agent of modes.alternate (default codex)
answers the instruction, then the second (default claude) answers seeing the
first's answer. Each of the --steps N steps after that asks only the next
responder, who sees the other's latest answer and the whole history.
Tokens per turn are shown, and the saving against both agents answering every
step. With --session ID the saved alternation goes on with the agent whose
turn it is; the instruction is then optional. Use - to read it from stdin.`,
		Example: `  parley alternate "write a Go LRU cache" --steps 3
  parley alternate --json "refactor this function" --steps 2 | jq -r .turn.responder
  parley alternate --session 3f2a --steps 1 "now add tests"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Args = cmd.Context(), args
			return runCmd(runF, alternateRun, opts)
		},
	}
	cmd.Flags().IntVar(&opts.Steps, "steps", 0, "steps after the start turn, one agent each")
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	wiring.AddCheckpointFlag(cmd, f.Flags)
	return cmd
}

func alternateRun(o *AlternateOptions) error {
	g, steps := o.F.Flags, o.Steps
	if steps < 0 || steps > config.MaxSteps {
		return cli.Usage(fmt.Errorf("--steps must be 0 to %d", config.MaxSteps))
	}
	instruction := ""
	if len(o.Args) > 0 {
		var err error
		if instruction, err = cli.ReadQuestion(o.Args, o.F.IO.In); err != nil {
			return err
		}
	}
	if instruction == "" && steps == 0 && g.Session == "" {
		return cli.Usage(fmt.Errorf("an instruction is required to start (use - to read it from stdin)"))
	}
	a, err := o.F.App(debate.ModeAlternate)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RequireKeys(); err != nil {
		return err
	}
	if err := a.EnterMode(debate.ModeAlternate); err != nil {
		return err
	}
	_, waiting := a.Engine.Pending()
	if instruction == "" && steps == 0 && !waiting {
		return cli.Usage(fmt.Errorf("nothing to do: give an instruction for the next step, or --steps N to run N steps of session %s", g.Session))
	}
	inputs := []string{instruction}
	if instruction == "" && !waiting { // a resumed alternation: N steps only
		inputs = nil // (a run waiting at a checkpoint goes on from it first: the empty input)
	}
	for range steps {
		inputs = append(inputs, "")
	}
	err = a.Run(o.Ctx, a.Printer(headless.Alternate), inputs...)
	if errors.Is(err, alternate.ErrNoInstruction) {
		return cli.Usage(fmt.Errorf("an instruction is required to start (use - to read it from stdin)"))
	}
	return err
}
