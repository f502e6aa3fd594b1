package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
)

func newTalkCmd(g *globalFlags) *cobra.Command {
	var (
		topic     string
		rounds    int
		a, b, mc  string
		changedRs bool
	)
	cmd := &cobra.Command{
		Use:   `talk --topic "..." [--rounds N]`,
		Short: "A moderated talk: two guests and an MC",
		Long: `Run a moderated talk, headless. The MC opens and introduces the topic; then
each round guest A speaks, guest B answers and the MC sums the round up; the
MC closes. Guests and MC come from modes.talk in the configuration and can
be swapped with --a, --b and --mc (agent names). Every turn is saved.

Ctrl+C cancels the turn in flight and ends the talk (what arrived is kept);
in the console, /stop ends a talk gracefully with the MC's closing. Exit
code 1 if any turn failed.`,
		Example: `  parley talk --topic "Is remote work here to stay?" --rounds 2
  parley talk --topic "tabs or spaces" --a claude --b gemini --mc chatgpt
  parley talk --json --topic "nuclear power" | jq -r 'select(.is_moderator) | .text'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			changedRs = cmd.Flags().Changed("rounds")
			if changedRs && (rounds < 1 || rounds > debate.MaxRounds) {
				return usageErr(fmt.Errorf("--rounds must be 1 to %d", debate.MaxRounds))
			}
			topic = strings.TrimSpace(topic)
			if topic == "-" {
				data, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				topic = strings.TrimSpace(string(data))
			}
			if topic == "" {
				return usageErr(fmt.Errorf(`--topic is required, e.g. --topic "Is remote work here to stay?" (- reads it from stdin)`))
			}
			app, err := newApp(cmd, g, debate.ModeTalk, func(cfg *debate.Config) error {
				for _, set := range []struct {
					flag string
					val  string
					dst  *string
				}{{"a", a, &cfg.Modes.Talk.A}, {"b", b, &cfg.Modes.Talk.B}, {"mc", mc, &cfg.Modes.Talk.Moderator}} {
					if set.val == "" {
						continue
					}
					if _, ok := cfg.Agent(set.val); !ok {
						return fmt.Errorf("--%s: unknown agent %q (known: %s)", set.flag, set.val, strings.Join(cfg.AgentNames(), ", "))
					}
					*set.dst = set.val
				}
				if changedRs {
					cfg.Modes.Talk.Rounds = rounds
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
			return app.Run(cmd.Context(), app.Printer(headless.Talk), topic)
		},
	}
	f := cmd.Flags()
	f.StringVar(&topic, "topic", "", "what the talk is about (- reads it from stdin)")
	f.IntVar(&rounds, "rounds", 0, "rounds of A, B and the MC's summary (default: modes.talk.rounds)")
	// -a and -b too: cobra completes a one-letter flag's value (agent
	// names, completion.go) only when the letter is also its shorthand.
	f.StringVarP(&a, "a", "a", "", "agent name of guest A (default: modes.talk.a)")
	f.StringVarP(&b, "b", "b", "", "agent name of guest B (default: modes.talk.b)")
	f.StringVar(&mc, "mc", "", "agent name of the MC (default: modes.talk.moderator)")
	addSessionFlag(cmd, g)
	addCostFlag(cmd, g)
	return cmd
}
