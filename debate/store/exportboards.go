package store

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// A MAGI run is exported with its board (each member's vote in each
// round, under the verdict) and a council with its ranking table (under
// its last turn), both as Markdown tables.

// stageNames are a council's three stages as the export heads them.
var stageNames = map[int]string{1: "stage 1, answers", 2: "stage 2, ranking", 3: "stage 3, chairman"}

// turnSuffix places a turn in its run: the round, or a council's stage.
func turnSuffix(en transcript.Entry) string {
	if en.Mode == "council" && stageNames[en.Round] != "" {
		return " — " + stageNames[en.Round]
	}
	return roundSuffix(en.Round)
}

// magiBoard is the board of the MAGI run that ends with entries[end]:
// the votes since the run's question, a row per member, a column per round.
func magiBoard(entries []transcript.Entry, end int) string {
	start := end
	for start > 0 && !(entries[start-1].Kind == transcript.KindUser && !entries[start-1].HostNote() && entries[start-1].Mode == "magi") {
		start--
	}
	votes := map[string]map[int]string{}
	var members []string
	display := map[string]string{}
	rounds := 0
	for _, en := range entries[start:end] {
		if en.Kind != transcript.KindVote {
			continue
		}
		if votes[en.Speaker] == nil {
			votes[en.Speaker] = map[int]string{}
			members = append(members, en.Speaker)
			display[en.Speaker] = firstNonEmpty(en.Display, en.Speaker)
		}
		votes[en.Speaker][en.Round] = firstNonEmpty(en.Vote, "invalid")
		rounds = max(rounds, en.Round)
	}
	if len(members) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| Member |")
	for r := 1; r <= rounds; r++ {
		fmt.Fprintf(&b, " Round %d |", r)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", rounds) + "\n")
	for _, m := range members {
		fmt.Fprintf(&b, "| %s |", tableCell(display[m]))
		for r := 1; r <= rounds; r++ {
			fmt.Fprintf(&b, " %s |", tableCell(firstNonEmpty(strings.ToUpper(votes[m][r]), "—")))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// councilTables maps the turn after which each council's ranking table
// goes (its last turn) to the table.
func councilTables(entries []transcript.Entry) map[int]string {
	councils := verdict.CouncilsOf(entries)
	last := make([]int, len(councils))
	i := -1
	for _, en := range entries {
		if en.Mode != "council" {
			continue
		}
		if en.Kind == transcript.KindUser && !en.HostNote() {
			i++
		}
		if i >= 0 && i < len(last) {
			last[i] = en.Turn
		}
	}
	out := map[int]string{}
	for i, c := range councils {
		if t := councilTable(c); t != "" {
			out[last[i]] = t
		}
	}
	return out
}

// councilTable is the aggregate ranking, best first, then who ranked how.
func councilTable(c verdict.CouncilResult) string {
	if len(c.Aggregate) == 0 {
		return ""
	}
	names := map[string]string{}
	for _, a := range c.Answers {
		names[a.Member] = firstNonEmpty(a.Display, a.Member)
	}
	var b strings.Builder
	b.WriteString("**Council ranking**\n\n| Rank | Member | Borda | Mean rank | Rankings |\n|---|---|---|---|---|\n")
	for i, s := range c.Aggregate {
		mean := "—"
		if s.MeanRank > 0 {
			mean = fmt.Sprintf("%.2f", s.MeanRank)
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %s | %d |\n", i+1, tableCell(firstNonEmpty(s.Display, s.Member)), s.Borda, mean, s.Rankings)
	}
	b.WriteString("\n")
	for _, r := range c.Rankings {
		if !r.Valid {
			fmt.Fprintf(&b, "- %s: no valid ranking (%s)\n", inlineMarkdown(firstNonEmpty(r.Display, r.Ranker)), inlineMarkdown(r.Error))
			continue
		}
		order := slices.Clone(r.Order)
		for i, m := range order {
			order[i] = inlineMarkdown(firstNonEmpty(names[m], m))
		}
		fmt.Fprintf(&b, "- %s ranked: %s\n", inlineMarkdown(firstNonEmpty(r.Display, r.Ranker)), strings.Join(order, " > "))
	}
	if c.Chairman.Fallback != "" {
		fmt.Fprintf(&b, "\nThe chairman failed; the top-ranked answer, %s's, stands in.\n", inlineMarkdown(names[c.Chairman.Fallback]))
	}
	return b.String()
}

func tableCell(s string) string { return strings.ReplaceAll(inlineMarkdown(s), "|", `\|`) }
