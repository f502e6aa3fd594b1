package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
)

// CouncilOptions are parley council's flags and arguments (the shared
// flags are in F.Flags).
type CouncilOptions struct {
	F        *factory.Factory
	Ctx      context.Context
	Args     []string // the question's words, or "-" for stdin
	Members  []string // --members
	Chairman string   // --chairman
}

// NewCmdCouncil is parley council; runF, when given, replaces its run
// (councilRun).
func NewCmdCouncil(f *factory.Factory, runF func(*CouncilOptions) error) *cobra.Command {
	opts := &CouncilOptions{F: f}
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
code is 1. Use - to read the question from stdin.

--checkpoint each_round (or on_split: only when the members disagree) waits
for the host after the answers and after the rankings, reading one line from
stdin each time: empty continues, "stop" ends the council there without the
chairman, "drop NAME" leaves a member out of the rest of the council, anything
else is a note the next stage reads as the host's words. A council that ended
at a checkpoint unanswered goes on with --session ID and no question.`,
		Example: `  parley council "What is the best way to learn Go?"
  parley council --members gemini,chatgpt,claude,codex --chairman claude "Monorepo or polyrepo?"
  parley council --json "Explain CRDTs" | jq -r .chairman.text
  printf 'Assume a team of three.\n\n' | parley council --checkpoint each_round "Monorepo or polyrepo?"`,
		Args: cobra.ArbitraryArgs, // no question: cli.ReadQuestion says what is missing (not cobra's "requires at least 1 arg(s)")
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Args = cmd.Context(), args
			return runCmd(runF, councilRun, opts)
		},
	}
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	wiring.AddCheckpointFlag(cmd, f.Flags)
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Members, "members", nil, "agent names of the members, comma-separated, two or more (default: modes.council.members)")
	fl.StringVar(&opts.Chairman, "chairman", "", "agent name whose model writes the final answer (default: modes.council.chairman)")
	return cmd
}

func councilRun(o *CouncilOptions) error {
	q, err := cli.QuestionOrResume(o.Args, o.F.IO.In, o.F.Flags.Session)
	if err != nil {
		return err
	}
	a, err := o.F.App(debate.ModeCouncil, cli.CouncilSeats(o.Members, o.Chairman, "--members", "--chairman"), magiAdjust("", ""))
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
	p := a.Printer(headless.Council, func(ho *headless.Options) {
		ho.Header = headless.CouncilHeader(q, a.Engine.Current().Agents())
	})
	return a.Run(o.Ctx, p, q)
}
