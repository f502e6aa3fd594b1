package verdict

import (
	"strings"

	"github.com/parleyhq/parley/internal/lazyregexp"

	"github.com/parleyhq/parley/debate/transcript"
)

// councilMode is the council's mode name (debate.ModeCouncil), as its
// entries are saved; verdict cannot import the engine that names it.
const councilMode = "council"

// CouncilsOf reads every council of a history back from its entries, in
// order, as the events told them: stage-1 answers, the last ranking each
// member cast (read from the record rankingRecord wrote and the label
// legend of its prompt), the aggregate, and the chairman's answer or its
// failure with the fallback. A council still running has what has
// settled so far; Rankings stays empty until every member has ranked.
func CouncilsOf(entries []transcript.Entry) []CouncilResult {
	var out []CouncilResult
	var stage3 []bool // per council: the chairman's turn or failure is in
	var cur *CouncilResult
	for _, en := range entries {
		if en.Mode != councilMode {
			continue
		}
		if en.HostNote() {
			continue // not a new question
		}
		if en.Kind == transcript.KindUser {
			out = append(out, CouncilResult{Question: en.Text, Answers: []CouncilAnswer{}, Rankings: []CouncilRanking{}, Aggregate: []CouncilScore{}})
			cur = &out[len(out)-1]
			stage3 = append(stage3, false)
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case en.Kind == transcript.KindOutcome:
			cur.Sentence = en.Text // as the mode wrote it
		case en.Kind == transcript.KindReply && en.Round == 1:
			cur.Answers = append(cur.Answers, CouncilAnswer{Member: en.Speaker, Display: en.Display, Provider: en.Provider, Model: en.Model,
				Text: en.Text, Status: string(en.Status), Error: en.Error, Turn: en.Turn, Usage: en.Usage, Cost: en.Cost})
		case en.Kind == transcript.KindReply && en.Round == 2 && en.Status.Finished():
			setRanking(cur, rankingOf(en))
		case en.Kind == transcript.KindReply && en.Round == 3:
			stage3[len(out)-1] = true
			cur.Chairman = CouncilChair{Seat: en.Speaker, Display: en.Display, Provider: en.Provider, Model: en.Model,
				Text: en.Text, Status: CouncilFailed, Error: en.Error, Turn: en.Turn, Usage: en.Usage, Cost: en.Cost}
			if en.Status == transcript.StatusComplete && strings.TrimSpace(en.Text) != "" {
				cur.Chairman.Status = CouncilComplete
			}
		case en.Kind == transcript.KindError && en.Round == 3:
			stage3[len(out)-1] = true
			cur.Chairman.Status, cur.Chairman.Error = CouncilFailed, en.Error
		}
	}
	for i := range out {
		settleRecord(&out[i], stage3[i])
	}
	return out
}

// setRanking keeps a member's last ranking (a retry replaces the first).
func setRanking(c *CouncilResult, r CouncilRanking) {
	for i := range c.Rankings {
		if c.Rankings[i].Ranker == r.Ranker {
			r.Attempts = c.Rankings[i].Attempts + 1
			c.Rankings[i] = r
			return
		}
	}
	c.Rankings = append(c.Rankings, r)
}

// settleRecord completes stage 2 once it is over (every member ranked, or
// stage 3 began): a member that had nothing to rank gets the invalid
// ranking the council gave it, in council order; then the aggregate, and
// the fallback of a chairman that failed.
func settleRecord(c *CouncilResult, stage3 bool) {
	if !stage3 && (len(c.Rankings) == 0 || len(c.Rankings) < len(c.Answers)) {
		c.Rankings = []CouncilRanking{}
		return
	}
	byRanker := map[string]CouncilRanking{}
	for _, r := range c.Rankings {
		byRanker[r.Ranker] = r
	}
	rankings := make([]CouncilRanking, 0, len(c.Answers))
	for _, a := range c.Answers {
		r, ok := byRanker[a.Member]
		if !ok {
			r = CouncilRanking{Ranker: a.Member, Display: a.Display, Labels: map[string]string{}, Order: []string{}, Error: "no other member's answer to rank"}
		}
		rankings = append(rankings, r)
	}
	c.Rankings = rankings
	c.Aggregate = Aggregate(c.Answers, c.Rankings)
	if c.Chairman.Status == CouncilFailed && len(c.Aggregate) > 0 {
		c.Chairman.Fallback = c.Aggregate[0].Member
	}
}

var (
	legendRE    = lazyregexp.New(`^Council ranking[^(]*\((.*)\): `)
	rankedItems = lazyregexp.New(`\d+\. .*? \((Response [A-Z][0-9]*)\)(?:, |$)`)
)

// rankingOf reads one ranking turn back: the prompt's legend maps labels
// to members, the record's first line lists labels best first.
func rankingOf(en transcript.Entry) CouncilRanking {
	r := CouncilRanking{Ranker: en.Speaker, Display: en.Display, Labels: map[string]string{}, Order: []string{},
		Attempts: 1, Turn: en.Turn, Usage: en.Usage, Cost: en.Cost, Error: en.Error}
	if m := legendRE.FindStringSubmatch(en.Prompt); m != nil {
		for _, pair := range strings.Split(m[1], ", ") {
			if label, member, ok := strings.Cut(pair, " = "); ok {
				r.Labels[label] = member
			}
		}
	}
	if en.Status != transcript.StatusComplete || en.Error != "" {
		if r.Error == "" {
			r.Error = string(en.Status)
		}
		return r
	}
	first, eval, _ := strings.Cut(en.Text, "\n\n")
	list, ok := strings.CutPrefix(first, "Ranking, best first: ")
	if !ok {
		r.Error = "the record holds no ranking"
		return r
	}
	seen := map[string]bool{}
	for _, m := range rankedItems.FindAllStringSubmatch(list, -1) {
		if member, ok := r.Labels[m[1]]; ok && !seen[member] {
			seen[member] = true
			r.Order = append(r.Order, member)
		}
	}
	if len(r.Order) == 0 || len(r.Order) != len(r.Labels) {
		r.Order, r.Error = []string{}, "the record's ranking does not match its labels"
		return r
	}
	r.Valid, r.Evaluation = true, strings.TrimSpace(eval)
	return r
}
