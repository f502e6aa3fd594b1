package main

import (
	"cmp"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/bench"
	"github.com/parleyhq/parley/cmd/parley/internal/wiring"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/verdict"
)

func newBenchCmd(g *globalFlags) *cobra.Command {
	var (
		p         bench.Params
		members   string
		workers   int
		resume    string
		htmlPath  string
		baselines bool
	)
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
			switch {
			case resume == "" && len(args) == 0:
				return usageErr(fmt.Errorf("name a question set (a JSONL file, builtin:arith, builtin:compare or builtin:gsm8k) or --resume RUN"))
			case workers < 1:
				return usageErr(fmt.Errorf("--parallel must be at least 1"))
			case p.Rounds < 1 || p.Rounds > verdict.MagiRounds:
				return usageErr(fmt.Errorf("--rounds must be 1 to %d", verdict.MagiRounds))
			}
			st, _, err := openDB(g)
			if err != nil {
				return err
			}
			defer st.Close()
			run := ""
			if resume != "" {
				if run, p, err = bench.LoadParams(cmd.Context(), st, resume); err != nil {
					return usageErr(err)
				}
				g.Demo = g.Demo || p.Demo
			} else {
				p.Set = args[0]
				if members != "" {
					p.Members = strings.Split(members, ",")
				}
				if baselines {
					p.SelfConsistency, p.SameModel = cmp.Or(p.SelfConsistency, "first member"), cmp.Or(p.SameModel, "first member")
				}
			}
			if p.Set == bench.BuiltinGSM8K && !g.Demo {
				if _, err := bench.FindGSM8K(p.Data, os.Getenv); err != nil {
					return err // before any key is asked for: the set comes first
				}
			}
			g.NoPersist = true // a bench's councils are not sessions
			a, err := newApp(cmd, g, debate.ModeMagi, func(cfg *debate.Config) error { return usageErr(bench.ChooseMembers(cfg, &p)) }, magiAdjust("", p.Preset))
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.RequireKeys(); err != nil {
				return err
			}
			p.Demo = a.Demo
			for _, f := range []*string{&p.SelfConsistency, &p.SameModel} {
				if *f == "first member" {
					*f = p.Members[0] // --baselines: the council's first member
				}
			}
			if run == "" { // a new run: modes.magi's defaults unless the flags say otherwise
				if !cmd.Flags().Changed("adaptive") {
					p.Adaptive = a.Cfg.Modes.Magi.Adaptive
				}
				if !cmd.Flags().Changed("guard") {
					p.Guard = a.Cfg.Modes.Magi.Guard
				}
			}
			maxCost := a.Cfg.BudgetUSD // --max-cost, else budget_usd
			ctx, stop := signal.NotifyContext(cmd.Context(), wiring.StopSignals...)
			defer stop()
			agents := a.Engine.Agents()
			if a.Demo { // offline answers at once: a demo bench takes seconds
				agents = bench.InstantDemo(agents)
			}
			job := bench.Job{Params: p, Run: run, Store: st, Config: a.Cfg, Agents: agents,
				Workers: workers, MaxCost: maxCost, Err: a.Stderr, TTY: bench.IsTerminalWriter(a.Stderr)}
			if g.JSONL {
				job.Items = bench.NewItemStream(a.Stdout)
			}
			if err := (bench.Setup{Config: a.Cfg, Agents: agents, MaxCost: maxCost}).Check(); err != nil {
				return usageErr(err)
			}
			rep, runErr := job.Execute(ctx)
			if rep.Run == "" {
				return runErr
			}
			if htmlPath != "" {
				if err := bench.WriteHTMLFile(htmlPath, rep); err != nil {
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
		},
	}
	f := cmd.Flags()
	f.IntVar(&p.N, "n", 0, "questions to ask (built-in sets: generated, default 50; files: the first N)")
	f.Uint64Var(&p.Seed, "seed", 1, "seed of the built-in sets")
	f.StringVar(&members, "members", "", "the council's three agents, comma-separated (default: modes.magi.agents)")
	f.StringVarP(&p.Preset, "preset", "p", "", "provider rotation: default, rotate or rotate2 (default: modes.magi.preset)")
	f.IntVar(&p.Rounds, "rounds", verdict.MagiRounds, "rounds per council (1 to 3)")
	f.IntVar(&workers, "parallel", 1, "questions asked at once (bench.limits caps each provider's rate)")
	addCostFlag(cmd, g)
	f.StringVar(&resume, "resume", "", "go on with an interrupted run (its ID or a unique prefix)")
	f.StringVar(&htmlPath, "html", "", "also write a self-contained HTML report to FILE")
	f.BoolVar(&p.EarlyStop, "early-stop", false, "councils stop on a unanimous round 1 (the report shows its effect either way)")
	f.BoolVar(&p.Anonymous, "anonymous", false, "peers' opinions shown as Member A/B, without names")
	f.BoolVar(&p.Shuffle, "shuffle", false, "peers' opinions in a different order per member")
	f.BoolVar(&p.Adaptive, "adaptive", false, "councils stop once more rounds are unlikely to change them (default: modes.magi.adaptive; the report replays adaptive stops either way)")
	f.BoolVar(&p.Guard, "guard", false, "councils leave vote changes without a new argument out of the verdict (default: modes.magi.guard; the report scores the guard either way)")
	f.StringVar(&p.Data, "data", "", "builtin:gsm8k: the test.jsonl (or .gz) to read (default: $PARLEY_GSM8K, then the copy gsm8k-install keeps)")
	f.StringVar(&p.SelfConsistency, "self-consistency", "", "baseline: also sample this agent (or model) alone at the debate's token budget and take the plurality")
	f.StringVar(&p.SameModel, "same-model", "", "baseline: also ask the council with every seat on this agent's (or model's) provider and model")
	f.BoolVar(&baselines, "baselines", false, "both baselines on the council's first member (unless --self-consistency or --same-model names another)")
	for _, sub := range []*cobra.Command{newGSM8KInstallCmd(), benchListCmd(g), benchShowCmd(g), benchCompareCmd(g)} {
		wrapArgs(sub)
		cmd.AddCommand(sub)
	}
	return cmd
}

