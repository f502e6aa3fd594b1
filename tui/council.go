package tui

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

// councilView is what the council's events put on screen besides the
// panels: the ranking table (answers × rankers, mean rank, Borda points)
// after stage 2, tokens and cost per member and stage, and the outcome.
// It is built from events only.
type councilView struct {
	mode     string // the session's mode when the ranking arrived: shown only there
	answers  []debate.CouncilAnswer
	rankings []debate.CouncilRanking
	ranked   []debate.CouncilScore
	// stage3 is the chairman's usage; outcome the failure line, "" while
	// running or when the chairman answered.
	stage3  *debate.CouncilUsage
	outcome string
}

// applyCouncil folds a council event into the console's state.
func (m *Model) applyCouncil(ev debate.Event) {
	switch ev := ev.(type) {
	case debate.CouncilAnswersCollected:
		m.council = councilView{answers: ev.Answers}
		for _, p := range m.byName {
			p.badge = "" // the last council's rankings and fallback
		}
	case debate.CouncilRankingCast:
		if p := m.byName[ev.Ranker]; p != nil {
			p.badge = rankingBadge(ev.CouncilRanking, m.displayOf)
		}
	case debate.CouncilRanked:
		m.council.mode = m.info.Mode
		m.council.rankings, m.council.ranked = ev.Rankings, ev.Aggregate
		// The member panels go back to their answers; the ranking each
		// cast stays as its badge line.
		for _, a := range m.council.answers {
			if p := m.byName[a.Member]; p != nil {
				if en, ok := m.tr.Entry(a.Turn); ok {
					p.Show(en)
				}
			}
		}
	case debate.CouncilDecided:
		m.council.mode = m.info.Mode
		m.council.answers, m.council.rankings, m.council.ranked = ev.Answers, ev.Rankings, ev.Aggregate
		for _, u := range ev.Seats {
			if u.Stage == 3 {
				m.council.stage3 = &u
			}
		}
		ch := ev.Chairman
		if ch.Status == debate.CouncilComplete {
			return
		}
		m.council.outcome = "✗ CHAIRMAN FAILED: " + Sanitize(ch.Error)
		p := m.byName[ch.Seat]
		fb, ok := ev.FallbackAnswer()
		if ok {
			m.council.outcome += " · FALLBACK: the top-ranked answer, by " + Sanitize(fb.Display)
		}
		if p == nil {
			return
		}
		p.state = stateFailed
		p.err = Sanitize(ch.Error)
		if ok {
			p.badge = styles.warnBold.Render("FALLBACK (not the chairman's): top-ranked answer, by " + Sanitize(fb.Display))
			p.answer.SetFinal(Sanitize(fb.Text))
		}
	}
}

// restoreCouncil rebuilds the last council's view from the saved turns
// (after a resume or a session switch): the ranking table, each member's
// ranking badge and its stage-1 answer on its panel, and the outcome — the
// same state its events built live.
func (m *Model) restoreCouncil(entries []debate.Entry) {
	councils := debate.CouncilsOf(entries)
	if len(councils) == 0 {
		return
	}
	last := councils[len(councils)-1]
	if len(last.Aggregate) == 0 {
		return // still in stage 1 or 2: the panels show the turns as they are
	}
	m.applyCouncil(debate.CouncilAnswersCollected{Question: last.Question, Answers: last.Answers})
	for _, r := range last.Rankings {
		m.applyCouncil(debate.CouncilRankingCast{CouncilRanking: r})
	}
	m.applyCouncil(debate.CouncilRanked{Rankings: last.Rankings, Aggregate: last.Aggregate})
	if ch := last.Chairman; ch.Seat != "" {
		if len(last.Seats) == 0 { // the saved turns carry the chairman's usage, not the per-stage list
			last.Seats = []debate.CouncilUsage{{Member: ch.Seat, Display: ch.Display, Model: ch.Model, Stage: 3, Calls: 1, Usage: ch.Usage, Cost: ch.Cost}}
		}
		m.applyCouncil(debate.CouncilDecided{CouncilResult: last})
	}
}

func (m *Model) displayOf(member string) string {
	if p := m.byName[member]; p != nil {
		return p.display
	}
	return member
}

// rankingBadge is a member panel's line for the ranking it cast.
func rankingBadge(r debate.CouncilRanking, display func(string) string) string {
	if !r.Valid {
		return styles.errBold.Render("ranking INVALID") + styles.muted.Render(": "+Sanitize(r.Error))
	}
	names := make([]string, len(r.Order))
	for i, m := range r.Order {
		names[i] = Sanitize(display(m))
	}
	s := styles.okBold.Render("ranked") + " " + strings.Join(names, " › ")
	if r.Attempts > 1 {
		s += styles.muted.Render(" (asked twice)")
	}
	return s
}

