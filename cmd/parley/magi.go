package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/verdict"
)

func newMagiCmd(g *globalFlags) *cobra.Command {
	var (
		verbose, single               bool
		model, preset, answerType     string
		earlyStop, anonymous, shuffle bool
		adaptive, guard               bool
	)
	cmd := &cobra.Command{
		Use:   `magi "question" [-v] [-1] [-m MODEL] [-p default|rotate|rotate2]`,
		Short: "Three-member council: three rounds of structured votes, then a verdict",
		Long: `Put a question to the MAGI council: MELCHIOR (scientist), BALTHASAR
(guardian) and CASPER (maverick). Round 1: each judges alone. Round 2: each
reads the other two's opinions and may revise. Round 3: each reads every
round-2 opinion and casts a final vote. Verdict: APPROVED or REJECTED with two
votes of three, NO CONSENSUS when all three votes are valid without a majority,
INCOMPLETE when an invalid vote leaves no majority.

-m runs all three on one model (gpt-*, o1/o3/o4*, codex* → openai, claude-* →
anthropic, gemini-* → gemini, or provider/model with a configured provider
such as ollama/gpt-oss:20b). -p rotate / rotate2 shift the providers under the
personas by one or two places. Use - to read the question from stdin.`,
		Example: `  parley magi "Should we ship on Friday?"
  parley magi -v -p rotate "Rewrite the billing service in Rust?"
  parley magi -1 -m ollama/gpt-oss:20b "Is this commit message clear?"
  parley magi --json "Adopt a four-day week?" | jq -r .verdict`,
		Args: cobra.ArbitraryArgs, // no question: readQuestion says what is missing (not cobra's "requires at least 1 arg(s)")
		RunE: func(cmd *cobra.Command, args []string) error {
			if model != "" && preset != "" {
				// -m puts one model under every persona, so a rotation has nothing to rotate.
				return usageErr(fmt.Errorf("-m/--model and -p/--preset cannot be used together: -m runs all three members on one model, -p rotates their providers"))
			}
			if preset != "" {
				if _, ok := debate.MagiPresets[preset]; !ok {
					return usageErr(fmt.Errorf("--preset: unknown preset %q (one of default, rotate, rotate2)", preset))
				}
			}
			q, err := readQuestion(args, cmd.InOrStdin())
			if err != nil && len(args) == 0 && g.Session != "" {
				q, err = "", nil // --session alone: go on from the checkpoint the session waits at
			}
			if err != nil {
				return err
			}
			a, err := newApp(cmd, g, debate.ModeMagi, magiAdjust(model, preset), magiOptions(cmd, answerType, earlyStop, anonymous, shuffle, adaptive, guard))
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.RequireKeys(); err != nil {
				return err
			}
			if err := a.EnterMode(debate.ModeMagi); err != nil {
				return err
			}
			rounds := verdict.MagiRounds
			if single {
				rounds = 1
			}
			if err := a.Engine.Control(cmd.Context(), debate.Control{Kind: debate.ControlRounds, N: rounds}); err != nil {
				return err
			}
			p := a.Printer(headless.Magi, func(o *headless.Options) {
				o.Verbose = verbose
				o.Header = headless.MagiHeader(q, a.Engine.Current().Agents())
			})
			if err := a.Run(cmd.Context(), p, q); err != nil {
				return err
			}
			if reason := p.NoDecision(); reason != "" {
				return cli.NoDecisionError{Reason: reason}
			}
			return nil
		},
	}
	addSessionFlag(cmd, g)
	addCostFlag(cmd, g)
	addCheckpointFlag(cmd, g)
	f := cmd.Flags()
	f.BoolVarP(&verbose, "verbose", "v", false, "show each vote's full reasoning")
	f.BoolVarP(&single, "single-round", "1", false, "run round 1 only (independent votes)")
	f.StringVarP(&model, "model", "m", "", "one model for all three members (provider inferred, or provider/model)")
	f.StringVarP(&preset, "preset", "p", "", "provider rotation: default, rotate or rotate2 (default: modes.magi.preset)")
	f.StringVar(&answerType, "answer-type", "", "what the council votes over: approve, option, number or text (default: modes.magi.answer_type)")
	f.BoolVar(&earlyStop, "early-stop", false, "a unanimous round 1 decides: 3 calls instead of 9 (default: modes.magi.early_stop)")
	f.BoolVar(&anonymous, "anonymous", false, "show peers' opinions as Member A/B, without names (default: modes.magi.anonymous)")
	f.BoolVar(&shuffle, "shuffle", false, "show peers' opinions in a different order to each member (default: modes.magi.shuffle)")
	f.BoolVar(&adaptive, "adaptive", false, "stop once more rounds are unlikely to change the verdict: after a unanimous or confident round 1, or a round 2 with no argued change (default: modes.magi.adaptive)")
	f.BoolVar(&guard, "guard", false, "leave vote changes without a new argument out of the verdict (default: modes.magi.guard)")
	return cmd
}

// magiOptions applies --answer-type and the boolean council flags that were
// given over modes.magi.
func magiOptions(cmd *cobra.Command, answerType string, earlyStop, anonymous, shuffle, adaptive, guard bool) func(*debate.Config) error {
	return func(cfg *debate.Config) error {
		if answerType != "" {
			if _, err := verdict.ParseAnswerType(answerType); err != nil {
				return usageErr(fmt.Errorf("--answer-type: %w", err))
			}
			cfg.Modes.Magi.AnswerType = answerType
		}
		set := func(name string, v bool, into *bool) {
			if cmd.Flags().Changed(name) {
				*into = v
			}
		}
		set("early-stop", earlyStop, &cfg.Modes.Magi.EarlyStop)
		set("anonymous", anonymous, &cfg.Modes.Magi.Anonymous)
		set("shuffle", shuffle, &cfg.Modes.Magi.Shuffle)
		set("adaptive", adaptive, &cfg.Modes.Magi.Adaptive)
		set("guard", guard, &cfg.Modes.Magi.Guard)
		return nil
	}
}

// magiAdjust applies a MAGI preset and -m MODEL to the configuration
// before the agents are built.
func magiAdjust(model, preset string) func(*debate.Config) error {
	return func(cfg *debate.Config) error {
		err := cfg.ApplyMagi(preset, "--preset", model)
		var me *debate.ModelError
		if errors.As(err, &me) {
			return usageErr(err)
		}
		return err
	}
}
