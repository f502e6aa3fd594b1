package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/fieldstream"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// panelState is what an agent's panel says it is doing.
type panelState int

const (
	stateIdle panelState = iota
	stateThinking
	stateStreaming
	stateRetrying
	stateDone
	stateCancelled
	stateFailed
	stateInvalid // a MAGI vote that could not be read: answered, but no vote
)

// panel shows one agent of the current mode: who it is, what it is doing,
// its current answer as Markdown, and its tokens and cost.
type panel struct {
	th                   *theme
	name, display, model string
	color                string
	note                 string // e.g. the agent's key is missing
	hint                 string // what the mode does, until the agent answers in it
	folder               string // the folder the agent reads (agent mode), shown on its name line
	// badge is a line a mode's events put under the state (the ranking a
	// council member cast, the chairman's fallback); a new question clears it.
	badge string
	// running are the native tool calls in flight: call id → their line.
	running map[string]string

	state      panelState
	kind       transcript.Kind
	turn       int
	round      int
	err        string
	retryUntil time.Time
	answer     streamingText
	usage      providers.Usage
	cost       float64
	votes      []voteMark
	tools      []string
	scroll     int // lines scrolled up from the bottom when focused
	// settled: the last exchange is over. The tool calls of an exchange
	// stay on the panel across its steps (each step is a turn) until the
	// next exchange starts.
	settled bool

	width, height int
}

func newPanel(a *debate.Agent, note string, th *theme) *panel {
	return &panel{th: th, name: a.Name, display: a.Label(), model: a.Model, color: th.agentColour(a.Name, a.Color), note: note, settled: true}
}

// SetSize sets the panel's outer size, border included.
func (p *panel) SetSize(w, h int) { p.width, p.height = w, h }

// Start resets the panel for a new turn of its agent.
func (p *panel) Start(en transcript.Entry) {
	if en.Kind != transcript.KindVote || en.Round <= 1 {
		p.votes = nil // a new question: an earlier council's votes go
	}
	if en.Round <= 1 || p.badge == p.th.notParsedBadge() {
		p.badge = ""
	}
	p.state, p.turn, p.kind, p.round, p.err, p.scroll = stateThinking, en.Turn, en.Kind, en.Round, "", 0
	p.answer.Reset()
	p.usage, p.cost = providers.Usage{}, 0
	if p.settled {
		p.tools = nil
	}
	p.settled = false
	if en.Model != "" {
		p.model = en.Model
	}
}

// notParsedBadge marks a structured answer shown as its own text.
func (th *theme) notParsedBadge() string {
	return th.warnBold.Render("not parsed") + th.muted.Render(": shown as the model sent it")
}

// structuredProse is the argument of a structured answer (a MAGI vote's
// reasoning), as the panel streamed it; false when the text does not read
// as JSON.
func structuredProse(text string) (string, bool) {
	d := fieldstream.NewDecoder()
	var b strings.Builder
	for _, piece := range append(d.Write(text), d.Flush()...) {
		if !piece.Complete && shownField(piece.Field) {
			b.WriteString(piece.Text)
		}
	}
	return strings.TrimLeft(b.String(), "\n"), d.Parsed()
}

// shownField reports whether the console streams a structured answer's
// field: everything but a vote's one-line summary, which the transcript
// shows under the vote once it is in (the reasoning already says it).
func shownField(field string) bool { return field != "summary" }

// Delta appends streamed text of the panel's current turn; field is the
// structured answer's field it belongs to ("" for a plain answer).
func (p *panel) Delta(turn int, text, field string) {
	if turn != p.turn {
		return
	}
	if field == fieldstream.Raw && p.badge == "" {
		p.badge = p.th.notParsedBadge()
	}
	p.streaming()
	p.answer.Append(text)
}

