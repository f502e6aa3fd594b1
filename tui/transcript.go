package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// transcript is the shared history, every entry in order. It renders only
// the entries on screen: the scroll position is an anchor (an entry and a
// line inside it), never an absolute line number, so no frame needs the
// height of the whole history. A finished entry's render is cached by
// (turn, width); a streaming one renders its complete blocks once and only
// its tail per frame.
type transcriptPane struct {
	// entries[i] is turn base+i+1; Turn 0 marks a turn not seen yet. The
	// turns up to base are on disk only (a lazily resumed session): Prepend
	// adds them a page at a time when the view reaches the top.
	entries []transcript.Entry
	base    int
	live    map[int]*streamingText
	cache   map[int]cachedRender
	// answers are the finished answers drawn block by block: a following
	// view renders only the end of a long one.
	answers map[int]*finishedText
	colors  map[string]string // agent name → colour
	clock   func(time.Time) string
	md      *markdown

	follow      bool // stick to the bottom as output arrives
	top, topRow int  // anchor when not following: entry index and line in it
	sel         int  // selected entry index, -1: none
	focused     bool
	mark        string // the search's query in lower case, highlighted where drawn

	// Set by the last View: what was on screen, and the entry of each row
	// (-1: none), for a click.
	firstShown, lastShown, lastFull int
	rowEntry                        []int

	width, height int
}

type cachedRender struct {
	width int
	lines []string
}

func newTranscript(md *markdown, colors map[string]string, clock func(time.Time) string) *transcriptPane {
	return &transcriptPane{live: map[int]*streamingText{}, cache: map[int]cachedRender{}, answers: map[int]*finishedText{}, colors: colors, clock: clock,
		md: md, follow: true, sel: -1, lastShown: -1, lastFull: -1}
}

// SetSize sets the transcript's size.
func (t *transcriptPane) SetSize(w, h int) { t.width, t.height = w, max(h, 1) }

// Len is the latest turn number, loaded or not.
func (t *transcriptPane) Len() int { return t.base + len(t.entries) }

// First is the oldest turn loaded (Len()+1 when none is).
func (t *transcriptPane) First() int { return t.base + 1 }

// Reset replaces every entry (start-up, resume, new session). Of a partly
// loaded session (turn numbers with gaps) only the contiguous tail is
// shown; the older turns come back with Prepend.
func (t *transcriptPane) Reset(entries []transcript.Entry) {
	t.entries = t.entries[:0]
	clear(t.live)
	clear(t.cache)
	clear(t.answers)
	t.base = 0
	tail := len(entries)
	for tail > 0 && (tail == len(entries) || entries[tail].Turn == entries[tail-1].Turn+1) {
		tail--
	}
	if tail < len(entries) && entries[tail].Turn > 1 {
		t.base = entries[tail].Turn - 1
	}
	for _, en := range entries[tail:] {
		t.Put(en)
	}
	t.follow, t.top, t.topRow, t.sel = true, 0, 0, -1
}

// WantsOlder reports whether the view is at the top of what is loaded while
// older turns remain on disk.
func (t *transcriptPane) WantsOlder() bool {
	return t.base > 0 && !t.follow && t.top <= 1
}

// Prepend adds a page of older turns: the ones just before First, oldest
// first. The view stays where it was.
func (t *transcriptPane) Prepend(page []transcript.Entry) {
	if len(page) == 0 || page[len(page)-1].Turn != t.base {
		return // not the page before the loaded turns (a session switch raced it)
	}
	n := t.base - page[0].Turn + 1
	grown := make([]transcript.Entry, n+len(t.entries))
	copy(grown[n:], t.entries)
	t.entries = grown
	t.base -= n
	for _, en := range page {
		if en.Turn > t.base {
			en.Text = Sanitize(en.Text)
			t.entries[en.Turn-1-t.base] = en
		}
	}
	t.top += n
	for _, i := range []*int{&t.sel, &t.firstShown, &t.lastShown, &t.lastFull} {
		if *i >= 0 {
			*i += n
		}
	}
}

// Put adds or replaces an entry at its turn.
func (t *transcriptPane) Put(en transcript.Entry) {
	if en.Turn <= t.base {
		return
	}
	for t.Len() < en.Turn {
		t.entries = append(t.entries, transcript.Entry{})
	}
	en.Text = Sanitize(en.Text)
	t.entries[en.Turn-1-t.base] = en
	delete(t.cache, en.Turn)
	delete(t.answers, en.Turn)
	if en.Status == transcript.StatusStreaming {
		s := &streamingText{}
		s.Append(en.Text)
		t.live[en.Turn] = s
	} else {
		delete(t.live, en.Turn)
	}
}

