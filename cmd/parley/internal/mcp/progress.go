package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// progress turns a run's events into progress notifications, when the
// client sent a progress token: a member answered, a round finished, a
// vote changed, a ranking was cast.
type progress struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
	n     float64
	votes map[string]string // MAGI: each member's last vote, to tell a change
}

// reportProgress subscribes a progress reporter to r when the call asked for one.
func (r *run) reportProgress(ctx context.Context, req *mcp.CallToolRequest) {
	if req == nil || req.Session == nil || req.Params == nil {
		return
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return
	}
	p := &progress{ctx: ctx, req: req, token: token, votes: map[string]string{}}
	r.subscribe(p.sink)
}

// sink runs on the subscriber's own goroutine: a slow client slows only it.
func (p *progress) sink(ev debate.Event) {
	for _, msg := range p.messages(ev) {
		if p.ctx.Err() != nil {
			return
		}
		p.n++
		_ = p.req.Session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
	}
}

// messages are the progress lines one event is worth (none for most).
func (p *progress) messages(ev debate.Event) []string {
	switch ev := ev.(type) {
	case debate.TurnFinished:
		if ev.Entry.IsAgentTurn() {
			return []string{turnLine(ev.Entry)}
		}
	case debate.Retrying:
		return []string{fmt.Sprintf("%s: retrying (attempt %d): %s", clean(ev.Agent), ev.Attempt, clean(ev.Err))}
	case debate.CapReached:
		return []string{clean(ev.Message)}
	case verdict.MagiRoundFinished:
		return p.magiRound(ev)
	case verdict.MagiDecided:
		if ev.Cancelled {
			return []string{"MAGI: cancelled, no verdict"}
		}
		return []string{"MAGI verdict: " + clean(ev.Sentence)}
	case verdict.CouncilAnswersCollected:
		return []string{fmt.Sprintf("council stage 1: %d answers collected", len(ev.Answers))}
	case verdict.CouncilRankingCast:
		if !ev.Valid {
			return []string{fmt.Sprintf("%s's ranking is invalid: %s", clean(ev.Display), clean(ev.Error))}
		}
		return []string{clean(ev.Display) + " ranked the answers"}
	case verdict.CouncilRanked:
		return []string{"council stage 2: ranking finished; the chairman writes the answer"}
	}
	return nil
}

// turnLine says who answered, and how a turn that did not complete ended.
func turnLine(en transcript.Entry) string {
	who := clean(en.Display)
	if en.Round > 0 {
		who += fmt.Sprintf(" (round %d)", en.Round)
	}
	switch en.Status {
	case transcript.StatusComplete:
	case transcript.StatusCancelled:
		return who + ": cancelled"
	default:
		return fmt.Sprintf("%s: %s: %s", who, en.Status, clean(en.Error))
	}
	if en.Kind == transcript.KindVote && en.Vote != "" {
		return fmt.Sprintf("%s voted %s", who, strings.ToUpper(clean(en.Vote)))
	}
	return fmt.Sprintf("%s answered (%d tokens)", who, en.Usage.Total())
}

// magiRound reports a finished round and every vote that changed in it.
func (p *progress) magiRound(ev verdict.MagiRoundFinished) []string {
	var votes, changes []string
	for _, v := range ev.Votes {
		vote := strings.ToUpper(string(v.Vote))
		if !v.Valid {
			vote = "INVALID"
		}
		votes = append(votes, fmt.Sprintf("%s %s", clean(v.Display), vote))
		if before, ok := p.votes[v.Agent]; ok && before != vote {
			changes = append(changes, fmt.Sprintf("%s changed its vote: %s → %s (round %d)", clean(v.Display), before, vote, ev.Round))
		}
		p.votes[v.Agent] = vote
	}
	out := []string{fmt.Sprintf("MAGI round %d of %d finished: %s", ev.Round, ev.Of, strings.Join(votes, " · "))}
	return append(out, changes...)
}

// clean makes model or provider text safe for a client's screen.
func clean(s string) string { return sanitize.Text(s) }