// streaming marks a waiting panel as receiving its answer. The error of
// an attempt that was retried goes: this attempt is not failing (seen: the
// old "rate_limit (HTTP 429)" stayed over the answer streaming under it).
func (p *panel) streaming() {
	if p.state == stateRetrying {
		p.err = ""
	}
	if p.state == stateThinking || p.state == stateRetrying {
		p.state = stateStreaming
	}
}

// Finish settles the panel with its finished entry.
func (p *panel) Finish(en transcript.Entry) {
	if en.Turn != p.turn && p.turn != 0 {
		return
	}
	p.turn, p.kind = en.Turn, en.Kind
	if en.Model != "" {
		p.model = en.Model // who wrote it: after a resume with other keys, not today's model
	}
	text := Sanitize(en.Text)
	if en.Kind == transcript.KindVote {
		if prose, ok := structuredProse(en.Text); ok {
			text = Sanitize(prose) // the argument as it streamed, not the JSON around it
		} else if en.Status == transcript.StatusComplete {
			p.badge = p.th.notParsedBadge()
		}
	}
	p.answer.SetFinal(text)
	p.usage, p.cost = en.Usage, en.Cost
	switch {
	case unreadableVote(en):
		// The model answered, but not a vote it can count: say so, and why
		// (the reason the engine stored), not "done" over an empty panel.
		p.state, p.err = stateInvalid, Sanitize(en.Error)
		return
	}
	switch en.Status {
	case transcript.StatusComplete:
		p.state, p.err = stateDone, ""
	case transcript.StatusCancelled:
		p.state, p.err = stateCancelled, ""
		if debate.IsCapStop(en) {
			p.err = Sanitize(en.Error) // which cap, and what was spent
		}
	case transcript.StatusPartial:
		p.state, p.err = stateFailed, "cut off: "+Sanitize(en.Error)
	default:
		p.state, p.err = stateFailed, Sanitize(en.Error)
	}
}

// unreadableVote reports whether en is a MAGI vote turn that answered
// but could not be read as a vote (the engine stores why in its Error).
func unreadableVote(en transcript.Entry) bool {
	return en.Kind == transcript.KindVote && en.Status == transcript.StatusComplete && en.Vote == string(verdict.VoteInvalid) && en.Error != ""
}

// Show puts a finished entry of the agent on the panel (at start-up or
// after a resume).
func (p *panel) Show(en transcript.Entry) {
	p.turn = en.Turn
	p.Finish(en)
}

// Retry marks the panel as waiting before another attempt.
func (p *panel) Retry(ev debate.Retrying, now time.Time) {
	if ev.Turn != p.turn {
		return
	}
	p.state, p.retryUntil, p.err = stateRetrying, now.Add(ev.Wait), Sanitize(ev.Err)
}

// Vote records a MAGI vote.
func (p *panel) Vote(ev verdict.VoteCast) {
	for i, v := range p.votes {
		if v.Round == ev.Round {
			p.votes[i] = voteMark{ev.Round, Sanitize(ev.Vote), ev.Valid}
			return
		}
	}
	p.votes = append(p.votes, voteMark{ev.Round, Sanitize(ev.Vote), ev.Valid})
}

// Field shows a structured answer's field once it is complete, while the
// turn still streams: a MAGI vote or answer as this round's mark, a
// council ranking as the badge (the parsed vote or ranking replaces it).
func (p *panel) Field(ev debate.FieldCompleted) {
	if ev.Turn != p.turn {
		return
	}
	p.streaming() // the answer is arriving, its prose not yet
	switch {
	case p.kind == transcript.KindVote && (ev.Field == "vote" || ev.Field == "answer"):
		p.Vote(verdict.VoteCast{Round: p.round, Vote: ev.Value, Valid: true})
	case ev.Field == "ranking":
		p.badge = p.th.mutedBold.Render("ranking: ") + Sanitize(ev.Value)
	}
}

// Settle ends an exchange for the panel: a turn that never started is
// cancelled, and the next turn starts a clean panel.
func (p *panel) Settle() {
	p.settled = true
	p.Cancel()
}

