// Package doctor checks a configuration against the real endpoints: for
// each agent, that its key is set, its endpoint answers, its model is
// served, where the model stands in its vendor's lifecycle, and (live)
// that one tiny call works. `parley doctor` prints the table.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/internal/numfmt"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
)

// Options of a check.
type Options struct {
	Live   bool                // make one tiny call per agent
	Getenv func(string) string // keys and base URL overrides
	Now    time.Time           // for shutdown dates
	// Demo: the run is `--demo`, so every agent answers with the offline
	// demo provider, whatever its configured provider; no key, endpoint
	// or lifecycle matters and none is checked.
	Demo bool
}

// Row is one agent's result; each column is "ok …", a problem, or "-"
// when it could not be checked.
type Row struct {
	Agent, Provider, Model           string
	Key, Endpoint, Listed, Lifecycle string
	Live                             string
	Failed                           bool // something here stops the agent from working
	// Unused: no mode seats the agent (the built-in local Ollama agent),
	// so what is wrong with it is said but is no problem.
	Unused bool
}

// listing is one provider's model list, fetched once.
type listing struct {
	models []string
	err    error
}

// Run checks every agent of cfg in configuration order.
func Run(ctx context.Context, cfg *config.Config, opt Options) []Row {
	lists := map[string]listing{}
	used := cfg.ModeAgents()
	var rows []Row
	for i, a := range cfg.Agents {
		spec := cfg.Providers[a.Provider]
		row := Row{Agent: a.Name, Provider: a.Provider, Model: a.Model, Endpoint: "-", Listed: "-", Lifecycle: "-", Live: "-", Unused: !used[a.Name]}
		if opt.Demo || spec.Type == "demo" {
			row.Key, row.Endpoint, row.Listed, row.Lifecycle = "not needed", "offline demo", "-", "-"
			rows = append(rows, row)
			continue
		}
		row.Lifecycle = lifecycle(cfg, i, a, opt.Now, &row)
		if !providers.HasKey(spec, opt.Getenv) {
			row.Key = "missing: set " + strings.Join(providers.KeyVars(spec), " or ")
			row.Failed = true
			rows = append(rows, row)
			continue
		}
		row.Key = "ok"
		if vars := providers.KeyVars(spec); len(vars) == 0 {
			row.Key = "not needed"
		}
		l, seen := lists[a.Provider]
		if !seen {
			l = list(ctx, a.Provider, spec, opt.Getenv)
			lists[a.Provider] = l
		}
		switch {
		case errors.Is(l.err, open.ErrNoModelList):
			row.Endpoint = "cannot list models"
		case l.err != nil:
			row.Endpoint, row.Failed = clean(l.err.Error()), true
		default:
			row.Endpoint = fmt.Sprintf("ok (%d models)", len(l.models))
			if slices.Contains(l.models, a.Model) {
				row.Listed = "ok"
			} else {
				row.Listed, row.Failed = "not served here", true
			}
		}
		if opt.Live {
			row.Live = live(ctx, a, spec, cfg, opt.Getenv, &row)
		}
		rows = append(rows, row)
	}
	return rows
}

func list(ctx context.Context, name string, spec providers.Spec, getenv func(string) string) listing {
	p, err := open.Unwrapped(name, spec, getenv)
	if err != nil {
		return listing{err: err}
	}
	models, err := open.Models(ctx, p)
	return listing{models: models, err: err}
}

// lifecycle reports shutdown dates and dropped sampling parameters; a
// model past its shutdown fails.
func lifecycle(cfg *config.Config, i int, a config.AgentSpec, now time.Time, row *Row) string {
	info := cfg.ModelInfo(a.Model)
	warnings := providers.ModelEffortWarnings(fmt.Sprintf("agents[%d]", i), a.Model, info, a.Temperature != nil, a.Effort, now)
	var parts []string
	for _, w := range warnings {
		_, msg, _ := strings.Cut(w, ": ")
		if strings.Contains(msg, "shut down") && !strings.Contains(msg, "shuts down") {
			row.Failed = true
		}
		parts = append(parts, msg)
	}
	if st := info.StatusAt(now); st == "legacy" || st == "deprecated" && info.Shutdown == "" {
		instead := ""
		if info.Replacement != "" {
			instead = "; switch to " + info.Replacement
		}
		parts = append(parts, st+instead)
	}
	if !info.Known {
		parts = append(parts, "not in the catalogue (family rules, no price)")
	} else if !info.Priced() {
		parts = append(parts, "no price")
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, "; ")
}

