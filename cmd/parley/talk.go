package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
)

// TalkOptions are parley talk's flags (the shared flags are in F.Flags).
type TalkOptions struct {
	F         *factory.Factory
	Ctx       context.Context
	Topic     string   // --topic ("-": stdin)
	Args      []string // the topic's words after talk, as magi and council take their question
	Rounds    int      // --rounds, when RoundsSet
	RoundsSet bool
	A, B, MC  string // --a, --b, --mc
}

// NewCmdTalk is parley talk; runF, when given, replaces its run (talkRun).
func NewCmdTalk(f *factory.Factory, runF func(*TalkOptions) error) *cobra.Command {
	opts := &TalkOptions{F: f}
	cmd := &cobra.Command{
		Use:   `talk [--topic] "..." [--rounds N]`,
		Short: "A moderated talk: two guests and an MC",
		Long: `Run a moderated talk, headless. The MC opens and introduces the topic; then
each round guest A speaks, guest B answers and the MC sums the round up; the
MC closes. Guests and MC come from modes.talk in the configuration and can
be swapped with --a, --b and --mc (agent names). Every turn is saved.

Ctrl+C cancels the turn in flight and ends the talk (what arrived is kept);
in the console, /stop ends a talk gracefully with the MC's closing. Exit
code 1 if any turn failed.`,
		Example: `  parley talk --topic "Is remote work here to stay?" --rounds 2
  parley talk "tabs or spaces" --checkpoint each_round
  parley talk --topic "tabs or spaces" --a claude --b gemini --mc chatgpt
  parley talk --json --topic "nuclear power" | jq -r 'select(.is_moderator) | .text'`,
		// The topic may follow talk as magi's and council's question does
		// (seen: `parley talk "Tabs or spaces?"` met cobra's "unknown command").
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.RoundsSet, opts.Args = cmd.Context(), cmd.Flags().Changed("rounds"), args
			return runCmd(runF, talkRun, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Topic, "topic", "", "what the talk is about (- reads it from stdin)")
	fl.IntVar(&opts.Rounds, "rounds", 0, "rounds of A, B and the MC's summary (default: modes.talk.rounds)")
	// -a and -b too: cobra completes a one-letter flag's value (agent
	// names, completion.go) only when the letter is also its shorthand.
	fl.StringVarP(&opts.A, "a", "a", "", "agent name of guest A (default: modes.talk.a)")
	fl.StringVarP(&opts.B, "b", "b", "", "agent name of guest B (default: modes.talk.b)")
	fl.StringVar(&opts.MC, "mc", "", "agent name of the MC (default: modes.talk.moderator)")
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	wiring.AddCheckpointFlag(cmd, f.Flags)
	return cmd
}

func talkRun(o *TalkOptions) error {
	if o.RoundsSet && (o.Rounds < 1 || o.Rounds > config.MaxRounds) {
		return cli.Usage(fmt.Errorf("--rounds must be 1 to %d", config.MaxRounds))
	}
	topic := strings.TrimSpace(o.Topic)
	if len(o.Args) > 0 {
		if topic != "" {
			return cli.Usage(fmt.Errorf("give the topic once: --topic %q or words after talk, not both", topic))
		}
		topic = strings.TrimSpace(strings.Join(o.Args, " "))
	}
	if topic == "-" {
		data, err := io.ReadAll(o.F.IO.In)
		if err != nil {
			return err
		}
		topic = strings.TrimSpace(string(data))
	}
	// --session alone goes on from the checkpoint the session's talk waits
	// at (a session that waits at none refuses the empty topic there).
	if topic == "" && o.F.Flags.Session == "" {
		return cli.Usage(fmt.Errorf(`a topic is required, e.g. parley talk "Is remote work here to stay?" or --topic "…" (- reads it from stdin)`))
	}
	app, err := o.F.App(debate.ModeTalk, func(cfg *config.Config) error {
		for _, set := range []struct {
			flag string
			val  string
			dst  *string
		}{{"a", o.A, &cfg.Modes.Talk.A}, {"b", o.B, &cfg.Modes.Talk.B}, {"mc", o.MC, &cfg.Modes.Talk.Moderator}} {
			if set.val == "" {
				continue
			}
			if _, ok := cfg.Agent(set.val); !ok {
				return fmt.Errorf("--%s: unknown agent %q (known: %s)", set.flag, set.val, strings.Join(cfg.AgentNames(), ", "))
			}
			*set.dst = set.val
		}
		if o.RoundsSet {
			cfg.Modes.Talk.Rounds = o.Rounds
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer app.Close()
	if err := app.RequireKeys(); err != nil {
		return err
	}
	if err := app.EnterMode(debate.ModeTalk); err != nil {
		return err
	}
	return app.Run(o.Ctx, app.Printer(headless.Talk), topic)
}