// newGSM8KInstallCmd downloads (or takes from disk) the GSM8K test set,
// checks it against the published sha256 and keeps a compressed copy where
// builtin:gsm8k finds it.
func newGSM8KInstallCmd() *cobra.Command {
	var d bench.GSM8KDownload
	cmd := &cobra.Command{
		Use:   "gsm8k-install [FILE]",
		Short: "Download GSM8K's test set, check it and keep it for builtin:gsm8k",
		Long: `Parley does not ship GSM8K (MIT licence; Cobbe et al. 2021, "Training Verifiers
to Solve Math Word Problems"). Without FILE, the test split is downloaded from

  ` + bench.GSM8KURL + `

(or --url, or $` + bench.GSM8KURLEnv + `, for a mirror; plain or gzip) and checked against
the published sha256 ` + bench.GSM8KSHA256 + `:
any other file is refused and nothing is installed. FILE installs a copy from disk,
checked the same way; a valid file that is not the published one (1,319 problems,
each line {"question": …, "answer": "…#### 72"}) is accepted with a warning.
The copy is kept gzip-compressed at $XDG_DATA_HOME/parley/gsm8k/test.jsonl.gz
(~/.local/share/…).`,
		Example: `  parley bench gsm8k-install
  parley bench gsm8k-install --url https://mirror.example/gsm8k/test.jsonl.gz
  parley bench gsm8k-install ~/Downloads/test.jsonl
  parley bench builtin:gsm8k --n 50 --seed 7`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in bench.InstalledGSM8K
			var err error
			if len(args) == 1 {
				if d.URL != "" {
					return usageErr(fmt.Errorf("give FILE or --url, not both"))
				}
				in, err = bench.InstallGSM8K(args[0], os.Getenv)
			} else {
				d.Progress, d.TTY = cmd.ErrOrStderr(), bench.IsTerminalWriter(cmd.ErrOrStderr())
				in, err = bench.DownloadGSM8K(cmd.Context(), d, os.Getenv)
			}
			if err != nil {
				return err
			}
			if !in.Published {
				fmt.Fprintln(cmd.ErrOrStderr(), in.NotPublishedWarning(args[0]))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "GSM8K: %d problems checked (sha256 %s) and kept at %s\n", in.Problems, in.SHA256, in.Dest)
			return nil
		},
	}
	cmd.Flags().StringVar(&d.URL, "url", "", "download from this address (a mirror; default: $"+bench.GSM8KURLEnv+", then the official one)")
	cmd.Flags().DurationVar(&d.Timeout, "timeout", bench.DefaultGSM8KTimeout, "give up a download that takes longer")
	return cmd
}

// benchMembers puts the run's members on the council (or records the
// configured council as the run's members).
