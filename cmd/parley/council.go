package main

import (
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
)

func newCouncilCmd(g *globalFlags) *cobra.Command {
	var (
		members  []string
		chairman string
	)
	cmd := &cobra.Command{
		Use:   `council "question" [--members a,b,c] [--chairman x]`,
		Short: "Members answer, rank each other's answers anonymously, and a chairman writes the final answer",
		Long: `Put a question to the council. Stage 1: every member answers at once.
Stage 2: every member ranks the others' answers, shown as "Response A, B, …"
in its own shuffled order with names, models and providers hidden (its own
answer is never shown to it). The rankings are aggregated by Borda count and
mean rank. Stage 3: the chairman reads the answers with their authors and the
ranking, and writes the final answer.

Members come from modes.council.members (two or more), the chairman from
modes.council.chairman (default: the strongest configured model by output
price). Exit code 0 only when the chairman's answer is complete; when it
fails, the top-ranked answer is printed as the marked fallback and the exit
code is 1. Use - to read the question from stdin.`,
		Example: `  parley council "What is the best way to learn Go?"
  parley council --members gemini,chatgpt,claude,codex --chairman claude "Monorepo or polyrepo?"
  parley council --json "Explain CRDTs" | jq -r .chairman.text`,
		Args: cobra.ArbitraryArgs, // no question: readQuestion says what is missing (not cobra's "requires at least 1 arg(s)")
		RunE: func(cmd *cobra.Command, args []string) error {
			q, err := readQuestion(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			a, err := newApp(cmd, g, debate.ModeCouncil, cli.CouncilSeats(members, chairman, "--members", "--chairman"), magiAdjust("", ""))
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.RequireKeys(); err != nil {
				return err
			}
			if err := a.EnterMode(debate.ModeCouncil); err != nil {
				return err
			}
			p := a.Printer(headless.Council, func(o *headless.Options) {
				o.Header = headless.CouncilHeader(q, a.Engine.Current().Agents())
			})
			return a.Run(cmd.Context(), p, q)
		},
	}
	addSessionFlag(cmd, g)
	addCostFlag(cmd, g)
	f := cmd.Flags()
	f.StringSliceVar(&members, "members", nil, "agent names of the members, comma-separated, two or more (default: modes.council.members)")
	f.StringVar(&chairman, "chairman", "", "agent name whose model writes the final answer (default: modes.council.chairman)")
	return cmd
}
