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
	"github.com/parleyhq/parley/debate/verdict"
)

// MagiOptions are parley magi's flags and arguments (the shared flags are
// in F.Flags). The council's switches are nil when not given, so
// modes.magi keeps its value.
type MagiOptions struct {
	F               *factory.Factory
	Ctx             context.Context
	Args            []string // the question's words, or "-" for stdin
	Verbose, Single bool     // -v, -1
	Model, Preset   string   // -m, -p
	AnswerType      string   // --answer-type
	EarlyStop       *bool    // --early-stop
	Anonymous       *bool    // --anonymous
	Shuffle         *bool    // --shuffle
	Adaptive        *bool    // --adaptive
	Guard           *bool    // --guard
}

// NewCmdMagi is parley magi; runF, when given, replaces its run (magiRun).
func NewCmdMagi(f *factory.Factory, runF func(*MagiOptions) error) *cobra.Command {
	opts := &MagiOptions{F: f}
	var switches struct{ earlyStop, anonymous, shuffle, adaptive, guard bool }
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
		Args: cobra.ArbitraryArgs, // no question: cli.ReadQuestion says what is missing (not cobra's "requires at least 1 arg(s)")
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Args = cmd.Context(), args
			given := func(name string, v bool) *bool {
				if !cmd.Flags().Changed(name) {
					return nil
				}
				return &v
			}
			opts.EarlyStop, opts.Anonymous = given("early-stop", switches.earlyStop), given("anonymous", switches.anonymous)
			opts.Shuffle, opts.Adaptive, opts.Guard = given("shuffle", switches.shuffle), given("adaptive", switches.adaptive), given("guard", switches.guard)
			return runCmd(runF, magiRun, opts)
		},
	}
	addSessionFlag(cmd, f.Flags)
	wiring.AddCostFlag(cmd, f.Flags)
	wiring.AddCheckpointFlag(cmd, f.Flags)
	fl := cmd.Flags()
	fl.BoolVarP(&opts.Verbose, "verbose", "v", false, "show each vote's full reasoning")
	fl.BoolVarP(&opts.Single, "single-round", "1", false, "run round 1 only (independent votes)")
	fl.StringVarP(&opts.Model, "model", "m", "", "one model for all three members (provider inferred, or provider/model)")
	fl.StringVarP(&opts.Preset, "preset", "p", "", "provider rotation: default, rotate or rotate2 (default: modes.magi.preset)")
	fl.StringVar(&opts.AnswerType, "answer-type", "", "what the council votes over: approve, option, number or text (default: modes.magi.answer_type)")
	fl.BoolVar(&switches.earlyStop, "early-stop", false, "a unanimous round 1 decides: 3 calls instead of 9 (default: modes.magi.early_stop)")
	fl.BoolVar(&switches.anonymous, "anonymous", false, "show peers' opinions as Member A/B, without names (default: modes.magi.anonymous)")
	fl.BoolVar(&switches.shuffle, "shuffle", false, "show peers' opinions in a different order to each member (default: modes.magi.shuffle)")
	fl.BoolVar(&switches.adaptive, "adaptive", false, "stop once more rounds are unlikely to change the verdict: after a unanimous or confident round 1, or a round 2 with no argued change (default: modes.magi.adaptive)")
	fl.BoolVar(&switches.guard, "guard", false, "leave vote changes without a new argument out of the verdict (default: modes.magi.guard)")
	return cmd
}

func magiRun(o *MagiOptions) error {
	if o.Model != "" && o.Preset != "" {
		// -m puts one model under every persona, so a rotation has nothing to rotate.
		return cli.Usage(fmt.Errorf("-m/--model and -p/--preset cannot be used together: -m runs all three members on one model, -p rotates their providers"))
	}
	if o.Preset != "" {
		if _, ok := config.MagiPresets[o.Preset]; !ok {
			return cli.Usage(fmt.Errorf("--preset: unknown preset %q (one of default, rotate, rotate2)", o.Preset))
		}
	}
	q, err := cli.QuestionOrResume(o.Args, o.F.IO.In, o.F.Flags.Session)
	if err != nil {
		return err
	}
	a, err := o.F.App(debate.ModeMagi, magiAdjust(o.Model, o.Preset), magiOptions(o))
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
	if o.Single {
		rounds = 1
	}
	if err := a.Engine.Control(o.Ctx, debate.Control{Kind: config.ControlRounds, N: rounds}); err != nil {
		return err
	}
	p := a.Printer(headless.Magi, func(ho *headless.Options) {
		ho.Verbose = o.Verbose
		ho.Header = headless.MagiHeader(q, a.Engine.Current().Agents())
	})
	if err := a.Run(o.Ctx, p, q); err != nil {
		return err
	}
	if reason := p.NoDecision(); reason != "" {
		return cli.NoDecisionError{Reason: reason}
	}
	return nil
}

// magiOptions applies --answer-type and the boolean council flags that were
// given over modes.magi.
func magiOptions(o *MagiOptions) func(*config.Config) error {
	return func(cfg *config.Config) error {
		if o.AnswerType != "" {
			if _, err := verdict.ParseAnswerType(o.AnswerType); err != nil {
				return cli.Usage(fmt.Errorf("--answer-type: %w", err))
			}
			cfg.Modes.Magi.AnswerType = o.AnswerType
		}
		set := func(v *bool, into *bool) {
			if v != nil {
				*into = *v
			}
		}
		set(o.EarlyStop, &cfg.Modes.Magi.EarlyStop)
		set(o.Anonymous, &cfg.Modes.Magi.Anonymous)
		set(o.Shuffle, &cfg.Modes.Magi.Shuffle)
		set(o.Adaptive, &cfg.Modes.Magi.Adaptive)
		set(o.Guard, &cfg.Modes.Magi.Guard)
		return nil
	}
}

// magiAdjust applies a MAGI preset and -m MODEL to the configuration
// before the agents are built.
func magiAdjust(model, preset string) func(*config.Config) error {
	return func(cfg *config.Config) error {
		err := cfg.ApplyMagi(preset, "--preset", model)
		var me *config.ModelError
		if errors.As(err, &me) {
			return cli.Usage(err)
		}
		return err
	}
}
