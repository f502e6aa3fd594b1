package headless

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// CouncilHeader is the text printed before a council: question, members
// and chairman (the mode's panels: the members, then the chairman's seat).
func CouncilHeader(question string, seats []*debate.Agent) string {
	var parts []string
	for _, a := range seats {
		parts = append(parts, fmt.Sprintf("%s (%s/%s)", a.Label(), a.Provider.Name(), a.Model))
	}
	chair := ""
	if n := len(parts); n > 1 {
		chair, parts = parts[n-1], parts[:n-1]
	}
	return fmt.Sprintf("Council: %s\nmembers: %s\nchairman: %s\n", sanitize.Text(firstLineOf(question)),
		sanitize.Text(strings.Join(parts, " · ")), sanitize.Text(chair))
}

// chairStream is the chairman's turn in text output: the turn that starts
// after the ranking, streamed as it arrives.
type chairStream struct {
	turn   int // 0 until the chairman's turn starts
	stream sanitize.Stream
	wrote  bool
}

func (p *Printer) council(ev debate.Event) {
	switch ev := ev.(type) {
	case verdict.CouncilAnswersCollected:
		p.chair = nil
		if p.opts.Format == Text {
			p.councilAnswers(ev.Answers)
		}
	case verdict.CouncilRanked:
		if p.opts.Format == Text {
			fmt.Fprintln(p.out, "\nStage 2 · anonymous peer ranking")
			writeRankingTable(p.out, ev.Rankings, ev.Aggregate)
			p.chair = &chairStream{}
		}
	case debate.TurnStarted:
		if c := p.chair; c != nil && c.turn == 0 {
			c.turn = ev.Entry.Turn
			fmt.Fprintf(p.out, "\nStage 3 · chairman (%s, %s/%s)\n", sanitize.Text(ev.Entry.Display), sanitize.Text(ev.Entry.Provider), sanitize.Text(ev.Entry.Model))
		}
	case debate.TextDelta:
		if c := p.chair; c != nil && c.turn == ev.Turn {
			fmt.Fprint(p.out, c.stream.Write(ev.Text))
			c.wrote = true
		}
	case verdict.CouncilDecided:
		if p.opts.Format == JSON {
			_ = writeCouncilJSON(p.out, p.session, ev.CouncilResult)
			return
		}
		p.councilOutcome(ev.CouncilResult)
	}
}

func (p *Printer) councilAnswers(answers []verdict.CouncilAnswer) {
	fmt.Fprintln(p.out, "\nStage 1 · answers")
	for _, a := range answers {
		en := transcript.Entry{Text: a.Text, Status: transcript.Status(a.Status), Error: a.Error}
		fmt.Fprintf(p.out, "\n[%s] (%s, %s tok):\n%s\n", sanitize.Text(a.Display), sanitize.Text(a.Model), Thousands(a.Usage.Total()), TurnBody(en))
	}
}

// writeRankingTable prints answers × rankers (the position each ranker gave
// each answer), then the mean rank and Borda points, best first; invalid
// rankings are listed under it with their reason.
func writeRankingTable(w io.Writer, rankings []verdict.CouncilRanking, agg []verdict.CouncilScore) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "  answer"
	for _, r := range rankings {
		head += "\t" + sanitize.Text(r.Display)
	}
	fmt.Fprintln(tw, head+"\tmean rank\tBorda")
	for _, s := range agg {
		row := "  " + sanitize.Text(s.Display)
		for _, r := range rankings {
			row += "\t" + r.Cell(s.Member)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\n", row, MeanRankText(s), s.Borda)
	}
	_ = tw.Flush()
	for _, r := range rankings {
		if !r.Valid {
			fmt.Fprintf(w, "  ! %s's ranking is invalid: %s\n", sanitize.Text(r.Display), sanitize.Text(r.Error))
		} else if r.Attempts > 1 {
			fmt.Fprintf(w, "  %s's ranking was asked twice\n", sanitize.Text(r.Display))
		}
	}
}

// MeanRankText is the mean rank with two decimals, "—" when unranked.
func MeanRankText(s verdict.CouncilScore) string {
	if s.Rankings == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", s.MeanRank)
}

