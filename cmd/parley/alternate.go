package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate"
)

func init() {
	subcommands = append(subcommands, newAlternateCmd)
}

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
			if steps < 0 {
				return usageErr(fmt.Errorf("--steps must not be negative"))
			}
			instruction := ""
			if len(args) > 0 {
				var err error
				if instruction, err = readQuestion(args, cmd.InOrStdin()); err != nil {
					return err
				}
			}
			a, err := newApp(cmd, g, "alternate")
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.requireKeys(); err != nil {
				return err
			}
			if a.engine.Current().Name() != "alternate" { // a resumed session in another mode
				if err := a.engine.SetMode("alternate"); err != nil {
					return err
				}
			}
			m, err := a.engine.Mode("alternate")
			if err != nil {
				return err
			}
			alt := m.(*debate.Alternate)
			if instruction == "" && !alt.Started() {
				return usageErr(fmt.Errorf("an instruction is required to start (use - to read it from stdin)"))
			}
			if !g.json {
				p := a.printer(false)
				p.quiet = true // turns are printed below; the printer reports retries
				a.engine.Subscribe(p.Sink)
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()

			inputs := []string{instruction}
			if instruction == "" { // a resumed alternation: N steps only
				inputs = nil
			}
			for range steps {
				inputs = append(inputs, "")
			}
			for _, in := range inputs {
				err := a.run(ctx, alt, in)
				if turn, ok := alt.LastTurn(); ok {
					if perr := printAlternateTurn(a.stdout, turn, g.json); perr != nil {
						return perr
					}
				}
				if err != nil {
					if errors.Is(err, debate.ErrNoInstruction) {
						return usageErr(err)
					}
					printAlternateTokens(a.stderr, alt, g.json)
					return err
				}
			}
			printAlternateTokens(a.stderr, alt, g.json)
			return nil
		},
	}
	cmd.Flags().IntVar(&steps, "steps", 0, "steps after the start turn, one agent each")
	addSessionFlag(cmd, g)
	return cmd
}

// printAlternateTurn prints one turn: the seed's JSON line, or who spoke
// with the tokens of each answer.
func printAlternateTurn(w io.Writer, turn debate.AlternateTurn, asJSON bool) error {
	if asJSON {
		line, err := turn.JSONLine()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", line)
		return err
	}
	label := "start"
	if turn.Step > 0 {
		label = fmt.Sprintf("step %d", turn.Step)
	}
	for _, en := range turn.Entries {
		head := fmt.Sprintf("[%s] (%s, %s tok)", en.Display, label, thousands(en.Usage.Total()))
		if en.Status == debate.StatusError {
			fmt.Fprintf(w, "%s: %s\n", head, turnBody(en))
			continue
		}
		fmt.Fprintf(w, "%s: %s\n\n", head, turnBody(en))
	}
	return nil
}

// printAlternateTokens reports the saving on stderr (stdout stays the answers).
func printAlternateTokens(w io.Writer, alt *debate.Alternate, asJSON bool) {
	tok := alt.Tokens()
	if asJSON || tok.Both == 0 {
		return
	}
	fmt.Fprintf(w, "tokens: %s used vs %s if both answered every step (ratio %.2f); next: %s\n",
		thousands(tok.Used), thousands(tok.Both), tok.Ratio(), alt.Next().Label())
}
