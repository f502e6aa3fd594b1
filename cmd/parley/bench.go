package main

import (
	"cmp"
	"context"
	"fmt"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/bench"
	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/verdict"
)

// BenchOptions are parley bench's flags and argument (the shared flags,
// --max-cost among them, are in F.Flags).
type BenchOptions struct {
	F      *factory.Factory
	Ctx    context.Context
	Args   []string     // the question set, when not --resume
	Params bench.Params // --n, --seed, --preset, --rounds, the council's switches, --data, the baselines
	// AdaptiveSet and GuardSet say whether --adaptive and --guard were
	// given (else modes.magi's apply).
	AdaptiveSet, GuardSet bool
	Members               string // --members a,b,c
	Workers               int    // --parallel
	Resume                string // --resume RUN
	HTML                  string // --html FILE
	Baselines             bool   // --baselines
}

// NewCmdBench is parley bench and its stored runs' commands; runF, when
// given, replaces bench's own run (benchRun).
func NewCmdBench(f *factory.Factory) *cobra.Command { return newCmdBench(f, nil) }

func newCmdBench(f *factory.Factory, runF func(*BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{F: f}
	cmd := &cobra.Command{
		Use:   "bench SET [--n N] [--seed S] [--members a,b,c | --preset P] [--rounds R] [--parallel N] [--max-cost USD] [--resume RUN] [--html FILE]",
		Short: "Does the debate beat a vote? Accuracy, cost and conformity of MAGI councils on labelled questions",
		Long: `Put every question of SET to a MAGI council voting over answers and measure,
from the same calls, each member alone (its round-1 answer), the round-1
majority, the verdict after each later round and early stop: accuracy with
95% Wilson intervals, the debate's delta with an exact McNemar test, flips
right→wrong and wrong→right, unanimous wrong answers, invalid answers, tokens
and dollars. SET is a JSONL file of {"id","question","options"?,"answer"},
builtin:arith (Du et al.'s a+b*c+d-e*f), builtin:compare, or builtin:gsm8k
(the GSM8K test set, --n of it sampled by --seed; install it first with
parley bench gsm8k-install; with --demo and without it, a labelled
simulation on generated problems). Beside them, the oracle (any member
right in round 1), right answers lost by each vote, a sequential test
(sprt) and, when asked, self-consistency and a homogeneous council
(--self-consistency, --same-model, --baselines). Results are stored per
question: --json has each problem's record under items, --jsonl streams
them; --resume RUN goes on where an interrupted run stopped; bench list,
bench show RUN and bench compare RUN1 RUN2 read stored runs.`,
		Example: `  parley bench builtin:arith --n 50 --demo
  parley bench builtin:gsm8k --n 50 --demo --html report.html
  parley bench questions.jsonl --members chatgpt,claude,gemini --parallel 4 --max-cost 2
  parley bench builtin:gsm8k --n 50 --demo --baselines
  parley bench --resume 3f2a9c1b04de --json | jq '.conditions[] | [.name, .accuracy]'
  parley bench compare 3f2a9c 9b01d4`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx, opts.Args = cmd.Context(), args
			opts.AdaptiveSet, opts.GuardSet = cmd.Flags().Changed("adaptive"), cmd.Flags().Changed("guard")
			return runCmd(runF, benchRun, opts)
		},
	}
	fl, p := cmd.Flags(), &opts.Params
	fl.IntVar(&p.N, "n", 0, "questions to ask (built-in sets: generated, default 50; files: the first N)")
	fl.Uint64Var(&p.Seed, "seed", 1, "seed of the built-in sets")
	fl.StringVar(&opts.Members, "members", "", "the council's three agents, comma-separated (default: modes.magi.agents)")
	fl.StringVarP(&p.Preset, "preset", "p", "", "provider rotation: default, rotate or rotate2 (default: modes.magi.preset)")
	fl.IntVar(&p.Rounds, "rounds", verdict.MagiRounds, "rounds per council (1 to 3)")
	fl.IntVar(&opts.Workers, "parallel", 1, "questions asked at once (bench.limits caps each provider's rate)")
	wiring.AddCostFlag(cmd, f.Flags)
	fl.StringVar(&opts.Resume, "resume", "", "go on with an interrupted run (its ID or a unique prefix)")
	fl.StringVar(&opts.HTML, "html", "", "also write a self-contained HTML report to FILE")
	fl.BoolVar(&p.EarlyStop, "early-stop", false, "councils stop on a unanimous round 1 (the report shows its effect either way)")
	fl.BoolVar(&p.Anonymous, "anonymous", false, "peers' opinions shown as Member A/B, without names")
	fl.BoolVar(&p.Shuffle, "shuffle", false, "peers' opinions in a different order per member")
	fl.BoolVar(&p.Adaptive, "adaptive", false, "councils stop once more rounds are unlikely to change them (default: modes.magi.adaptive; the report replays adaptive stops either way)")
	fl.BoolVar(&p.Guard, "guard", false, "councils leave vote changes without a new argument out of the verdict (default: modes.magi.guard; the report scores the guard either way)")
	fl.StringVar(&p.Data, "data", "", "builtin:gsm8k: the test.jsonl (or .gz) to read (default: $PARLEY_GSM8K, then the copy gsm8k-install keeps)")
	fl.StringVar(&p.SelfConsistency, "self-consistency", "", "baseline: also sample this agent (or model) alone at the debate's token budget and take the plurality")
	fl.StringVar(&p.SameModel, "same-model", "", "baseline: also ask the council with every seat on this agent's (or model's) provider and model")
	fl.BoolVar(&opts.Baselines, "baselines", false, "both baselines on the council's first member (unless --self-consistency or --same-model names another)")
	for _, sub := range []*cobra.Command{NewCmdGSM8KInstall(f, nil), NewCmdBenchList(f, nil), NewCmdBenchShow(f, nil), NewCmdBenchCompare(f, nil)} {
		wrapArgs(sub)
		cmd.AddCommand(sub)
	}
	return cmd
}

