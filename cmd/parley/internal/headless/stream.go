package headless

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// conversation prints agent turns in history order. The first unfinished
// turn streams to stdout as its deltas arrive; turns that run beside it
// (parallel @all) are buffered and printed, whole and in order, as soon as
// the ones before them end — so the output is byte for byte what printing
// each finished turn would give, only sooner. The one exception: while the
// first has sent nothing at all, finished turns behind it go first.
type conversation struct {
	p     *Printer
	order []int // started turns not yet printed, oldest first
	turns map[int]*liveTurn
	// lastMultiline says the last printed turn took several lines: the next
	// one is set off by a blank line (Conversation style).
	lastMultiline bool
	printed       int // turns printed in this exchange
	round         int // Talk: round of the last printed turn
}

// liveTurn is one agent turn being printed or waiting its turn.
type liveTurn struct {
	entry    transcript.Entry
	stream   sanitize.Stream
	text     []byte // safe, trimmed text not yet written (kept and reused: a write a delta, no allocation)
	ws       string // trailing whitespace held back (TrimSpace)
	seenText bool
	open     bool // the head has been written: text goes straight out
	multi    bool // a newline has been written or is pending
	finished bool
	streams  bool // plain answer text that may be shown as it arrives
}

func (c *conversation) sink(ev debate.Event) {
	switch ev := ev.(type) {
	case debate.TurnStarted:
		en := ev.Entry
		if en.Kind == transcript.KindSummary {
			return // it condenses the prompts: a note when it is done, not a turn
		}
		c.order = append(c.order, en.Turn)
		c.turns[en.Turn] = &liveTurn{entry: en,
			streams: en.Kind != transcript.KindVote && !c.p.opts.ToolAgents[en.Speaker] && !toolSteps(c.p.opts.Modes, en.Mode)}
	case debate.TextDelta:
		t := c.turns[ev.Turn]
		if t == nil || !t.streams {
			return
		}
		t.add(t.stream.Write(ev.Text))
	case debate.TurnFinished:
		if ev.Entry.Kind == transcript.KindSummary {
			fmt.Fprintln(c.p.err, summaryNote(ev.Entry))
			return
		}
		t := c.turns[ev.Entry.Turn]
		if t == nil {
			return
		}
		t.add(t.stream.Flush())
		t.entry, t.finished = ev.Entry, true
	case debate.ToolActivity:
		if ev.Done {
			fmt.Fprintf(c.p.err, "[%s] %s\n", ev.Agent, sanitize.Text(ToolLine(ev.Call)))
		}
		return
	case debate.EntryAdded:
		// A MAGI verdict follows the last round's votes (all printed by now).
		if ev.Entry.Kind == transcript.KindVerdict && c.p.opts.Style == Conversation {
			c.printWhole(fmt.Sprintf("MAGI verdict: %s", strings.TrimSpace(sanitize.Text(ev.Entry.Text))))
		}
		if ev.Entry.Kind == transcript.KindSummary {
			fmt.Fprintln(c.p.err, summaryNote(ev.Entry))
		}
		return
	default:
		return
	}
	c.flush()
}

// summaryNote says that older turns were condensed for the prompts.
func summaryNote(en transcript.Entry) string {
	return fmt.Sprintf("(turns up to %d summarised for the prompts; the full text stays in the session)", en.Covers)
}

// add takes safe text of the turn, trimming it as strings.TrimSpace would
// trim the whole answer: leading space is dropped, trailing space is held
// until more text follows it.
func (t *liveTurn) add(s string) {
	if !t.seenText {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return
		}
		t.seenText = true
	}
	trimmed := strings.TrimRightFunc(s, unicode.IsSpace)
	if trimmed == "" {
		t.ws += s // only space so far: still held
		return
	}
	if strings.Contains(t.ws, "\n") || strings.Contains(trimmed, "\n") {
		t.multi = true
	}
	t.text = append(append(t.text, t.ws...), trimmed...) // not t.ws + s: a string a delta
	t.ws = s[len(trimmed):]
}

// flush prints what the head of the order allows: finished turns whole,
// the first unfinished one live. A head that has sent no text yet (a slow
// or stalled agent) holds nothing back: turns behind it that are finished
// are printed at once, and it keeps its place for when it speaks.
func (c *conversation) flush() {
	for len(c.order) > 0 {
		t := c.turns[c.order[0]]
		if !t.finished {
			if t.streams {
				c.stream(t)
			}
			if !t.seenText {
				c.finishBehind()
			}
			return
		}
		c.order = c.order[1:]
		delete(c.turns, t.entry.Turn)
		c.finish(t)
	}
}

// finishBehind prints the finished turns behind a silent head, in order.
func (c *conversation) finishBehind() {
	kept := c.order[:1]
	for _, turn := range c.order[1:] {
		if t := c.turns[turn]; t.finished {
			delete(c.turns, turn)
			c.finish(t)
			continue
		}
		kept = append(kept, turn)
	}
	c.order = kept
}