// Delta appends streamed text to a streaming entry.
func (t *transcriptPane) Delta(turn int, text string) {
	if s := t.live[turn]; s != nil {
		s.Append(text)
	}
}

// Shows reports whether the last View showed a line of the turn, or could
// show one now that it grows (following, an entry at or below the top).
func (t *transcriptPane) Shows(turn int) bool {
	i := turn - 1 - t.base
	if t.lastShown < 0 {
		return true // nothing drawn yet
	}
	return i >= t.firstShown && (t.follow || i <= t.lastShown)
}

// Entry returns the entry with the turn number.
func (t *transcriptPane) Entry(turn int) (transcript.Entry, bool) {
	i := turn - 1 - t.base
	if i < 0 || i >= len(t.entries) || t.entries[i].Turn == 0 {
		return transcript.Entry{}, false
	}
	en := t.entries[i]
	if s := t.live[turn]; s != nil {
		en.Text = s.String()
	}
	return en, true
}

// Selected returns the selected entry.
func (t *transcriptPane) Selected() (transcript.Entry, bool) {
	if t.sel < 0 {
		return transcript.Entry{}, false
	}
	return t.Entry(t.base + t.sel + 1)
}

// bodyWidth is the width left after the selection gutter.
func (t *transcriptPane) bodyWidth() int { return max(t.width-2, 1) }

// item returns the lines of entry i (without gutter), each exactly
// bodyWidth cells wide.
func (t *transcriptPane) item(i int) []string {
	en := t.entries[i]
	if en.Turn == 0 {
		return nil
	}
	w := t.bodyWidth()
	if s := t.live[en.Turn]; s != nil {
		lines := []string{fitLine(t.header(en), w)}
		lines = append(lines, s.Lines(t.md, w)...)
		return append(lines, strings.Repeat(" ", w))
	}
	if c, ok := t.cache[en.Turn]; ok && c.width == w {
		return c.lines
	}
	lines := fitAll(t.render(en, w), w)
	t.cache[en.Turn] = cachedRender{width: w, lines: lines}
	return lines
}

func (t *transcriptPane) header(en transcript.Entry) string {
	name := en.Display
	if name == "" {
		name = en.Speaker
	}
	st := t.md.th.user
	if c, ok := t.colors[en.Speaker]; ok {
		st = t.md.th.agent(c, true, false)
	} else if en.Speaker == transcript.SpeakerSystem {
		st = t.md.th.mutedBold
	}
	parts := []string{t.md.th.muted.Render(t.clock(en.Started)), st.Render(Sanitize(name))}
	var meta []string
	switch en.Kind {
	case transcript.KindNote:
		meta = append(meta, "note")
	case transcript.KindModerator:
		meta = append(meta, "moderator")
	case transcript.KindVote:
		meta = append(meta, "vote")
	case transcript.KindVerdict:
		meta = append(meta, "verdict")
	case transcript.KindOutcome:
		meta = append(meta, "outcome")
	case transcript.KindToolCall, transcript.KindToolResult:
		meta = append(meta, "tool")
	case transcript.KindSummary:
		meta = append(meta, fmt.Sprintf("summary of the turns up to %d, for the prompts", en.Covers))
	}
	switch {
	case en.Kind == transcript.KindModerator && en.Prompt == dialogue.TalkClosingCue:
		meta = append(meta, "closing") // after the last round, not a round of its own
	case en.Round > 0:
		meta = append(meta, fmt.Sprintf("round %d", en.Round))
	}
	if en.Origin != "" && en.Origin != "console" {
		meta = append(meta, "via "+Sanitize(en.Origin)) // another door of a shared session
	}
	switch en.Status {
	case transcript.StatusStreaming:
		meta = append(meta, "streaming…")
	case transcript.StatusCancelled:
		meta = append(meta, "cancelled")
	case transcript.StatusPartial:
		meta = append(meta, "cut off")
	case transcript.StatusError:
		meta = append(meta, "error")
	}
	if en.Usage.OutputTokens > 0 {
		meta = append(meta, fmt.Sprintf("%d tok", en.Usage.OutputTokens))
	}
	if len(meta) > 0 {
		parts = append(parts, t.md.th.muted.Render(strings.Join(meta, " · ")))
	}
	return strings.Join(parts, " ")
}

