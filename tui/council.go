package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// councilView is what the council's events put on screen besides the
// panels: the ranking table (answers × rankers, mean rank, Borda points)
// after stage 2, tokens and cost per member and stage, and the outcome.
// It is built from events only.
type councilView struct {
	mode     string // the session's mode when the ranking arrived: shown only there
	answers  []verdict.CouncilAnswer
	rankings []verdict.CouncilRanking
	ranked   []verdict.CouncilScore
	// stage3 is the chairman's usage; outcome the failure line, "" while
	// running or when the chairman answered.
	stage3  *verdict.CouncilUsage
	outcome string
}

// applyCouncil folds a council event into the console's state.
func (m *Model) applyCouncil(ev debate.Event) {
	switch ev := ev.(type) {
	case verdict.CouncilAnswersCollected:
		m.council = councilView{answers: ev.Answers}
		for _, p := range m.byName {
			p.badge = "" // the last council's rankings and fallback
		}
	case verdict.CouncilRankingCast:
		if p := m.byName[ev.Ranker]; p != nil {
			p.badge = m.th.rankingBadge(ev.CouncilRanking, m.displayOf)
		}
	case verdict.CouncilRanked:
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
	case verdict.CouncilDecided:
		m.council.mode = m.info.Mode
		m.council.answers, m.council.rankings, m.council.ranked = ev.Answers, ev.Rankings, ev.Aggregate
		for _, u := range ev.Seats {
			if u.Stage == 3 {
				m.council.stage3 = &u
			}
		}
		ch := ev.Chairman
		if ch.Status == verdict.CouncilComplete {
			return
		}
		sentence := ev.Sentence
		if sentence == "" { // saved before councils wrote their outcome
			sentence = verdict.CouncilSentence(ev.CouncilResult)
		}
		if ch.Status == verdict.CouncilStopped { // the host's choice: no chairman, nothing failed
			m.council.outcome = Sanitize(sentence)
			return
		}
		m.council.outcome = "✗ " + Sanitize(sentence)
		p := m.byName[ch.Seat]
		fb, ok := ev.FallbackAnswer()
		if p == nil {
			return
		}
		p.state = stateFailed
		p.err = Sanitize(ch.Error)
		if ok {
			p.badge = m.th.warnBold.Render("FALLBACK (not the chairman's): top-ranked answer, by " + Sanitize(fb.Display))
			p.answer.SetFinal(Sanitize(fb.Text))
		}
	}
}

// restoreCouncil rebuilds the last council's view from the saved turns
// (after a resume or a session switch): the ranking table, each member's
// ranking badge and its stage-1 answer on its panel, and the outcome — the
// same state its events built live.
func (m *Model) restoreCouncil(entries []transcript.Entry) {
	councils := verdict.CouncilsOf(entries)
	if len(councils) == 0 {
		return
	}
	last := councils[len(councils)-1]
	if len(last.Aggregate) == 0 {
		return // still in stage 1 or 2: the panels show the turns as they are
	}
	m.applyCouncil(verdict.CouncilAnswersCollected{Question: last.Question, Answers: last.Answers})
	for _, r := range last.Rankings {
		m.applyCouncil(verdict.CouncilRankingCast{CouncilRanking: r})
	}
	m.applyCouncil(verdict.CouncilRanked{Rankings: last.Rankings, Aggregate: last.Aggregate})
	if ch := last.Chairman; ch.Seat != "" {
		if len(last.Seats) == 0 { // the saved turns carry the chairman's usage, not the per-stage list
			last.Seats = []verdict.CouncilUsage{{Member: ch.Seat, Display: ch.Display, Model: ch.Model, Stage: 3, Calls: 1, Usage: ch.Usage, Cost: ch.Cost}}
		}
		m.applyCouncil(verdict.CouncilDecided{CouncilResult: last})
	}
}

func (m *Model) displayOf(member string) string {
	if p := m.byName[member]; p != nil {
		return p.display
	}
	return member
}

