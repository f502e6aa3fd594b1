// The votes a panel shows under its answer, and its usage line.

package tui

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/providers"
)

// voteMark is one MAGI round's vote as a panel shows it.
type voteMark struct {
	Round int
	Vote  string
	Valid bool
}

// usageFitting is the panel's tokens and cost in at most room cells: the
// cost goes first, then the tokens, rather than a cut figure.
func (p *panel) usageFitting(room int) string {
	for _, u := range []string{usageText(p.usage, p.cost), usageText(p.usage, 0)} {
		if cellWidth(u) <= room {
			return p.th.muted.Render(u)
		}
	}
	return ""
}

func usageText(u providers.Usage, cost float64) string {
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		return ""
	}
	s := fmt.Sprintf(" · %d→%d tok", u.InputTokens, u.OutputTokens)
	if u.ReasoningTokens > 0 {
		s += fmt.Sprintf(" (%d reasoning)", u.ReasoningTokens)
	}
	return s + costText(cost, u)
}

// voteLine shows the votes of each round; when that is wider than width
// (0: any width) the words are shortened, so the last round's vote is never
// the part that gets cut.
func (th *theme) voteLine(votes []voteMark, width int) string {
	line, plain := th.votesText(votes, false)
	if width > 0 && cellWidth(plain) > width {
		line, _ = th.votesText(votes, true)
	}
	return line
}

func (th *theme) votesText(votes []voteMark, short bool) (styled, plain string) {
	parts := make([]string, 0, len(votes))
	plains := make([]string, 0, len(votes))
	for _, v := range votes {
		word := strings.ToUpper(v.Vote)
		st := th.mutedBold
		switch {
		case !v.Valid:
			word, st = "INVALID", th.errBold
		case strings.EqualFold(v.Vote, "approve"):
			st = th.okBold
		case strings.EqualFold(v.Vote, "reject"):
			st = th.errBold
		case strings.EqualFold(v.Vote, "abstain"):
			st = th.warnBold
		}
		if short {
			word = shortVote(word)
		}
		parts = append(parts, fmt.Sprintf("R%d ", v.Round)+st.Render(word))
		plains = append(plains, fmt.Sprintf("R%d %s", v.Round, word))
	}
	sep := "  "
	if short {
		sep = " "
	}
	return strings.Join(parts, sep), strings.Join(plains, sep)
}

// shortVote abbreviates a vote for a narrow panel.
func shortVote(word string) string {
	switch word {
	case "APPROVE":
		return "APPR"
	case "REJECT":
		return "REJ"
	case "ABSTAIN":
		return "ABST"
	case "INVALID":
		return "INV"
	}
	if r := []rune(word); len(r) > 8 { // an answer-type council's answer
		return string(r[:7]) + "…"
	}
	return word
}