// live makes one tiny call through the retry policy, as a turn would.
func live(ctx context.Context, a config.AgentSpec, spec providers.Spec, cfg *config.Config, getenv func(string) string, row *Row) string {
	p, err := open.Open(a.Provider, spec, getenv)
	if err != nil {
		row.Failed = true
		return clean(err.Error())
	}
	info := cfg.ModelInfo(a.Model)
	// Enough room for a reasoning model to think briefly and still answer.
	req := providers.Request{Model: a.Model, Info: info, MaxTokens: 256,
		Messages: []providers.Message{{Role: providers.RoleUser, Content: "Reply with the single word OK."}},
		Meta:     providers.Meta{Purpose: providers.PurposeReply, Agent: a.Display}}
	s, err := p.Stream(ctx, req)
	if err != nil {
		row.Failed = true
		return clean(err.Error())
	}
	defer s.Close()
	var text strings.Builder
	for s.Next() {
		text.WriteString(s.Delta())
	}
	if err := s.Err(); err != nil {
		row.Failed = true
		return clean(err.Error())
	}
	res := s.Result()
	if ferr := providers.FinishError(a.Provider, res, text.String(), req.MaxTokens); ferr != nil {
		row.Failed = true
		return clean(ferr.Message)
	}
	return fmt.Sprintf("ok (%d→%d tok)", res.Usage.InputTokens, res.Usage.OutputTokens)
}

// clean makes server text safe for a terminal: no escape sequences or
// control characters, one line, bounded length.
func clean(s string) string {
	s = ansi.Strip(s)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}

// Print writes the table, one line per agent in short words that fit 100
// columns, then a note per check that is not plainly ok, with its whole
// text, and a summary line. It reports whether every agent a mode seats
// passed: an agent no mode uses is checked and noted, never a problem.
func Print(w io.Writer, rows []Row) bool {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  AGENT\tMODEL\tKEY\tENDPOINT\tLISTED\tLIFECYCLE\tLIVE CALL")
	failed, unused := 0, 0
	var notes []string
	for _, r := range rows {
		mark := "  "
		switch {
		case r.Failed && !r.Unused:
			mark, failed = "✗ ", failed+1
		case r.Unused:
			mark, unused = "- ", unused+1
		}
		name := clean(r.Agent)
		cells := []string{r.Key, r.Endpoint, r.Listed, r.Lifecycle, r.Live}
		for i, what := range []string{"key", "endpoint", "model listed", "lifecycle", "live call"} {
			short, long := shortCell(cells[i])
			cells[i] = short
			if long {
				notes = append(notes, fmt.Sprintf("%s%s, %s: %s", mark, name, what, cells0(r, i)))
			}
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\n", mark, ansi.Truncate(name, 12, "…"), ansi.Truncate(clean(r.Provider)+"/"+clean(r.Model), 30, "…"), strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, ansi.Wrap(n, 100, " "))
	}
	if unused > 0 {
		fmt.Fprintf(w, "- %d %s no mode uses (asked only by name): noted, not a problem\n", unused, plural(unused, "agent", "agents"))
	}
	if failed > 0 {
		fmt.Fprintf(w, "%d of %d agents have a problem\n", failed, len(rows)-unused)
		return false
	}
	fmt.Fprintf(w, "all %d agents the modes use are ok\n", len(rows)-unused)
	return true
}

// cells0 is the whole text of a row's i-th check.
func cells0(r Row, i int) string {
	return []string{r.Key, r.Endpoint, r.Listed, r.Lifecycle, r.Live}[i]
}

// shortCell is a check's text as the table shows it: whole when short, or
// its first words and "…", with long = true so that a note says it all.
func shortCell(s string) (short string, long bool) {
	if ansi.StringWidth(s) <= 13 {
		return s, false
	}
	switch {
	case strings.HasPrefix(s, "missing"):
		return "missing", true
	case strings.HasPrefix(s, "ok"):
		return "ok", false
	}
	return "✗ (below)", true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PrintWorstCases writes what one MAGI council and one council of this
// configuration can cost at most (debate.WorstCases), so a cap can be
// chosen by it.
func PrintWorstCases(w io.Writer, cfg *config.Config, now time.Time) error {
	cases, err := debate.WorstCases(cfg, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "worst case (calls at max_tokens, every retry, a %s-token question, prices of %s):\n",
		numfmt.Thousands(debate.WorstQuestionTokens), now.UTC().Format("2006-01-02"))
	for _, c := range cases {
		fmt.Fprintln(w, "  "+c.String())
	}
	return nil
}