func benchRun(o *BenchOptions) error {
	g, p := o.F.Flags, o.Params
	switch {
	case o.Resume == "" && len(o.Args) == 0:
		return cli.Usage(fmt.Errorf("name a question set (a JSONL file, builtin:arith, builtin:compare or builtin:gsm8k) or --resume RUN"))
	case o.Workers < 1:
		return cli.Usage(fmt.Errorf("--parallel must be at least 1"))
	case p.Rounds < 1 || p.Rounds > verdict.MagiRounds:
		return cli.Usage(fmt.Errorf("--rounds must be 1 to %d", verdict.MagiRounds))
	}
	st, _, err := o.F.Store()
	if err != nil {
		return err
	}
	defer st.Close()
	run := ""
	if o.Resume != "" {
		if run, p, err = bench.LoadParams(o.Ctx, st, o.Resume); err != nil {
			return cli.Usage(err)
		}
		g.Demo = g.Demo || p.Demo
		if p.Tools != "" && !g.ToolsSet { // the run's tools, as it started
			g.Tools, g.ToolsSet = p.Tools, true
		}
	} else {
		p.Set = o.Args[0]
		if o.Members != "" {
			p.Members = strings.Split(o.Members, ",")
		}
		if o.Baselines {
			p.SelfConsistency, p.SameModel = cmp.Or(p.SelfConsistency, "first member"), cmp.Or(p.SameModel, "first member")
		}
	}
	if p.Set == bench.BuiltinGSM8K && !g.Demo {
		if _, err := bench.FindGSM8K(p.Data, o.F.Getenv); err != nil {
			return err // before any key is asked for: the set comes first
		}
	}
	g.NoPersist = true // a bench's councils are not sessions
	a, err := o.F.App(debate.ModeMagi, func(cfg *config.Config) error { return cli.Usage(bench.ChooseMembers(cfg, &p)) }, magiAdjust("", p.Preset))
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.RequireKeys(); err != nil {
		return err
	}
	p.Demo = a.Demo
	for _, name := range []*string{&p.SelfConsistency, &p.SameModel} {
		if *name == "first member" {
			*name = p.Members[0] // --baselines: the council's first member
		}
	}
	if run == "" { // a new run: modes.magi's defaults unless the flags say otherwise
		if !o.AdaptiveSet {
			p.Adaptive = a.Cfg.Modes.Magi.Adaptive
		}
		if !o.GuardSet {
			p.Guard = a.Cfg.Modes.Magi.Guard
		}
	}
	maxCost := a.Cfg.BudgetUSD // --max-cost, else budget_usd
	ctx, stop := signal.NotifyContext(o.Ctx, wiring.StopSignals...)
	defer stop()
	agents := a.Engine.Agents()
	if a.Demo { // offline answers at once: a demo bench takes seconds
		agents = bench.InstantDemo(agents)
	}
	job := bench.Job{Params: p, Run: run, Store: st, Config: a.Cfg, Agents: agents,
		Workers: o.Workers, MaxCost: maxCost, Err: a.Stderr, TTY: o.F.IO.ErrTTY, Getenv: o.F.Getenv}
	if g.JSONL {
		job.Items = bench.NewItemStream(a.Stdout)
	}
	if g.ToolsSet && g.Tools != "none" { // the paired with-tools condition
		boxes, closeKit := bench.ToolBoxes(a.Cfg, a.Engine.Workspace, o.F.Host().LookupEnv)
		defer closeKit()
		job.Params.Tools, job.Tools = g.Tools, boxes
	}
	if err := (bench.Setup{Config: a.Cfg, Agents: agents, MaxCost: maxCost}).Check(); err != nil {
		return cli.Usage(err)
	}
	rep, runErr := job.Execute(ctx)
	if rep.Run == "" {
		return runErr
	}
	if o.HTML != "" {
		if err := bench.WriteHTMLFile(o.F.Path(o.HTML), rep); err != nil {
			return err
		}
	}
	switch {
	case g.JSONL:
		err = job.Items.WriteReport(rep)
	case g.JSON:
		err = bench.WriteJSON(a.Stdout, rep)
	default:
		bench.WriteText(a.Stdout, rep)
	}
	if runErr != nil {
		return runErr
	}
	if err == nil && rep.Stopped == "interrupted" {
		err = fmt.Errorf("bench interrupted: %d of %d questions scored; go on with --resume %s", rep.Questions, rep.Total, rep.Run)
	}
	return err
}

// benchMembers puts the run's members on the council (or records the
// configured council as the run's members).
