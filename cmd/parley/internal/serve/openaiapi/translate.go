package openaiapi

import (
	"fmt"
	"strings"
	"sync"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// translator reads one exchange's events and splits them into the two
// texts a Chat Completions client reads: the deliberation (every turn
// that is not the answer, the rounds, rankings and votes) and the answer
// (the turns the core marks as the answer, MAGI's verdict, a council's
// fallback). It knows events, not modes.
type translator struct {
	mu        sync.Mutex
	headings  bool // answers under their agent's name (the "all" model)
	reasoning *channel
	content   *channel

	usage     providers.Usage
	cost      float64
	capped    string // the cap's message, when one stopped the exchange
	failures  []string
	lastReply string // the last complete agent reply: the answer when none was marked
	finished  bool

	// How the answer ended, as the engine's events said: each answer
	// turn's final status, the turns cut at their output limit (an
	// ErrorOccurred of kind truncated), whether any answer text arrived,
	// and whether the core put a whole answer in place of failed turns
	// (a council's fallback).
	answerStatus map[int]transcript.Status
	truncated    map[int]bool
	answered     bool
	standIn      bool
}

// newTranslator sends each stretch of deliberation and answer to the
// given functions (nil: only kept).
func newTranslator(headings bool, onReasoning, onContent func(string)) *translator {
	if onReasoning == nil {
		onReasoning = func(string) {}
	}
	if onContent == nil {
		onContent = func(string) {}
	}
	reasoning := newChannel(onReasoning)
	reasoning.squeeze = true
	return &translator{headings: headings, reasoning: reasoning, content: newChannel(onContent),
		answerStatus: map[int]transcript.Status{}, truncated: map[int]bool{}}
}

// sink is the engine subscriber.
func (t *translator) sink(ev debate.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev := ev.(type) {
	case debate.TurnStarted:
		t.turnStarted(ev)
	case debate.TextDelta:
		t.channelOf(ev.Turn).add(ev.Turn, ev.Text) // model text as sent, as the API's own answers
	case debate.FieldCompleted:
		if t.reasoning.has(ev.Turn) && strings.TrimSpace(ev.Value) != "" {
			t.reasoning.add(ev.Turn, fmt.Sprintf("\n\n*%s: %s*\n\n", clean(ev.Field), clean(ev.Value)))
		}
	case debate.TurnFinished:
		t.turnFinished(ev.Entry)
	case debate.ErrorOccurred:
		if ev.Kind == string(providers.KindTruncated) {
			t.truncated[ev.Turn] = true
		}
	case debate.Retrying:
		t.reasoning.line(fmt.Sprintf("*%s: retrying (attempt %d): %s*", clean(ev.Agent), ev.Attempt, clean(ev.Err)))
	case debate.CapReached:
		t.capped = clean(ev.Message)
		t.reasoning.line("*stopped: " + t.capped + "*")
	case debate.EntryAdded:
		t.entryAdded(ev.Entry)
	case verdict.MagiRoundFinished:
		t.reasoning.line(magiRoundLine(ev))
	case verdict.MagiDecided:
		if !ev.Cancelled {
			t.content.line(magiAnswer(ev.MagiResult))
			t.answered = true
		}
	case debate.ToolFinished: // a member's tool call, as every door words it
		t.reasoning.line(fmt.Sprintf("*%s: %s*", clean(ev.Agent), clean(ev.Marked())))
	case verdict.CouncilRanked:
		t.reasoning.line(rankingLine(ev.Aggregate))
	case verdict.CouncilDecided:
		t.councilDecided(ev.CouncilResult)
	case debate.ExchangeFinished:
		t.usage, t.cost = ev.Usage, ev.Cost
		t.finish()
	}
}

func (t *translator) channelOf(turn int) *channel {
	if t.content.has(turn) {
		return t.content
	}
	return t.reasoning
}

func (t *translator) turnStarted(ev debate.TurnStarted) {
	en := ev.Entry
	if !ev.Answer {
		t.reasoning.open(en.Turn, "**"+clean(en.Display)+"**"+roundOf(en)+"\n\n")
		return
	}
	header := ""
	if t.headings {
		header = "### " + clean(en.Display) + "\n\n"
	}
	t.content.open(en.Turn, header)
}

func roundOf(en transcript.Entry) string {
	what := ""
	if en.Kind == transcript.KindVote {
		what = " votes"
	}
	if en.Round > 0 {
		return fmt.Sprintf("%s · round %d", what, en.Round)
	}
	return what
}

func (t *translator) turnFinished(en transcript.Entry) {
	answer := t.content.has(en.Turn)
	if answer {
		t.answerStatus[en.Turn] = en.Status
		if (en.Status == transcript.StatusComplete || en.Status == transcript.StatusPartial) && strings.TrimSpace(en.Text) != "" {
			t.answered = true
		}
	}
	why := "" // how a turn that is not complete ended
	switch en.Status {
	case transcript.StatusComplete:
		if en.Kind == transcript.KindReply && strings.TrimSpace(en.Text) != "" {
			t.lastReply = en.Text
		}
	case transcript.StatusCancelled:
		why = "cancelled"
	default:
		why = fmt.Sprintf("%s: %s", en.Status, clean(en.Error))
		t.failures = append(t.failures, fmt.Sprintf("%s: %s", clean(en.Display), clean(en.Error)))
	}
	if why == "" {
		t.channelOf(en.Turn).close(en.Turn, "")
		return
	}
	if answer {
		// The answer holds only what the model wrote: how it ended is
		// the response's finish_reason and status, and a line of the
		// deliberation (a chat client keeps content as the reply).
		t.content.close(en.Turn, "")
		t.reasoning.line(fmt.Sprintf("*%s: (%s)*", clean(en.Display), why))
		return
	}
	t.reasoning.close(en.Turn, "\n\n*("+why+")*")
}

func (t *translator) entryAdded(en transcript.Entry) {
	switch en.Kind {
	case transcript.KindNote, transcript.KindError:
		if en.Speaker != transcript.SpeakerUser {
			t.reasoning.line("*" + clean(en.Text) + "*")
		}
	case transcript.KindVerdict, transcript.KindOutcome:
		t.reasoning.line("**" + clean(en.Display) + "**: " + clean(en.Text))
	}
}

func (t *translator) councilDecided(res verdict.CouncilResult) {
	if res.Chairman.Status == verdict.CouncilComplete || res.Cancelled {
		return
	}
	if fb, ok := res.FallbackAnswer(); ok {
		t.content.line(fmt.Sprintf("*The council's chairman failed (%s); the top-ranked answer, by %s:*\n\n%s",
			clean(res.Chairman.Error), clean(fb.Display), fb.Text))
		t.answered, t.standIn = true, true
	}
}

// finish closes both texts; an exchange without a marked answer (a tool
// loop's summary) answers with its last reply.
func (t *translator) finish() {
	if t.finished {
		return
	}
	t.finished = true
	t.reasoning.end()
	if strings.TrimSpace(t.content.text()) == "" && t.lastReply != "" && t.capped == "" {
		t.content.line(t.lastReply)
		t.answered = true
	}
	t.content.end()
}

// How an answer ended (Extension.Status, with finish_reason): whole,
// cut at the output limit, or broken off (a failed or cut stream).
const (
	endWhole     = "complete"
	endTruncated = "truncated"
	endBroken    = "error"
)

// ending says whether any answer arrived and how it ended: the worst of
// the answer turns' statuses as the engine reported them (a turn cut at
// its output limit is truncated; any other partial or failed turn broke
// the answer off), unless the core stood a whole answer in for them.
func (t *translator) ending() (answered bool, end string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	end = endWhole
	if t.standIn {
		return t.answered, end
	}
	for turn, st := range t.answerStatus {
		switch {
		case st == transcript.StatusComplete:
		case st == transcript.StatusPartial && t.truncated[turn]:
			if end == endWhole {
				end = endTruncated
			}
		default:
			end = endBroken
		}
	}
	return t.answered, end
}

// result is what the exchange came to, once its events are all read.
func (t *translator) result() (reasoning, content string, u providers.Usage, cost float64, capped string, failures []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.finish()
	return t.reasoning.text(), t.content.text(), t.usage, t.cost, t.capped, t.failures
}

func magiRoundLine(ev verdict.MagiRoundFinished) string {
	var votes []string
	for _, v := range ev.Votes {
		vote := strings.ToUpper(string(v.Vote))
		if !v.Valid {
			vote = "INVALID"
		}
		votes = append(votes, clean(v.Display)+" "+vote)
	}
	return fmt.Sprintf("**MAGI round %d of %d**: %s", ev.Round, ev.Of, strings.Join(votes, " · "))
}

// magiAnswer is MAGI's verdict as the answer: the outcome's sentence, as
// every door prints it, and each member's summary of its last vote.
func magiAnswer(res verdict.MagiResult) string {
	var b strings.Builder
	sentence := res.Sentence
	if sentence == "" { // a council saved before results carried it
		sentence = verdict.VerdictSentence(&res)
	}
	fmt.Fprintf(&b, "**MAGI verdict: %s**\n", clean(sentence))
	if n := len(res.Rounds); n > 0 {
		b.WriteString("\n")
		for _, v := range res.Rounds[n-1] {
			line := v.Summary
			if !v.Valid {
				line = v.Error
			}
			fmt.Fprintf(&b, "- **%s** (%s): %s\n", clean(v.Display), strings.ToUpper(clean(string(v.Vote))), clean(strings.TrimSpace(line)))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func rankingLine(agg []verdict.CouncilScore) string {
	parts := make([]string, len(agg))
	for i, s := range agg {
		parts[i] = fmt.Sprintf("%d. %s (%d points)", i+1, clean(s.Display), s.Borda)
	}
	return "**Peer ranking**: " + strings.Join(parts, " · ")
}

// clean makes a name, a vote or an error line safe for a client's
// screen; the models' answers go out as they were written.
func clean(s string) string { return sanitize.Text(s) }