// stream writes the head turn's new text. Its header goes out as soon as
// it is known whether a blank line must precede it: at once for the first
// turn of an exchange or after a multi-line one, else at its first newline.
func (c *conversation) stream(t *liveTurn) {
	if !t.open {
		if len(t.text) == 0 {
			return // the header goes out with the first words
		}
		if c.p.opts.Style == Conversation && c.printed > 0 && !c.lastMultiline && !t.multi {
			return // one line so far: it may stay one line, and then no blank line precedes it
		}
		c.openTurn(t)
	}
	if len(t.text) > 0 {
		_, _ = c.p.out.Write(t.text) // fmt.Fprint boxed the string, and Reset dropped the buffer: two allocations a delta
		t.text = t.text[:0]
	}
}

func (c *conversation) openTurn(t *liveTurn) {
	t.open = true
	if c.p.opts.Style == Talk {
		c.roundHeader(t.entry)
	} else if c.printed > 0 && (t.multi || c.lastMultiline) {
		fmt.Fprintln(c.p.out)
	}
	fmt.Fprintf(c.p.out, "[%s]: ", sanitize.Text(t.entry.Display))
}

// finish prints a finished turn: the rest of a streamed one, or the whole.
func (c *conversation) finish(t *liveTurn) {
	en := t.entry
	if c.p.isToolStep(en) {
		return
	}
	if !t.open && !t.streams || en.Status == transcript.StatusError && !t.seenText {
		c.printWhole(c.body(en))
		return
	}
	if !t.open {
		multi := t.multi || strings.Contains(statusMark(en), "\n")
		if c.p.opts.Style == Conversation && c.printed > 0 && !multi && !c.lastMultiline {
			c.printWhole(c.body(en))
			return
		}
		t.multi = multi
		c.openTurn(t)
	}
	fmt.Fprint(c.p.out, string(t.text)+statusMark(en)+c.tail(en))
	c.done(t.multi)
}

// body is a whole turn as one block of text.
func (c *conversation) body(en transcript.Entry) string {
	if en.Kind == transcript.KindVote {
		return fmt.Sprintf("[%s] round %d vote: %s", sanitize.Text(en.Display), en.Round, voteBody(en))
	}
	if c.p.opts.Style == Talk {
		c.roundHeader(en)
	}
	return fmt.Sprintf("[%s]: %s", sanitize.Text(en.Display), TurnBody(en)) + c.tailOf(en)
}

// tail ends a streamed turn's line.
func (c *conversation) tail(en transcript.Entry) string { return c.tailOf(en) + "\n" }

// tailOf is what follows a turn's text: its tokens in a talk.
func (c *conversation) tailOf(en transcript.Entry) string {
	if c.p.opts.Style != Talk || en.Status == transcript.StatusError && strings.TrimSpace(en.Text) == "" {
		return ""
	}
	return fmt.Sprintf("  (%s tok)", Thousands(en.Usage.Total()))
}

// printWhole prints one turn; in a conversation a blank line sets it off
// from the previous one when either takes several lines, so answers do not
// run together while one-line turns (votes) stay a compact list. A talk
// sets every turn off.
func (c *conversation) printWhole(text string) {
	multi := strings.Contains(text, "\n")
	if c.p.opts.Style == Conversation && c.printed > 0 && (multi || c.lastMultiline) {
		fmt.Fprintln(c.p.out)
	}
	fmt.Fprintln(c.p.out, text)
	c.done(multi)
}

func (c *conversation) done(multi bool) {
	if c.p.opts.Style == Talk {
		fmt.Fprintln(c.p.out)
	}
	c.printed++
	c.lastMultiline = multi
}

// roundHeader prints "── round N ──" before a talk round's first turn; a
// new round that starts with the MC is the closing (the opening is round 0).
func (c *conversation) roundHeader(en transcript.Entry) {
	if en.Round <= c.round {
		return
	}
	switch {
	case en.Round == 0:
	case en.IsModerator:
		fmt.Fprintln(c.p.out, "── closing ──")
	default:
		fmt.Fprintf(c.p.out, "── round %d ──\n", en.Round)
	}
	c.round = en.Round
}

// end forgets the exchange: the next one starts without a blank line.
func (c *conversation) end() {
	c.printed, c.lastMultiline = 0, false
}

// voteBody is a MAGI vote as one line: the vote word and its summary.
func voteBody(en transcript.Entry) string {
	if en.Status != transcript.StatusComplete {
		return TurnBody(en)
	}
	b, err := verdict.ParseVote(en.Text)
	if err != nil {
		return "INVALID (" + sanitize.Text(en.Error) + ")"
	}
	return strings.ToUpper(string(b.Vote)) + " — " + strings.TrimSpace(sanitize.Text(b.Summary))
}
