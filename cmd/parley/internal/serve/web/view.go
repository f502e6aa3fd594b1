package web

import (
	"encoding/json"
	"fmt"
	"html/template"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// entryView is one transcript item as the templates need it.
type entryView struct {
	transcript.Entry
	// HTML is the rendered Markdown of a finished agent answer; empty for
	// everything shown as text.
	HTML   template.HTML
	Ballot *verdict.Ballot // a vote entry's parsed answer, nil if unreadable
	Calls  []callView      // its tool calls, worded by the core, with their sources
}

// isMarkdown reports whether an entry's text is a model's prose answer,
// rendered from Markdown once it is finished.
func isMarkdown(e transcript.Entry) bool {
	return (e.Kind == transcript.KindReply || e.Kind == transcript.KindModerator) && e.Status.Finished()
}

func viewEntry(e transcript.Entry) entryView {
	v := entryView{Entry: e, Calls: callsOf(e)}
	if isMarkdown(e) && e.Text != "" {
		v.HTML = RenderMarkdown(e.Text)
	}
	if e.Kind == transcript.KindVote && e.Status.Finished() {
		var b verdict.Ballot
		if json.Unmarshal([]byte(e.Text), &b) == nil && b.Vote != "" {
			v.Ballot = &b
		}
	}
	return v
}

func viewEntries(es []transcript.Entry) []entryView {
	out := make([]entryView, len(es))
	for i, e := range es {
		out[i] = viewEntry(e)
	}
	return out
}

// panelView is one agent column with its latest turn.
type panelView struct {
	Panel
	Index int
	Last  *entryView // the agent's latest turn, nil before its first
}

func viewPanels(modes config.ModeList, panels []Panel, es []transcript.Entry) []panelView {
	out := make([]panelView, len(panels))
	for i, p := range panels {
		out[i] = panelView{Panel: p, Index: i}
		for j := len(es) - 1; j >= 0; j-- {
			// A council member's panel holds its answer; its ranking is
			// in the ranking table and the transcript.
			if es[j].Speaker == p.Name && es[j].IsAgentTurn() && !isRanking(modes, es[j]) {
				ev := viewEntry(es[j])
				out[i].Last = &ev
				break
			}
		}
	}
	return out
}

// council is one MAGI question with its vote board, built from the saved
// entries: each user entry in magi mode starts a council.
type council struct {
	Question string
	Turn     int   // the question's entry
	Rounds   []int // 1..last round seen (at least 3 columns)
	Rows     []boardRow
	Verdict  string // "" until decided
	Tally    string
	Flips    []flipView
	// lastTurn is the council's newest vote or verdict entry (0: none yet).
	lastTurn int
}

// flipView is one vote change, worded as the live board words it.
type flipView struct {
	Text       string // "CASPER: reject → approve (round 1 → 2) CONFORMITY"
	Conformity bool
}

type boardRow struct {
	Agent   string
	Display string
	Cells   []boardCell // one per round
}

type boardCell struct {
	Round   int
	Vote    string // approve, reject, abstain, invalid, "" not yet
	Summary string
	Changed bool // differs from the member's valid vote of the round before
	ballot  *verdict.Ballot
}

// isRanking reports whether an entry is a ranking turn (council's round 2).
func isRanking(modes config.ModeList, e transcript.Entry) bool {
	mi, _ := modes.Info(e.Mode)
	return mi.Layout.RankingRound != 0 && e.Round == mi.Layout.RankingRound
}

// councils reads every MAGI council of a session from its entries, in
// order. members seeds the rows (panel order) so an empty board shows who
// sits on it.
func councils(modes config.ModeList, es []transcript.Entry, members []Panel) []*council {
	var out []*council
	var cur *council
	for _, e := range es {
		if mi, _ := modes.Info(e.Mode); mi.Layout.Board != config.BoardVotes {
			continue
		}
		switch {
		case e.HostNote(): // the host's words at a checkpoint, inside the council
		case e.Kind == transcript.KindUser:
			cur = &council{Question: e.Text, Turn: e.Turn}
			for _, m := range members {
				cur.row(m.Name, label(m.Display, m.Name))
			}
			out = append(out, cur)
		case e.Kind == transcript.KindVote:
			if cur == nil || e.Round < 1 {
				continue
			}
			r := cur.row(e.Speaker, label(e.Display, e.Speaker))
			cell := r.cell(e.Round)
			cur.lastTurn = e.Turn
			cell.Vote = e.Vote
			cell.ballot = nil
			if v := viewEntry(e); v.Ballot != nil {
				cell.Summary, cell.ballot = v.Ballot.Summary, v.Ballot
			}
		case e.Kind == transcript.KindVerdict:
			if cur != nil {
				cur.Verdict = e.Vote
				cur.Tally = e.Text
				cur.lastTurn = e.Turn
			}
		}
	}
	for _, c := range out {
		c.finish()
	}
	return out
}

func label(display, name string) string {
	if display != "" {
		return display
	}
	return name
}

func (c *council) row(agent, display string) *boardRow {
	if r := c.findRow(agent); r != nil {
		return r
	}
	c.Rows = append(c.Rows, boardRow{Agent: agent, Display: display})
	return &c.Rows[len(c.Rows)-1]
}

func (r *boardRow) cell(round int) *boardCell {
	for len(r.Cells) < round {
		r.Cells = append(r.Cells, boardCell{Round: len(r.Cells) + 1})
	}
	return &r.Cells[round-1]
}

// finish pads every row to the same rounds, marks changed votes and
// audits the changes as the council itself does (verdict.AuditFlips), so
// the page and the live board agree on CONFORMITY.
func (c *council) finish() {
	n := 3
	for _, r := range c.Rows {
		n = max(n, len(r.Cells))
	}
	c.Rounds = c.Rounds[:0]
	for i := 1; i <= n; i++ {
		c.Rounds = append(c.Rounds, i)
	}
	rounds := make([][]verdict.MagiVote, 0, n)
	for k := 0; k < n; k++ {
		votes := make([]verdict.MagiVote, 0, len(c.Rows))
		for i := range c.Rows {
			r := &c.Rows[i]
			r.cell(n)
			cell := r.Cells[k]
			v := verdict.MagiVote{Agent: r.Agent, Display: r.Display, Round: k + 1, Valid: valid(cell.Vote)}
			if cell.ballot != nil {
				v.Ballot = *cell.ballot
			}
			v.Vote = verdict.Vote(cell.Vote)
			votes = append(votes, v)
			if k > 0 {
				before := r.Cells[k-1].Vote
				r.Cells[k].Changed = valid(before) && valid(cell.Vote) && before != cell.Vote
			}
		}
		rounds = append(rounds, votes)
	}
	c.Flips = c.Flips[:0]
	for _, f := range verdict.AuditFlips(rounds) {
		display := f.Agent
		if r := c.findRow(f.Agent); r != nil {
			display = r.Display
		}
		text := fmt.Sprintf("%s: %s → %s (round %d → %d)", display, f.From, f.To, f.FromRound, f.ToRound)
		if f.Conformity {
			text += " CONFORMITY"
		} else {
			text += " argued, " + verdict.NewWordsPhrase(f.NewWords)
		}
		c.Flips = append(c.Flips, flipView{Text: text, Conformity: f.Conformity})
	}
}

func (c *council) findRow(agent string) *boardRow {
	for i := range c.Rows {
		if c.Rows[i].Agent == agent {
			return &c.Rows[i]
		}
	}
	return nil
}

func valid(v string) bool { return verdict.Vote(v).Valid() }