// render draws a finished entry: header, body, blank separator.
func (t *transcriptPane) render(en transcript.Entry, w int) []string {
	lines := []string{t.header(en)}
	text := en.Text
	switch en.Kind {
	case transcript.KindUser:
		for _, l := range wrapPlain(text, w) {
			lines = append(lines, t.md.th.user.Render(l))
		}
	case transcript.KindNote:
		for _, l := range wrapPlain(text, w) {
			lines = append(lines, t.md.th.muted.Render(l))
		}
	case transcript.KindVote:
		lines = append(lines, t.md.th.voteLine([]voteMark{{Round: en.Round, Vote: en.Vote, Valid: en.Vote != "" && en.Vote != string(verdict.VoteInvalid)}}, 0))
		if s := voteSummary(text); s != "" {
			lines = append(lines, wrapPlain(s, w)...)
		} else if strings.TrimSpace(text) != "" {
			// Not a vote's JSON: the answer as the model sent it, marked.
			lines = append(lines, t.md.th.notParsedBadge())
			lines = append(lines, wrapPlain(text, w)...)
		}
		if en.Error != "" && en.Status != transcript.StatusCancelled {
			for _, l := range wrapPlain(Sanitize(en.Error), w) {
				lines = append(lines, t.md.th.err.Render(l)) // why it is not a vote
			}
		}
	case transcript.KindVerdict:
		lines = append(lines, t.md.th.verdictBanner(strings.ToUpper(Sanitize(en.Vote)), text, w)...)
	case transcript.KindToolCall, transcript.KindToolResult:
		for i, c := range en.ToolCalls {
			lines = append(lines, t.md.th.muted.Render(doneToolLine(c, en.CallEvidence(i))))
		}
		if text != "" {
			body := wrapPlain(text, w)
			if len(body) > 6 {
				body = append(body[:6], "…")
			}
			for _, l := range body {
				lines = append(lines, t.md.th.muted.Render(l))
			}
		}
	case transcript.KindError:
		for _, l := range wrapPlain(firstNonEmpty(text, en.Error), w) {
			lines = append(lines, t.md.th.err.Render(l))
		}
	default:
		lines = append(lines, t.answer(en).All(t.md, w)...)
		if en.Error != "" && en.Status != transcript.StatusCancelled {
			for _, l := range wrapPlain(Sanitize(en.Error), w) {
				lines = append(lines, t.md.th.err.Render(l))
			}
		}
	}
	return append(lines, "")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// answer is a finished entry's text, block by block.
func (t *transcriptPane) answer(en transcript.Entry) *finishedText {
	f := t.answers[en.Turn]
	if f == nil {
		f = newFinishedText(en.Text)
		t.answers[en.Turn] = f
	}
	return f
}

// lazy reports whether an entry is drawn as header, answer and a blank
// line, so its last lines can be drawn without the rest.
func lazy(en transcript.Entry) bool {
	switch en.Kind {
	case transcript.KindUser, transcript.KindNote, transcript.KindVote, transcript.KindVerdict, transcript.KindOutcome, transcript.KindToolCall, transcript.KindToolResult, transcript.KindError:
		return false
	}
	return en.Status != transcript.StatusStreaming && (en.Error == "" || en.Status == transcript.StatusCancelled)
}

// View draws the visible lines, exactly width×height.
func (t *transcriptPane) View() []string {
	h := t.height
	var rows []string
	if t.follow {
		return t.followView()
	}
	t.clampAnchor()
	t.firstShown, t.lastShown, t.lastFull = t.top, -1, -1
	t.rowEntry = t.rowEntry[:0]
	row := t.topRow
	for i := t.top; i < len(t.entries) && len(rows) < h; i++ {
		lines := t.item(i)
		rest := lines[min(row, len(lines)):]
		if len(rows)+len(rest) <= h {
			t.lastFull = i
		}
		if len(rest) > 0 {
			t.lastShown = i
		}
		gutter := "  "
		if i == t.sel {
			gutter = t.md.th.selected.Render("▌ ")
		}
		for _, l := range rest {
			if len(rows) == h {
				break
			}
			rows = append(rows, gutter+t.md.th.highlight(l, t.mark))
			t.rowEntry = append(t.rowEntry, i)
		}
		row = 0
	}
	return padLines(rows, t.width, h)
}

// Click selects the turn drawn on row y of the last View (nothing when
// the row is blank) and reports whether it did.
func (t *transcriptPane) Click(y int) bool {
	if y < 0 || y >= len(t.rowEntry) || t.rowEntry[y] >= len(t.entries) || t.entries[t.rowEntry[y]].Turn == 0 {
		return false
	}
	t.sel = t.rowEntry[y]
	return true
}
