package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

func init() {
	subcommands = append(subcommands, newMagiCmd)
}

// magiPresets rotate the configured (provider, model) pairs under the
// personas by this many places.
var magiPresets = map[string]int{"default": 0, "rotate": 1, "rotate2": 2}

func newMagiCmd(g *globalFlags) *cobra.Command {
	var (
		verbose, single bool
		model, preset   string
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
such as ollama/llama3.2). -p rotate / rotate2 shift the providers under the
personas by one or two places. Use - to read the question from stdin.`,
		Example: `  parley magi "Should we ship on Friday?"
  parley magi -v -p rotate "Rewrite the billing service in Rust?"
  parley magi -1 -m ollama/llama3.2 "Is this commit message clear?"
  parley magi --json "Adopt a four-day week?" | jq -r .verdict`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if preset != "" {
				if _, ok := magiPresets[preset]; !ok {
					return usageErr(fmt.Errorf("--preset: unknown preset %q (one of default, rotate, rotate2)", preset))
				}
			}
			q, err := readQuestion(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			a, err := newApp(cmd, g, "magi", magiAdjust(model, preset))
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.requireKeys(); err != nil {
				return err
			}
			if a.engine.Current().Name() != "magi" { // a resumed session in another mode
				if err := a.engine.SetMode("magi"); err != nil {
					return err
				}
			}
			mode, err := a.engine.Mode("magi")
			if err != nil {
				return err
			}
			m := mode.(*debate.Magi)
			m.SingleRound = single
			// Retries and provider failures go to stderr as they happen;
			// the council itself is printed below.
			p := a.printer(false)
			p.quiet = true
			a.engine.Subscribe(p.Sink)
			if !g.json {
				printMagiHeader(a.stdout, q, m.Agents())
				m.OnRound = func(round int, votes []debate.MagiVote) { printMagiRound(a.stdout, round, votes, verbose) }
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			runErr := a.run(ctx, m, q)
			res, ok := m.Result()
			if !ok {
				return runErr
			}
			if g.json {
				if err := writeMagiJSON(a.stdout, res); err != nil {
					return err
				}
			} else {
				printMagiOutcome(a.stdout, res)
			}
			return runErr
		},
	}
	addSessionFlag(cmd, g)
	f := cmd.Flags()
	f.BoolVarP(&verbose, "verbose", "v", false, "show each vote's full reasoning")
	f.BoolVarP(&single, "single-round", "1", false, "run round 1 only (independent votes)")
	f.StringVarP(&model, "model", "m", "", "one model for all three members (provider inferred, or provider/model)")
	f.StringVarP(&preset, "preset", "p", "", "provider rotation: default, rotate or rotate2 (default: modes.magi.preset)")
	return cmd
}

// magiAdjust rewrites the MAGI members' provider and model before the
// agents are built: first the preset's rotation (the flag, else
// modes.magi.preset), then -m for all three.
func magiAdjust(model, preset string) func(*debate.Config) error {
	return func(cfg *debate.Config) error {
		key := "--preset"
		if preset == "" {
			preset, key = cfg.Modes.Magi.Preset, "modes.magi.preset"
		}
		if preset == "" {
			preset = "default"
		}
		shift, ok := magiPresets[preset]
		if !ok {
			return &debate.ConfigError{File: cfg.Source, Key: key, Problem: fmt.Sprintf("unknown preset %q (one of default, rotate, rotate2)", preset)}
		}
		idx := magiIndexes(cfg)
		if idx == nil {
			return nil // Validate names the unknown member
		}
		type pair struct{ provider, model string }
		pairs := make([]pair, len(idx))
		for i, k := range idx {
			pairs[i] = pair{cfg.Agents[k].Provider, cfg.Agents[k].Model}
		}
		for i, k := range idx {
			p := pairs[(i+shift)%len(pairs)]
			cfg.Agents[k].Provider, cfg.Agents[k].Model = p.provider, p.model
		}
		if model == "" {
			return nil
		}
		provider, name, err := inferProvider(cfg, model)
		if err != nil {
			return err
		}
		for _, k := range idx {
			cfg.Agents[k].Provider, cfg.Agents[k].Model = provider, name
		}
		return nil
	}
}

// magiIndexes finds the MAGI members in cfg.Agents; nil if one is missing.
func magiIndexes(cfg *debate.Config) []int {
	var idx []int
	for _, name := range cfg.Modes.Magi.Agents {
		k := slices.IndexFunc(cfg.Agents, func(a debate.AgentSpec) bool { return a.Name == name })
		if k < 0 {
			return nil
		}
		idx = append(idx, k)
	}
	return idx
}

var openAIModel = regexp.MustCompile(`^(gpt-|chatgpt-|codex|o[1-9]($|-))`)

// inferProvider maps -m MODEL to a configured provider entry: provider/model
// names the entry; otherwise the model's family picks the vendor, and the
// entry of that vendor's type (the one named after it first).
func inferProvider(cfg *debate.Config, model string) (provider, name string, err error) {
	model = strings.TrimSpace(model)
	names := make([]string, 0, len(cfg.Providers))
	for n := range cfg.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	if i := strings.Index(model, "/"); i > 0 {
		if _, ok := cfg.Providers[model[:i]]; ok && model[i+1:] != "" {
			return model[:i], model[i+1:], nil
		}
		return "", "", usageErr(fmt.Errorf("--model %q: no provider %q is configured (configured: %s)", model, model[:i], strings.Join(names, ", ")))
	}
	lower := strings.ToLower(model)
	var typ string
	switch {
	case openAIModel.MatchString(lower):
		typ = "openai"
	case strings.HasPrefix(lower, "claude-"):
		typ = "anthropic"
	case strings.HasPrefix(lower, "gemini-"):
		typ = "gemini"
	default:
		return "", "", usageErr(fmt.Errorf("--model %q: cannot tell its provider; write provider/model (configured providers: %s)", model, strings.Join(names, ", ")))
	}
	if cfg.Providers[typ].Type == typ {
		return typ, model, nil
	}
	for _, n := range names {
		if cfg.Providers[n].Type == typ {
			return n, model, nil
		}
	}
	return "", "", usageErr(fmt.Errorf("--model %q needs a provider of type %s, and none is configured", model, typ))
}

// --- human output -----------------------------------------------------------

var magiRoundNames = map[int]string{1: "independent", 2: "deliberation", 3: "final vote"}

func printMagiHeader(w io.Writer, q string, members []*debate.Agent) {
	fmt.Fprintf(w, "MAGI council: %s\n", sanitize(firstLineOf(q)))
	var parts []string
	for _, a := range members {
		parts = append(parts, fmt.Sprintf("%s (%s/%s)", a.Label(), a.Provider.Name(), a.Model))
	}
	fmt.Fprintf(w, "members: %s\n", strings.Join(parts, " · "))
}

func printMagiRound(w io.Writer, round int, votes []debate.MagiVote, verbose bool) {
	fmt.Fprintf(w, "\nRound %d · %s\n", round, magiRoundNames[round])
	width := 0
	for _, v := range votes {
		width = max(width, len(v.Display))
	}
	for _, v := range votes {
		line := sanitize(v.Summary)
		if !v.Valid {
			line = sanitize(v.Error)
		}
		if v.Attempts > 1 {
			line += " (asked twice)"
		}
		fmt.Fprintf(w, "  %-*s  %-7s  %s\n", width, v.Display, strings.ToUpper(string(v.Vote)), strings.TrimSpace(line))
		if verbose && v.Valid {
			for _, l := range strings.Split(strings.TrimSpace(sanitize(v.Reasoning)), "\n") {
				fmt.Fprintf(w, "  %*s           %s\n", width, "", l)
			}
		}
	}
}

func printMagiOutcome(w io.Writer, res debate.MagiResult) {
	displays := map[string]string{}
	for _, u := range res.Agents {
		displays[u.Agent] = u.Display
	}
	if len(res.Rounds) > 1 {
		fmt.Fprintln(w, "\nVote changes")
		if len(res.Flips) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, f := range res.Flips {
			verdict := fmt.Sprintf("argued (%d new words)", f.NewWords)
			if f.Conformity {
				verdict = fmt.Sprintf("CONFORMITY: no new argument (%d new words)", f.NewWords)
			}
			fmt.Fprintf(w, "  %s  round %d→%d  %s → %s  %s\n", displays[f.Agent], f.FromRound, f.ToRound, f.From, f.To, verdict)
		}
	}
	fmt.Fprintln(w)
	if res.Cancelled {
		printBanner(w, "MAGI: cancelled, no verdict")
	} else {
		printBanner(w, fmt.Sprintf("MAGI VERDICT: %s", res.Verdict))
		fmt.Fprintf(w, "after round %d: %s\n", len(res.Rounds), debate.TallyLine(res.Tally))
	}
	fmt.Fprintln(w, "\nTokens and cost")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, u := range res.Agents {
		fmt.Fprintf(tw, "  %s\t%s/%s\t%s\t%s\t$%.4f\n", u.Display, u.Provider, u.Model, plural(u.Calls, "1 call", fmt.Sprintf("%d calls", u.Calls)), tokenLine(u.Usage), u.Cost)
	}
	calls := 0
	for _, u := range res.Agents {
		calls += u.Calls
	}
	fmt.Fprintf(tw, "  total\t\t%d calls\t%s\t$%.4f\n", calls, tokenLine(res.Usage), res.Cost)
	_ = tw.Flush()
}

func tokenLine(u providers.Usage) string {
	s := thousands(u.InputTokens) + " in"
	if u.CachedTokens > 0 {
		s += " (" + thousands(u.CachedTokens) + " cached)"
	}
	return s + " · " + thousands(u.OutputTokens) + " out"
}

func printBanner(w io.Writer, text string) {
	bar := strings.Repeat("═", len([]rune(text))+4)
	fmt.Fprintf(w, "╔%s╗\n║  %s  ║\n╚%s╝\n", bar, text, bar)
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// --- JSON output ------------------------------------------------------------

type magiJSONUsage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CachedTokens     int     `json:"cached_tokens"` // part of prompt_tokens
	CostUSD          float64 `json:"cost_usd"`
}

type magiJSONVote struct {
	Agent     string        `json:"agent"`
	Provider  string        `json:"provider"`
	Model     string        `json:"model"`
	Round     int           `json:"round"`
	Vote      string        `json:"vote"`
	Reasoning string        `json:"reasoning"`
	Summary   string        `json:"summary"`
	Valid     bool          `json:"valid"`
	Error     string        `json:"error"`
	Usage     magiJSONUsage `json:"usage"`
}

type magiJSON struct {
	Question string           `json:"question"`
	Verdict  string           `json:"verdict"`
	Rounds   [][]magiJSONVote `json:"rounds"`
	Flips    []debate.Flip    `json:"flips"`
	Usage    magiJSONUsage    `json:"usage"`
}

func jsonUsage(u providers.Usage, cost float64) magiJSONUsage {
	return magiJSONUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, CachedTokens: u.CachedTokens, CostUSD: cost}
}

// writeMagiJSON prints the council as one JSON object.
func writeMagiJSON(w io.Writer, res debate.MagiResult) error {
	out := magiJSON{Question: res.Question, Verdict: string(res.Verdict), Flips: res.Flips, Usage: jsonUsage(res.Usage, res.Cost),
		Rounds: make([][]magiJSONVote, 0, len(res.Rounds))}
	if res.Cancelled {
		out.Verdict = "CANCELLED"
	}
	if out.Flips == nil {
		out.Flips = []debate.Flip{}
	}
	for _, round := range res.Rounds {
		row := make([]magiJSONVote, 0, len(round))
		for _, v := range round {
			row = append(row, magiJSONVote{Agent: v.Agent, Provider: v.Provider, Model: v.Model, Round: v.Round,
				Vote: string(v.Vote), Reasoning: v.Reasoning, Summary: v.Summary, Valid: v.Valid, Error: v.Error,
				Usage: jsonUsage(v.Usage, v.Cost)})
		}
		out.Rounds = append(out.Rounds, row)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