// Cancel marks a panel whose turn was still waiting as cancelled.
func (p *panel) Cancel() {
	if p.state == stateThinking || p.state == stateStreaming || p.state == stateRetrying {
		p.state = stateCancelled
	}
}

// Busy reports whether the panel's agent is working.
func (p *panel) Busy() bool {
	return p.state == stateThinking || p.state == stateStreaming || p.state == stateRetrying
}

// Scroll moves the answer by n lines (positive: back).
func (p *panel) Scroll(n int) { p.scroll = max(p.scroll+n, 0) }

// ScrollTop shows the answer from its first line (View bounds the scroll
// by the answer's length); ScrollEnd follows its end again.
func (p *panel) ScrollTop() { p.scroll = math.MaxInt32 }
func (p *panel) ScrollEnd() { p.scroll = 0 }

// stateText is the panel's state line.
func (p *panel) stateText(spin string, now time.Time) string {
	switch p.state {
	case stateThinking:
		return p.th.warn.Render(spin + " thinking")
	case stateStreaming:
		return p.th.ok.Render(spin + " streaming")
	case stateRetrying:
		wait := max(p.retryUntil.Sub(now).Round(time.Second), 0)
		return p.th.warn.Render(fmt.Sprintf("%s retrying in %ds", spin, int(wait.Seconds())))
	case stateDone:
		return p.th.ok.Render("✓ done")
	case stateCancelled:
		return p.th.warn.Render("■ cancelled")
	case stateFailed:
		return p.th.err.Render("✗ error")
	case stateInvalid:
		return p.th.err.Render("✗ not a valid vote")
	}
	return p.th.muted.Render("idle")
}

// View renders the panel at its size. focused draws a bold border.
func (p *panel) View(md *markdown, spin string, now time.Time, focused bool) []string {
	w, h := p.width, p.height
	inner := max(w-4, 1) // border and one space each side
	c := p.color
	name := p.th.agent(c, true, false).Render(p.display)
	// Only what the panel can show is rendered: its height of the answer's
	// end, and what it was scrolled back by.
	body, whole := p.answerTail(md, inner, h+p.scroll)
	if len(body) == 0 && p.state == stateIdle && p.hint != "" {
		for _, l := range wrapPlain(p.hint, inner) {
			body = append(body, p.th.muted.Render(fitLine(l, inner)))
		}
	}
	// A short panel keeps room for the answer: name and state share a line
	// (the model is dropped), and what does not fit of the rest of the head
	// goes (the oldest tool calls first).
	minBody := min(panelMinBody, len(body))
	compact := h-2-minBody < 2+p.extraHeadLines(inner, h)
	where := ""
	if p.folder != "" {
		where = p.th.muted.Render(" · reading " + p.folder)
	}
	// The model goes before anything on the name line is cut.
	nameLine := name + " " + p.th.muted.Render(p.model) + where
	if cellWidth(nameLine) > inner {
		nameLine = name + where
	}
	state := p.stateText(spin, now)
	head := []string{nameLine, state + p.usageFitting(inner-cellWidth(state))}
	if compact {
		lead := name + where + " " + state
		head = []string{lead + p.usageFitting(inner-cellWidth(lead))}
	}
	var errLines []string
	if p.err != "" {
		errLines = wrapStyled(p.th.err, p.err, inner, 3)
	}
	if p.state == stateInvalid {
		head, errLines = append(head, errLines...), nil // why it is no vote: first, even when short
	}
	if p.note != "" {
		head = append(head, p.th.warn.Render(p.note))
	}
	if p.badge != "" {
		// Wrapped, not cut: a council member's ranking is read whole.
		head = append(head, wrapStyledLine(p.badge, inner, 3)...)
	}
	head = append(head, errLines...)
	if len(p.votes) > 0 {
		head = append(head, p.th.voteLine(p.votes, inner))
	}
	tools := p.tools
	keep := max(h/3, 1)
	if compact {
		keep = max(h-2-minBody-len(head), 0)
	}
	if len(tools) > keep {
		tools = tools[len(tools)-keep:]
	}
	for _, t := range tools {
		head = append(head, p.th.muted.Render(t))
	}
	if compact && len(head) > max(h-2-minBody, 1) {
		head = head[:max(h-2-minBody, 1)]
	}
	room := h - 2 - len(head)
	if room < 0 {
		room = 0
	}
	// Follow the end of the answer unless scrolled back (never further
	// back than the first line: the wheel must not wind up a debt).
	p.scroll = min(p.scroll, max(len(body)-room, 0))
	end := len(body) - p.scroll
	start := max(end-room, 0)
	lines := make([]string, 0, h)
	for _, l := range head {
		lines = append(lines, " "+fitLine(l, inner)+" ")
	}
	shown := body[start:end]
	var below string
	if end < len(body) && len(shown) > 2 && !p.Busy() {
		// Lines below (a finished answer shows its start): how many, on the
		// last answer line.
		below = p.th.moreLine("↓", fmt.Sprint(len(body)-end+1), focused, inner)
		shown = shown[:len(shown)-1]
	}
	if start > 0 && len(shown) > 1 && !p.Busy() {
		// Lines above: say how many, on the first answer line.
		n := fmt.Sprint(start + 1)
		if !whole {
			n += "+" // the blocks above are not drawn yet
		}
		lines = append(lines, p.th.moreLine("↑", n, focused, inner))
		shown = shown[1:]
	}
	for _, l := range shown {
		lines = append(lines, " "+l+" ")
	}
	if below != "" {
		lines = append(lines, below)
	}
	if focused {
		return heavyBox(lines, w, h, p.th.agent(c, true, false))
	}
	return drawBoxFitted(lines, w, h, p.th.agent(c, false, false), "")
}

