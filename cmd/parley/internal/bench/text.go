package bench

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/internal/numfmt"
)

// WriteJSON prints a report (or a listing, a comparison) as one indented
// JSON document.
func WriteJSON(w io.Writer, rep any) error {
	enc := sanitize.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText prints the report as the terminal table and its notes.
func WriteText(w io.Writer, rep Report) {
	fmt.Fprintf(w, "parley bench · %s · %d of %d questions · run %s\n", sanitize.Text(rep.Set), rep.Questions, rep.Total, rep.Run)
	fmt.Fprintf(w, "members: %s · rounds: %d\n", sanitize.Text(strings.Join(rep.Members, ", ")), rep.Rounds)
	if rep.Simulation != "" {
		fmt.Fprintln(w, sanitize.Text(rep.Simulation))
	}
	if rep.Partial {
		fmt.Fprintf(w, "PARTIAL: stopped (%s) after %d questions\n", sanitize.Text(rep.Stopped), rep.Questions)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tcorrect\taccuracy\t95% CI\tlost\tcalls/q\ttokens/q\t$/q\t")
	for _, c := range rep.Conditions {
		lost := fmt.Sprint(c.Lost)
		if strings.HasPrefix(c.Name, "member:") || c.Name == RuleOracle {
			lost = "-"
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.1f%%\t[%.1f, %.1f]\t%s\t%s\t%s\t%.4f\t\n", sanitize.Text(c.Name), c.Correct, rep.Questions,
			100*c.Accuracy, 100*c.CI95[0], 100*c.CI95[1], lost, perQuestion(c.Calls, rep.Questions), numfmt.Thousands(int(c.TokensPerQuestion+0.5)), c.CostPerQuestion)
	}
	_ = tw.Flush()
	if line := rep.Sparkline(); line != "" {
		fmt.Fprintf(w, "\naccuracy per round: %s\n", line)
	}
	fmt.Fprintf(w, "lost: questions where a member was right in round 1 (for self_consistency: a sample; same:*: a same-model member) and the condition was wrong; oracle: any member right in round 1\n")
	d := rep.Delta
	// The delta counts questions (the council's outcome, one condition to
	// the other); the flips below count members' votes, round to round.
	fmt.Fprintf(w, "\ndebate delta (%s − %s): %+.1f points · questions right→wrong %d, wrong→right %d · McNemar exact p = %.3f\n",
		d.To, d.From, 100*d.Delta, d.RightToWrong, d.WrongToRight, d.PValue)
	f := rep.Flips
	fmt.Fprintf(w, "member flips (votes, round to round): %d right→wrong, %d wrong→right, %d wrong→wrong; %d flagged CONFORMITY (no new argument)\n",
		f.RightToWrong, f.WrongToRight, f.WrongToWrong, f.Conformity)
	for _, r := range f.ByRound {
		fmt.Fprintf(w, "  round %d: %d right→wrong, %d wrong→right (%d conformity)\n", r.Round, r.RightToWrong, r.WrongToRight, r.Conformity)
	}
	for _, m := range f.ByMember {
		fmt.Fprintf(w, "  round %d  %-12s  %d right→wrong  %d wrong→right  %d wrong→wrong  %d conformity\n",
			m.Round, sanitize.Text(m.Agent), m.RightToWrong, m.WrongToRight, m.WrongToWrong, m.Conformity)
	}
	u := rep.Unanimity
	fmt.Fprintf(w, "unanimous and wrong: %d in round 1, %d at the end (%d collapsed into it by debate)\n", u.WrongRound1, u.WrongFinal, u.Collapsed)
	e := rep.EarlyStop
	fmt.Fprintf(w, "early stop: %d questions unanimous in round 1; stopping there saves %d calls, %s tokens, $%.4f and changes %d outcomes\n",
		e.Stopped, e.CallsSaved, numfmt.Thousands(e.TokensSaved), e.CostSaved, e.Changed)
	writeAdaptiveAndGuard(w, rep)
	sp := rep.SPRT
	fmt.Fprintf(w, "sprt (Wald on agreement, p0 %.2f vs p1 %.2f, α %.2f, β %.2f; replayed one call at a time): stops early on %d questions, %.2f calls a question against %s; saves %d calls, %s tokens, $%.4f\n",
		sp.P0, sp.P1, sp.Alpha, sp.Beta, sp.Stopped, sp.MeanCalls, perQuestion(sp.FullCalls, rep.Questions), sp.CallsSaved, numfmt.Thousands(sp.TokensSaved), sp.CostSaved)
	fmt.Fprintf(w, "invalid answers: %d%s\n", rep.Invalid, invalidBy(rep.InvalidBy))
	wall := time.Duration(rep.WallSeconds * float64(time.Second))
	if wall < 10*time.Second {
		wall = wall.Round(time.Millisecond)
	} else {
		wall = wall.Round(100 * time.Millisecond)
	}
	fmt.Fprintf(w, "%d calls · %s tokens · $%.4f · wall %s\n", rep.Calls, numfmt.Thousands(rep.Tokens), rep.Cost, wall)
	writeComparisons(w, rep)
}

func invalidBy(m map[string]int) string {
	var parts []string
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if m[n] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", sanitize.Text(n), m[n]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// ProgressPrinter shows a run's progress: a bar redrawn in place on a
// terminal, one plain line per question when piped.
type ProgressPrinter struct {
	W     io.Writer
	TTY   bool
	Final string // the final verdict's condition name
}

// Show prints one progress step.
func (p *ProgressPrinter) Show(pr Progress) {
	pct := func(name string) string {
		if pr.Done == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(pr.Correct[name])/float64(pr.Done))
	}
	eta := "-"
	if pr.Done > 0 && pr.Total > pr.Done {
		eta = (pr.Elapsed / time.Duration(pr.Done) * time.Duration(pr.Total-pr.Done)).Round(time.Second).String()
	}
	final := fmt.Sprintf("  %s %s", p.Final, pct(p.Final))
	if p.Final == "majority_r1" { // one round: round 1's majority is the final verdict, named once
		final = ""
	}
	stats := fmt.Sprintf("%d/%d  majority_r1 %s%s  early_stop %s  $%.4f  ETA %s", pr.Done, pr.Total,
		pct("majority_r1"), final, pct("early_stop"), pr.Spent, eta)
	if !p.TTY {
		fmt.Fprintf(p.W, "bench: %s\n", stats)
		return
	}
	const width = 24
	filled := 0
	if pr.Total > 0 {
		filled = width * pr.Done / pr.Total
	}
	fmt.Fprintf(p.W, "\r\x1b[K[%s%s] %s", strings.Repeat("█", filled), strings.Repeat("·", width-filled), stats)
}

// End closes the bar's line on a terminal.
func (p *ProgressPrinter) End() {
	if p.TTY {
		fmt.Fprintln(p.W)
	}
}

// writeAdaptiveAndGuard prints where adaptive councils stop and what that
// saves, and what the guard did to the verdicts.
func writeAdaptiveAndGuard(w io.Writer, rep Report) {
	if rep.Rounds < 2 {
		return
	}
	a := rep.Adaptive
	how := "replayed on the full debates"
	if a.Ran {
		how = "as the councils ran"
	}
	full := rep.councilCalls() + savedIfRan(a)
	spared := fmt.Sprintf(", %s tokens, $%.4f", numfmt.Thousands(a.TokensSaved), a.CostSaved)
	if a.Ran {
		spared = "" // calls never made have no measured tokens
	}
	fmt.Fprintf(w, "adaptive (margin %.2f, %s): %s; saves %d of %d calls (%s)%s\n",
		a.Margin, how, a.stopLine(), a.CallsSaved, full, percent(a.CallsSaved, full), spared)
	g := rep.Guard
	fmt.Fprintf(w, "guard: %d final votes counted as before a change without a new argument, on %d questions; %d outcomes changed\n",
		g.Discounted, g.Questions, g.Changed)
}

// writeComparisons prints the paired comparisons of the rules as a lower
// triangle: row against column.
func writeComparisons(w io.Writer, rep Report) {
	if len(rep.Comparisons) == 0 {
		return
	}
	fmt.Fprintf(w, "\npaired comparisons: row − column in points, right only by row/by column, * exact McNemar p < %.2f\n", Significant)
	var rules, baselines []string
	for _, c := range rep.Conditions {
		switch {
		case c.Name == RuleOracle || strings.HasPrefix(c.Name, "member:"):
		case isBaseline(c.Name):
			baselines = append(baselines, c.Name)
		default:
			rules = append(rules, c.Name)
		}
	}
	cellOf := map[[2]string]Comparison{}
	for _, c := range rep.Comparisons {
		cellOf[[2]string{c.A, c.B}] = c
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\t\n", strings.Join(rules[:len(rules)-1], "\t"))
	for i, a := range rules[1:] {
		row := []string{a}
		for _, b := range rules[:i+1] {
			c := cellOf[[2]string{a, b}]
			mark := ""
			if c.PValue < Significant {
				mark = "*"
			}
			row = append(row, fmt.Sprintf("%+.1f (%d/%d)%s", 100*c.Delta, c.AOnly, c.BOnly, mark))
		}
		fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
	}
	_ = tw.Flush()
	if len(baselines) == 0 {
		return
	}
	final := finalRule(rep.Rounds)
	fmt.Fprintf(w, "\nbaselines against %s and %s, same questions:\n", RuleMajority, final)
	for _, b := range baselines {
		var parts []string
		for _, against := range []string{RuleMajority, final} {
			c, ok := cellOf[[2]string{b, against}]
			if !ok {
				continue
			}
			mark := ""
			if c.PValue < Significant {
				mark = "*"
			}
			parts = append(parts, fmt.Sprintf("%+.1f (%d/%d) p = %.3f%s", 100*c.Delta, c.AOnly, c.BOnly, c.PValue, mark))
		}
		fmt.Fprintf(w, "  %-18s %s\n", b, strings.Join(parts, " · "))
		if final == RuleMajority {
			break
		}
	}
}

// isBaseline says a condition is a baseline the council's rules are
// compared against, not one of them.
func isBaseline(name string) bool {
	return name == RuleSelfConsistency || strings.HasPrefix(name, SamePrefix)
}

// councilCalls is what the council's full debate called (baselines aside).
func (rep Report) councilCalls() int {
	for _, c := range rep.Conditions {
		if c.Name == finalRule(rep.Rounds) {
			return c.Calls
		}
	}
	return rep.Calls
}

// savedIfRan is the calls an adaptive run did not make (to count the full
// debate's calls beside them).
func savedIfRan(a AdaptiveSummary) int {
	if a.Ran {
		return a.CallsSaved
	}
	return 0
}

func percent(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(k)/float64(n))
}

// perQuestion is n over questions with two decimals ("-" for none).
func perQuestion(n, questions int) string {
	if questions == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(n)/float64(questions))
}

// sparks are the eight heights of a sparkline.
var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline is the council's accuracy after each round as one line of
// bars (the lowest round's accuracy to 100 %), with the figures:
// "▃▆█ 76.0% → 86.0% → 90.0%".
func (rep Report) Sparkline() string {
	var acc []float64
	for _, c := range rep.Conditions {
		if c.Name == RuleMajority || strings.HasPrefix(c.Name, "verdict_r") {
			acc = append(acc, c.Accuracy)
		}
	}
	if len(acc) < 2 {
		return ""
	}
	lo := slices.Min(acc)
	var bars, figs []string
	for _, a := range acc {
		i := len(sparks) - 1
		if lo < 1 {
			i = int((a - lo) / (1 - lo) * float64(len(sparks)-1))
		}
		bars = append(bars, string(sparks[min(max(i, 0), len(sparks)-1)]))
		figs = append(figs, fmt.Sprintf("%.1f%%", 100*a))
	}
	return strings.Join(bars, "") + " " + strings.Join(figs, " → ")
}