func (p *Printer) councilOutcome(res verdict.CouncilResult) {
	w := p.out
	ch := res.Chairman
	streamed := p.chair != nil && p.chair.turn > 0
	switch {
	case ch.Status == verdict.CouncilStopped: // no stage 3: the outcome line says where the host stopped
	case streamed:
		fmt.Fprint(w, p.chair.stream.Flush())
		if p.chair.wrote {
			fmt.Fprintln(w)
		}
	default:
		fmt.Fprintf(w, "\nStage 3 · chairman (%s, %s/%s)\n", sanitize.Text(ch.Display), ch.Provider, sanitize.Text(ch.Model))
	}
	p.chair = nil
	switch {
	case ch.Status == verdict.CouncilStopped:
	case ch.Status == verdict.CouncilComplete && streamed:
	case ch.Status == verdict.CouncilComplete:
		fmt.Fprintf(w, "%s\n", strings.TrimSpace(sanitize.Text(ch.Text)))
	default:
		fmt.Fprintln(w)
		printBanner(w, "COUNCIL: the chairman failed")
		fmt.Fprintf(w, "%s\n", sanitize.Text(ch.Error))
		if fb, ok := res.FallbackAnswer(); ok {
			fmt.Fprintf(w, "\nFALLBACK (not the chairman's answer): the top-ranked answer, by %s\n%s\n", sanitize.Text(fb.Display), strings.TrimSpace(sanitize.Text(fb.Text)))
		} else {
			fmt.Fprintln(w, "\nno answer to fall back on")
		}
	}
	fmt.Fprintln(w, "\nTokens and cost")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	calls := 0
	for _, u := range res.Seats {
		fmt.Fprintf(tw, "  %s\tstage %d\t%s\t%s\t%s\t%s\n", sanitize.Text(u.Display), u.Stage, sanitize.Text(u.Model),
			Plural(u.Calls, "1 call", fmt.Sprintf("%d calls", u.Calls)), TokenLine(u.Usage), providers.FormatUsageCost(u.Cost, u.Usage))
		calls += u.Calls
	}
	fmt.Fprintf(tw, "  total\t\t\t%d calls\t%s\t%s\n", calls, TokenLine(res.Usage), providers.FormatUsageCost(res.Cost, res.Usage))
	_ = tw.Flush()
}

// CouncilDocAnswer is a stage-1 answer in the council document.
type CouncilDocAnswer struct {
	Member string `json:"member"`
	Model  string `json:"model"`
	Text   string `json:"text"`
	Status string `json:"status"`
}

// CouncilDocRanking is one member's stage-2 ranking in the council document.
type CouncilDocRanking struct {
	Ranker string            `json:"ranker"`
	Valid  bool              `json:"valid"`
	Labels map[string]string `json:"labels"`
	Order  []string          `json:"order"`
	Error  string            `json:"error,omitempty"`
}

// CouncilDocScore is one answer's aggregate rank in the council document.
type CouncilDocScore struct {
	Member   string  `json:"member"`
	Borda    int     `json:"borda"`
	MeanRank float64 `json:"mean_rank"`
}

// CouncilDocChair is the chairman's answer (or the marked fallback).
type CouncilDocChair struct {
	Member   string `json:"member"`
	Model    string `json:"model"`
	Text     string `json:"text"`
	Status   string `json:"status"`
	Fallback string `json:"fallback,omitempty"`
	Error    string `json:"error,omitempty"`
}

// CouncilDocument is parley council --json's document and the MCP council
// tool's result.
type CouncilDocument struct {
	// SessionID is the session the council was saved in (MCP's council
	// tool sets its own, with the cancelled flag beside it).
	SessionID string              `json:"session_id,omitempty"`
	Question  string              `json:"question"`
	Answers   []CouncilDocAnswer  `json:"answers"`
	Rankings  []CouncilDocRanking `json:"rankings"`
	Aggregate []CouncilDocScore   `json:"aggregate"`
	Chairman  CouncilDocChair     `json:"chairman"`
	Usage     providers.Usage     `json:"usage"`
	Cost      float64             `json:"cost_usd"`
}

// writeCouncilJSON prints the council as one JSON document (council --json).
func writeCouncilJSON(w io.Writer, session string, res verdict.CouncilResult) error {
	enc := sanitize.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	doc := CouncilJSON(res)
	doc.SessionID = session
	return enc.Encode(doc)
}

// CouncilJSON is the council's result as parley council --json prints it.
func CouncilJSON(res verdict.CouncilResult) CouncilDocument {
	out := CouncilDocument{Question: res.Question, Usage: res.Usage, Cost: res.Cost,
		Answers: []CouncilDocAnswer{}, Rankings: []CouncilDocRanking{}, Aggregate: []CouncilDocScore{},
		Chairman: CouncilDocChair{Member: res.Chairman.Member, Model: res.Chairman.Model, Text: res.Chairman.Text,
			Status: res.Chairman.Status, Fallback: res.Chairman.Fallback, Error: res.Chairman.Error}}
	for _, a := range res.Answers {
		out.Answers = append(out.Answers, CouncilDocAnswer{Member: a.Member, Model: a.Model, Text: a.Text, Status: string(a.Status)})
	}
	for _, r := range res.Rankings {
		labels, order := r.Labels, r.Order
		if labels == nil {
			labels = map[string]string{}
		}
		if order == nil {
			order = []string{}
		}
		out.Rankings = append(out.Rankings, CouncilDocRanking{Ranker: r.Ranker, Valid: r.Valid, Labels: labels, Order: order, Error: r.Error})
	}
	for _, s := range res.Aggregate {
		out.Aggregate = append(out.Aggregate, CouncilDocScore{Member: s.Member, Borda: s.Borda, MeanRank: s.MeanRank})
	}
	return out
}
