package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/modes/alternate"
)

func newAlternateCmd(g *globalFlags) *cobra.Command {
	var steps int
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
			if steps < 0 || steps > debate.MaxSteps {
				return usageErr(fmt.Errorf("--steps must be 0 to %d", debate.MaxSteps))
			}
			instruction := ""
			if len(args) > 0 {
				var err error
				if instruction, err = readQuestion(args, cmd.InOrStdin()); err != nil {
					return err
				}
			}
			if instruction == "" && steps == 0 {
				if g.Session == "" {
					return usageErr(fmt.Errorf("an instruction is required to start (use - to read it from stdin)"))
				}
				return usageErr(fmt.Errorf("nothing to do: give an instruction for the next step, or --steps N to run N steps of session %s", g.Session))
			}
			a, err := newApp(cmd, g, debate.ModeAlternate)
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
			inputs := []string{instruction}
			if instruction == "" { // a resumed alternation: N steps only
				inputs = nil
			}
			for range steps {
				inputs = append(inputs, "")
			}
			err = a.Run(cmd.Context(), a.Printer(headless.Alternate), inputs...)
			if errors.Is(err, alternate.ErrNoInstruction) {
				return usageErr(fmt.Errorf("an instruction is required to start (use - to read it from stdin)"))
			}
			return err
		},
	}
	cmd.Flags().IntVar(&steps, "steps", 0, "steps after the start turn, one agent each")
	addSessionFlag(cmd, g)
	addCostFlag(cmd, g)
	return cmd
}
