package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/modes/mention"
)

// firstLine is s up to its first line break, for a hint that quotes it.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// AskOptions are parley ask's arguments (the shared flags are in F.Flags).
type AskOptions struct {
	F    *factory.Factory
	Ctx  context.Context
	Args []string // the question's words, or "-" for stdin
}

// NewCmdAsk is parley ask; runF, when given, replaces its run (askRun).
func NewCmdAsk(f *factory.Factory, runF func(*AskOptions) error) *cobra.Command {
	opts := &AskOptions{F: f}
	cmd := &cobra.Command{
		Use:   `ask "@agent question"`,
		Short: "One mention-routed exchange, headless",
		Long: `Ask one or more agents once and print their answers as "[Name]: text",
in configuration order; the first answer streams as it arrives. Address
agents with @name, several @names or @all; a line that names nobody is
refused (exit 2) with the names to use, and nothing is saved. Use - to read
the line from stdin. --json prints one document when the exchange is over
(the session, the question, every turn, usage and cost); --jsonl every
event as it happens. With --checkpoint each_round, a call to a tool whose
tools.policy rule is ask waits for one line on stdin (empty or approve:
run it; deny REASON); killed there, --session ID alone goes on from it.`,
		Example: `  parley ask "@all what is a monad?"
  parley ask "@claude @gemini compare Rust and Go for CLIs"
  echo "@chatgpt summarise this" | parley ask -
  parley ask --jsonl "@all hi" | jq -c 'select(.type=="turn_finished")'`,
		Args: cobra.ArbitraryArgs, // no question: cli.ReadQuestion says what is missing (not cobra's "requires at least 1 arg(s)")
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Args = cmd.Context(), args
			return runCmd(runF, askRun, opts)
		},
	}
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	wiring.AddCheckpointFlag(cmd, f.Flags) // mention has no rounds: it asks before a tool call under ask
	return cmd
}

func askRun(o *AskOptions) error {
	line, err := cli.QuestionOrResume(o.Args, o.F.IO.In, o.F.Flags.Session)
	if err != nil {
		return err
	}
	a, err := o.F.App(debate.ModeMention)
	if err != nil {
		return err
	}
	defer a.Close()
	if _, waiting := a.Engine.Pending(); line == "" && !waiting {
		return cli.Usage(fmt.Errorf("ask: session %s waits at no checkpoint: give a question, e.g. parley ask --session %s %q", o.F.Flags.Session, o.F.Flags.Session, "@all …"))
	}
	if ms, err := mention.ParseMentions(line, a.Cfg.AgentNames()); line != "" && err == nil && !ms.Addressed() {
		return cli.Usage(fmt.Errorf("ask: the line names no agent, so nobody would answer: start it with @all or @name (%s), e.g. parley ask %q",
			strings.Join(a.Cfg.AgentNames(), ", "), "@all "+firstLine(line)))
	}
	if err := a.RequireKeys(); err != nil {
		return err
	}
	if err := a.EnterMode(debate.ModeMention); err != nil {
		return err
	}
	return a.Run(o.Ctx, a.Printer(headless.Conversation), line)
}