// moreLine says how many answer lines are above or below the panel's
// view, and, when the panel is not focused and the room allows, how to
// reach them; it is never cut.
func (th *theme) moreLine(arrow, n string, focused bool, inner int) string {
	more := arrow + " " + n + " more"
	if how := more + " (2 tabs, then " + arrow + ")"; !focused && cellWidth(how) <= inner {
		more = how // Tab focuses the transcript, Tab again the panels
	}
	return " " + fitLine(th.warn.Render(more), inner) + " "
}

// wrapStyledLine wraps a styled line to width, in at most maxLines lines.
func wrapStyledLine(s string, width, maxLines int) []string {
	if cellWidth(s) <= width {
		return []string{s}
	}
	lines := strings.Split(ansi.Wrap(s, width, ""), "\n")
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	return lines
}

// answerTail is at least n of the answer's last lines and whether they are
// all of it (a finished answer renders only the blocks it needs).
func (p *panel) answerTail(md *markdown, width, n int) ([]string, bool) {
	if f := p.answer.final; f != nil {
		if len(f.blocks) <= wholeBlocks && len(f.text) <= maxFinishedBlock {
			return f.All(md, width), true // cheap enough to count what is above
		}
		return f.Tail(md, width, n)
	}
	return p.answer.tail(md, width, n)
}

// wholeBlocks: a finished answer of at most this many blocks is rendered
// whole, so its panel can say exactly how many lines are above.
const wholeBlocks = 24

// panelMinBody is the fewest answer lines a panel keeps room for.
const panelMinBody = 2

// extraHeadLines counts the head lines under name and state in a w×h
// panel: the note, the error, the votes and the tool calls shown.
func (p *panel) extraHeadLines(w, h int) int {
	n := min(len(p.tools), max(h/3, 1))
	if p.note != "" {
		n++
	}
	if p.err != "" {
		n += min(len(wrapPlain(p.err, w)), 3)
	}
	if len(p.votes) > 0 {
		n++
	}
	return n
}

func wrapStyled(st ink, s string, w, maxLines int) []string {
	lines := wrapPlain(s, w)
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	for i := range lines {
		lines[i] = st.Render(lines[i])
	}
	return lines
}
