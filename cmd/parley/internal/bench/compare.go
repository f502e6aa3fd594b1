package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/verdict"
)

// StoredReport is a stored run's report, measured again from its stored
// results (bench show, bench compare).
func StoredReport(ctx context.Context, st *store.Store, prefix string, margin float64) (Report, error) {
	id, p, err := LoadParams(ctx, st, prefix)
	if err != nil {
		return Report{}, err
	}
	rows, err := st.BenchResults(ctx, id)
	if err != nil {
		return Report{}, fmt.Errorf("bench database: %w", err)
	}
	results := make([]Result, 0, len(rows))
	for _, row := range rows {
		var r Result
		if err := json.Unmarshal(row.Result, &r); err != nil {
			return Report{}, fmt.Errorf("bench run %s, question %s: %w", id, row.QuestionID, err)
		}
		results = append(results, r)
	}
	if margin == 0 {
		margin = p.AdaptiveMargin // the run's own
	}
	if margin == 0 {
		margin = verdict.DefaultAdaptiveMargin // stored before runs kept it
	}
	return Summarise(id, p, results, margin), nil
}

// RunListing is one stored run as bench list shows it.
type RunListing struct {
	Run     string    `json:"run"`
	Created time.Time `json:"created"`
	Params  Params    `json:"params"`
	Done    int       `json:"done"`
}

// ListRuns reads the stored runs, newest first.
func ListRuns(ctx context.Context, st *store.Store, limit int) ([]RunListing, error) {
	rows, err := st.BenchRuns(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]RunListing, 0, len(rows))
	for _, r := range rows {
		l := RunListing{Run: r.ID, Created: r.Created, Done: r.Done}
		if err := json.Unmarshal(r.Params, &l.Params); err != nil {
			return nil, fmt.Errorf("bench run %s: stored parameters: %w", r.ID, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// WriteList prints the runs as a table.
func WriteList(w io.Writer, runs []RunListing) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "no bench runs in this database")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tcreated\tset\tdone\tmembers\trounds\tbaselines\t")
	for _, r := range runs {
		total := "?"
		if r.Params.Total > 0 {
			total = fmt.Sprint(r.Params.Total)
		}
		base := ""
		if r.Params.SelfConsistency != "" {
			base += "self-consistency " + r.Params.SelfConsistency + " "
		}
		if r.Params.SameModel != "" {
			base += "same-model " + r.Params.SameModel + " "
		}
		if r.Params.Tools != "" {
			base += "tools " + r.Params.Tools
		}
		if r.Params.Simulation != "" {
			base += " (simulation)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%s\t%s\t%d\t%s\t\n", r.Run, r.Created.UTC().Format("2006-01-02 15:04"), sanitize.Text(r.Params.Set),
			r.Done, total, sanitize.Text(fmt.Sprint(r.Params.Members)), r.Params.Rounds, sanitize.Text(base))
	}
	_ = tw.Flush()
}

// PairedCondition is one condition of two runs on the problems both
// answered: each run's accuracy there, the difference, the problems only
// one got right and the exact McNemar p.
type PairedCondition struct {
	Name      string  `json:"name"`
	AccuracyA float64 `json:"accuracy_a"`
	AccuracyB float64 `json:"accuracy_b"`
	Delta     float64 `json:"delta"` // a − b
	AOnly     int     `json:"a_only_right"`
	BOnly     int     `json:"b_only_right"`
	PValue    float64 `json:"p_value"`
}

// RunComparison pairs two runs problem by problem (by id).
type RunComparison struct {
	A          string            `json:"a"`
	B          string            `json:"b"`
	Paired     int               `json:"paired"` // problems both runs answered
	OnlyA      int               `json:"only_a"` // answered by one run only: left out
	OnlyB      int               `json:"only_b"`
	Conditions []PairedCondition `json:"conditions"` // those both runs scored
}

// CompareRuns pairs a and b on the problems both answered, condition by
// condition (the conditions of a that b has too, in a's order).
func CompareRuns(a, b Report) RunComparison {
	out := RunComparison{A: a.Run, B: b.Run, Conditions: []PairedCondition{}}
	byID := make(map[string]Item, len(b.Items))
	for _, it := range b.Items {
		byID[it.ID] = it
	}
	var pairs [][2]Item
	for _, it := range a.Items {
		if other, ok := byID[it.ID]; ok {
			pairs = append(pairs, [2]Item{it, other})
			delete(byID, it.ID)
		} else {
			out.OnlyA++
		}
	}
	out.OnlyB, out.Paired = len(byID), len(pairs)
	inB := map[string]bool{}
	for _, c := range b.Conditions {
		inB[c.Name] = true
	}
	for _, c := range a.Conditions {
		if !inB[c.Name] {
			continue
		}
		pc := PairedCondition{Name: c.Name}
		rightA, rightB := 0, 0
		for _, p := range pairs {
			ra, rb := p[0].Conditions[c.Name].Correct, p[1].Conditions[c.Name].Correct
			switch {
			case ra && !rb:
				pc.AOnly++
			case rb && !ra:
				pc.BOnly++
			}
			if ra {
				rightA++
			}
			if rb {
				rightB++
			}
		}
		if n := len(pairs); n > 0 {
			pc.AccuracyA, pc.AccuracyB = float64(rightA)/float64(n), float64(rightB)/float64(n)
			pc.Delta = pc.AccuracyA - pc.AccuracyB
		}
		pc.PValue = McNemarExact(pc.AOnly, pc.BOnly)
		out.Conditions = append(out.Conditions, pc)
	}
	return out
}

// WriteComparison prints a comparison of two runs as a table.
func WriteComparison(w io.Writer, c RunComparison) {
	fmt.Fprintf(w, "parley bench compare · A %s · B %s · %d problems paired", c.A, c.B, c.Paired)
	if c.OnlyA+c.OnlyB > 0 {
		fmt.Fprintf(w, " (%d only in A, %d only in B: left out)", c.OnlyA, c.OnlyB)
	}
	fmt.Fprintf(w, "\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tA\tB\tA − B\tright only in A/B\tMcNemar p\t")
	for _, p := range c.Conditions {
		mark := ""
		if p.PValue < Significant {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%+.1f\t%d/%d\t%.3f%s\t\n", sanitize.Text(p.Name), 100*p.AccuracyA, 100*p.AccuracyB,
			100*p.Delta, p.AOnly, p.BOnly, p.PValue, mark)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\n* exact McNemar p < %.2f on the paired problems\n", Significant)
}