// rankingBadge is a member panel's line for the ranking it cast.
func (th *theme) rankingBadge(r verdict.CouncilRanking, display func(string) string) string {
	if !r.Valid {
		return th.errBold.Render("ranking INVALID") + th.muted.Render(": "+Sanitize(r.Error))
	}
	names := make([]string, len(r.Order))
	for i, m := range r.Order {
		names[i] = Sanitize(display(m))
	}
	s := th.okBold.Render("ranked") + " " + strings.Join(names, " › ")
	if r.Attempts > 1 {
		s += th.muted.Render(" (asked twice)")
	}
	return s
}

// showCouncil reports whether the ranking table is on screen: in the mode
// that ranked, once stage 2 is over.
func (m *Model) showCouncil() bool {
	return m.council.mode != "" && m.council.ranked != nil && m.engine.Current().Name() == m.council.mode
}

// councilHeight is the table's height within room lines (0: not shown),
// leaving the transcript at least three lines when the whole table fits
// and one when only its compact form does (see councilTable).
func (m *Model) councilHeight(room int) int {
	if !m.showCouncil() {
		return 0
	}
	rows := len(m.council.ranked)
	full := 2 + rows // title, header, one row per answer
	if m.council.stage3 != nil || m.council.outcome != "" {
		full++
	}
	if full <= room-3 {
		return full
	}
	compact := 1 + rows // the header, one row per answer
	if m.council.outcome != "" {
		compact++
	}
	if compact <= room-1 {
		return compact
	}
	return min(rows, max(room-1, 0)) // one self-describing line per answer
}

// councilMinHeight is the least the shown table takes: one line per answer
// (the banner gives up its second line for it).
func (m *Model) councilMinHeight() int {
	if !m.showCouncil() {
		return 0
	}
	return len(m.council.ranked)
}

// tableShape is what the ranking table shows at a given size: a compact
// table drops the title, the stage columns and the stage-3 line, shortens
// the rankers' names and cuts answer names with "…", so that what a user
// reads it for (who came first, each ranker's places, mean and Borda)
// fits 60 columns.
type tableShape struct {
	title, stages bool
	nameW, colW   int // colW 0: each ranker's column as wide as its name
	rankers       bool
}

// councilTable draws the ranking table, exactly h lines of w cells: whole
// when it fits, else compact (see tableShape).
func (m *Model) councilTable(w, h int) []string {
	if h <= 0 {
		return nil
	}
	c := m.council
	nameW := len("answer")
	for _, s := range c.ranked {
		nameW = max(nameW, cellWidth(Sanitize(s.Display)))
	}
	full := 2 + len(c.ranked)
	if c.stage3 != nil || c.outcome != "" {
		full++
	}
	shape := tableShape{title: h >= full, stages: true, nameW: nameW, rankers: true}
	if cellWidth(m.tableRow(-1, shape)) > w {
		shape.stages = false
	}
	if cellWidth(m.tableRow(-1, shape)) > w {
		shape.nameW = min(nameW, 10)
		shape.colW = 3
	}
	if cellWidth(m.tableRow(-1, shape)) > w {
		shape.rankers = false
	}
	if h < 1+len(c.ranked) {
		return m.rankLines(w, h)
	}
	var lines []string
	if shape.title {
		lines = append(lines, fitLine(m.th.bold.Render(" Peer ranking")+m.th.muted.Render(" · answers × rankers: place given, — own answer, ✗ invalid ranking"), w))
	}
	lines = append(lines, fitLine(m.th.muted.Render(m.tableRow(-1, shape)), w))
	for i := range c.ranked {
		row := m.tableRow(i, shape)
		if i == 0 {
			row = m.th.okBold.Render(row)
		}
		lines = append(lines, fitLine(row, w))
	}
	switch {
	case c.outcome != "":
		lines = append(lines, fitLine(m.th.errBold.Render(" "+c.outcome), w))
	case c.stage3 != nil && shape.title:
		lines = append(lines, fitLine(m.th.muted.Render(fmt.Sprintf(" stage 3 chairman: %s · council total %s", stageText(*c.stage3), m.councilTotal())), w))
	}
	return fitLines(lines, w, h)
}