// showCouncil reports whether the ranking table is on screen: in the mode
// that ranked, once stage 2 is over.
func (m *Model) showCouncil() bool {
	return m.council.mode != "" && m.council.ranked != nil && m.engine.Current().Name() == m.council.mode
}

// councilHeight is the table's height within room lines (0: not shown).
func (m *Model) councilHeight(room int) int {
	if !m.showCouncil() {
		return 0
	}
	h := 2 + len(m.council.ranked) // title, header, one row per answer
	if m.council.stage3 != nil || m.council.outcome != "" {
		h++
	}
	return min(h, max(room, 0))
}

// councilView draws the ranking table, exactly h lines of w cells.
func (m *Model) councilTable(w, h int) []string {
	if h <= 0 {
		return nil
	}
	c := m.council
	stage := map[int]map[string]debate.CouncilUsage{1: {}, 2: {}}
	for _, a := range c.answers {
		stage[1][a.Member] = debate.CouncilUsage{Usage: a.Usage, Cost: a.Cost}
	}
	for _, r := range c.rankings {
		stage[2][r.Ranker] = debate.CouncilUsage{Usage: r.Usage, Cost: r.Cost}
	}
	nameW := len("answer")
	for _, s := range c.ranked {
		nameW = max(nameW, cellWidth(Sanitize(s.Display)))
	}
	colW := make([]int, len(c.rankings))
	head := fmt.Sprintf(" %-*s", nameW, "answer")
	for i, r := range c.rankings {
		colW[i] = max(cellWidth(Sanitize(r.Display)), 2)
		head += "  " + padRight(Sanitize(r.Display), colW[i])
	}
	// Below narrowWidth the stage columns drop their unit to fit.
	short := w < narrowWidth
	stageW := 20
	if short {
		stageW = 11
	}
	st := func(u debate.CouncilUsage) string {
		if short {
			return strings.TrimSuffix(strings.Replace(stageText(u), " tok", "", 1), " ")
		}
		return stageText(u)
	}
	head += fmt.Sprintf("   mean  Borda   %-*s  %s", stageW, "stage 1 answer", "stage 2 ranking")
	if short {
		head = strings.Replace(head, "stage 1 answer", "stage 1    ", 1)
		head = strings.Replace(head, "stage 2 ranking", "stage 2", 1)
	}
	lines := []string{
		fitLine(styles.bold.Render(" Peer ranking")+styles.muted.Render(" · answers × rankers: place given, — own answer, ✗ invalid ranking"), w),
		fitLine(styles.muted.Render(head), w),
	}
	for i, s := range c.ranked {
		row := fmt.Sprintf(" %s", padRight(Sanitize(s.Display), nameW))
		for j, r := range c.rankings {
			row += "  " + padRight(r.Cell(s.Member), colW[j])
		}
		mean := "    —"
		if s.Rankings > 0 {
			mean = fmt.Sprintf("%5.2f", s.MeanRank)
		}
		row += fmt.Sprintf("  %s  %5d   %s  %s", mean, s.Borda, padRight(st(stage[1][s.Member]), stageW), st(stage[2][s.Member]))
		if i == 0 {
			row = styles.okBold.Render(row)
		}
		lines = append(lines, fitLine(row, w))
	}
	switch {
	case c.outcome != "":
		lines = append(lines, fitLine(styles.errBold.Render(" "+c.outcome), w))
	case c.stage3 != nil:
		lines = append(lines, fitLine(styles.muted.Render(fmt.Sprintf(" stage 3 chairman: %s · council total %s", stageText(*c.stage3), m.councilTotal())), w))
	}
	return fitLines(lines, w, h)
}

// councilTotal is every stage's tokens and cost.
func (m *Model) councilTotal() string {
	var u providers.Usage
	var cost float64
	for _, a := range m.council.answers {
		u, cost = u.Add(a.Usage), cost+a.Cost
	}
	for _, r := range m.council.rankings {
		u, cost = u.Add(r.Usage), cost+r.Cost
	}
	if s := m.council.stage3; s != nil {
		u, cost = u.Add(s.Usage), cost+s.Cost
	}
	return stageText(debate.CouncilUsage{Usage: u, Cost: cost})
}

func stageText(u debate.CouncilUsage) string {
	if u.Usage.Total() == 0 {
		return "—"
	}
	s := fmt.Sprintf("%d→%d tok", u.Usage.InputTokens, u.Usage.OutputTokens)
	if u.Cost > 0 || u.Usage.PriceUnknown {
		s += " " + providers.FormatUsageCost(u.Cost, u.Usage)
	}
	return s
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(w-cellWidth(s), 0))
}
