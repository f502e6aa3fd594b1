package web

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// councilPage is the latest council of a session as its page shows it:
// the council's answer (the chairman's, or the fallback), and the peer
// ranking table once stage 2 is over. The script builds the same from the
// council events (app.js: councilRanked, councilDecided).
type councilPage struct {
	Question string
	Ranking  rankingView
	// Fallback is the top-ranked answer standing in for a failed chairman.
	Fallback *entryView
	// FallbackBy names its member; ChairError says why the chairman failed.
	FallbackBy, ChairError string
}

// rankingView is the peer ranking: one row per valid answer, best first,
// one column per ranker with the place it gave; then each ranker's order.
type rankingView struct {
	Rankers []string
	Rows    []rankRow
	Orders  []rankOrder
}

type rankRow struct {
	Member, Display string
	Cells           []string // verdict.CouncilRanking.Cell per ranker
	Mean            string   // "1.50"; "—" when no ranking placed it
	Borda           int
}

type rankOrder struct {
	Text    string // "ChatGPT ranked: Claude › Gemini"
	Invalid bool
}

// viewCouncil builds the page's council from the record.
func viewCouncil(c verdict.CouncilResult, entries []transcript.Entry) *councilPage {
	out := &councilPage{Question: c.Question, Ranking: viewRanking(c)}
	if c.Chairman.Status == verdict.CouncilFailed {
		out.ChairError = c.Chairman.Error
		if fb, ok := c.FallbackAnswer(); ok {
			out.FallbackBy = label(fb.Display, fb.Member)
			for _, en := range entries {
				if en.Turn == fb.Turn {
					v := viewEntry(en)
					out.Fallback = &v
				}
			}
		}
	}
	return out
}

func viewRanking(c verdict.CouncilResult) rankingView {
	var v rankingView
	if len(c.Rankings) == 0 {
		return v
	}
	display := map[string]string{}
	for _, a := range c.Answers {
		display[a.Member] = label(a.Display, a.Member)
	}
	for _, r := range c.Rankings {
		v.Rankers = append(v.Rankers, label(r.Display, r.Ranker))
		if !r.Valid {
			v.Orders = append(v.Orders, rankOrder{Text: fmt.Sprintf("%s's ranking is invalid: %s", label(r.Display, r.Ranker), r.Error), Invalid: true})
			continue
		}
		names := make([]string, len(r.Order))
		for i, m := range r.Order {
			names[i] = label(display[m], m)
		}
		v.Orders = append(v.Orders, rankOrder{Text: label(r.Display, r.Ranker) + " ranked: " + strings.Join(names, " › ")})
	}
	for _, s := range c.Aggregate {
		row := rankRow{Member: s.Member, Display: label(s.Display, s.Member), Mean: "—", Borda: s.Borda}
		if s.Rankings > 0 {
			row.Mean = fmt.Sprintf("%.2f", s.MeanRank)
		}
		for _, r := range c.Rankings {
			row.Cells = append(row.Cells, r.Cell(s.Member))
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