// rankLines is the table's least form, for a screen with room for one
// line per answer and no header: each line says its place, the answer's
// author, its mean rank and Borda points.
func (m *Model) rankLines(w, h int) []string {
	nameW := 0
	for _, s := range m.council.ranked {
		nameW = max(nameW, min(cellWidth(Sanitize(s.Display)), 12))
	}
	var lines []string
	for i, s := range m.council.ranked {
		mean := "—"
		if s.Rankings > 0 {
			mean = fmt.Sprintf("%.2f", s.MeanRank)
		}
		row := fmt.Sprintf(" %d %s  mean %s · Borda %d", i+1, padRight(truncCells(Sanitize(s.Display), nameW), nameW), mean, s.Borda)
		if i == 0 {
			row = m.th.okBold.Render(row)
		}
		lines = append(lines, fitLine(row, w))
	}
	return fitLines(lines, w, h)
}

// tableRow is the table's header (i < 0) or the row of the i-th ranked
// answer, in shape, unstyled.
func (m *Model) tableRow(i int, shape tableShape) string {
	c := m.council
	short := !shape.title || shape.colW > 0
	cell := func(s string, w int) string { return padRight(truncCells(s, w), w) }
	colW := func(r verdict.CouncilRanking) int {
		if shape.colW > 0 {
			return shape.colW
		}
		return max(cellWidth(Sanitize(r.Display)), 2)
	}
	var b strings.Builder
	if i < 0 {
		first := "answer"
		if short {
			first = "ranking"
		}
		b.WriteString(" " + cell(first, max(shape.nameW, len(first))))
		if shape.rankers {
			for _, r := range c.rankings {
				b.WriteString("  " + cell(Sanitize(r.Display), colW(r)))
			}
		}
		b.WriteString("   mean  Borda")
		if shape.stages {
			b.WriteString(m.stageHead())
		}
		return b.String()
	}
	s := c.ranked[i]
	nameW := shape.nameW
	if short {
		nameW = max(nameW, len("ranking"))
	}
	b.WriteString(" " + cell(Sanitize(s.Display), nameW))
	if shape.rankers {
		for _, r := range c.rankings {
			b.WriteString("  " + cell(r.Cell(s.Member), colW(r)))
		}
	}
	mean := "    —"
	if s.Rankings > 0 {
		mean = fmt.Sprintf("%5.2f", s.MeanRank)
	}
	fmt.Fprintf(&b, "  %s  %5d", mean, s.Borda)
	if shape.stages {
		b.WriteString(m.stageCells(s.Member))
	}
	return b.String()
}

// stageWidth is the stage-1 column's width; narrow screens drop the unit.
func (m *Model) stageWidth() (int, bool) {
	if m.width < narrowWidth {
		return 11, true
	}
	return 20, false
}

func (m *Model) stageHead() string {
	w, short := m.stageWidth()
	if short {
		return fmt.Sprintf("   %-*s  %s", w, "stage 1", "stage 2")
	}
	return fmt.Sprintf("   %-*s  %s", w, "stage 1 answer", "stage 2 ranking")
}

// stageCells are a member's tokens and cost in stages 1 and 2.
func (m *Model) stageCells(member string) string {
	var one, two verdict.CouncilUsage
	for _, a := range m.council.answers {
		if a.Member == member {
			one = verdict.CouncilUsage{Usage: a.Usage, Cost: a.Cost}
		}
	}
	for _, r := range m.council.rankings {
		if r.Ranker == member {
			two = verdict.CouncilUsage{Usage: r.Usage, Cost: r.Cost}
		}
	}
	w, short := m.stageWidth()
	st := func(u verdict.CouncilUsage) string {
		if short {
			return strings.TrimSuffix(strings.Replace(stageText(u), " tok", "", 1), " ")
		}
		return stageText(u)
	}
	return fmt.Sprintf("   %s  %s", padRight(st(one), w), st(two))
}

// truncCells cuts s to w cells, ending in "…" when cut.
func truncCells(s string, w int) string {
	if cellWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
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
	return stageText(verdict.CouncilUsage{Usage: u, Cost: cost})
}

func stageText(u verdict.CouncilUsage) string {
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
