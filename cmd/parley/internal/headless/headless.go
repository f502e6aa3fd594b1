// Package headless renders a debate's event stream for the headless
// commands: as human text that streams, as one JSON document (--json) or as
// JSON Lines of every event as it happens (--jsonl). It reads events only;
// it never calls into a mode.
package headless

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/tools"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// Format is how events are rendered.
type Format int

const (
	Text  Format = iota // human text; answers stream as they arrive
	JSON                // the command's JSON document (see Style)
	JSONL               // every event as one JSON object per line
)

// Style is the shape of a command's output: which events it shows and how.
type Style int

const (
	// Conversation prints "[Name]: text" per agent turn in history order,
	// streaming the first unfinished one (ask, repl). Its JSON is JSON Lines.
	Conversation Style = iota
	// Alternate prints each step's answers with their tokens; JSON is the
	// seed's {"status","turn"} line per step.
	Alternate
	// Talk prints round headers and "[Name]: text  (N tok)", streaming; JSON
	// is one line per turn in the shape of the store's log rows.
	Talk
	// Magi prints each round's votes and the verdict; JSON is one document.
	Magi
	// Agent prints tool calls on stderr and the answer on stdout; JSON is
	// the events, then a summary object.
	Agent
	// Council prints the answers, the ranking table and the chairman's
	// answer (or the marked fallback); JSON is one document.
	Council
)

// Options configure a Printer.
type Options struct {
	Out, Err io.Writer
	Format   Format
	Style    Style
	// Verbose shows each MAGI vote's full reasoning.
	Verbose bool
	// Header is printed before the first event in text (MAGI's question and members).
	Header string
	// ToolAgents are the agents with tools: their replies may be tool
	// steps, shown as tool lines rather than as text.
	ToolAgents map[string]bool
	// QuietRetries leaves retries out of the text (MCP reports them as
	// progress; its result is the outcome).
	QuietRetries bool
	// Modes is the program's modes (how each prints its answers).
	Modes config.ModeList
}

// Printer is the headless consumer of engine events. Its Sink is the
// engine subscriber; EndExchange prints the totals of one exchange.
type Printer struct {
	mu   sync.Mutex
	opts Options
	out  io.Writer
	err  io.Writer

	headerDone bool
	session    string       // the session's ID (magi and council --json carry it)
	named      bool         // this exchange is a named ask (debate.NamedAskStarted)
	conv       conversation // Conversation and Talk styles
	finished   map[int]transcript.Entry
	lastAlt    *dialogue.AlternateStepFinished
	answered   bool                  // Agent: an AgentAnswered was printed
	answer     *debate.AgentAnswered // Agent, JSON: the outcome, printed last
	// slip is the tool-protocol error of the last replies, not yet shown,
	// and slips how many replies in a row made it (Agent).
	slip      string
	slips     int
	started   int // agent turns started in the running exchange
	lastAsked int // agent turns the last finished exchange started
	// Outcome of the last exchange as the events told it.
	noDecision string // why the last MAGI council decided nothing ("": its verdict stands)

	doc exchangeDoc // Conversation, JSON: the exchange's one document

	chair *chairStream // Council, text: the chairman's answer as it streams
	// capped: a cost cap stopped the running exchange (cap_reached).
	capped bool
}

// New returns a Printer writing to o.Out (answers, JSON) and o.Err (retries,
// tool lines, totals).
func New(o Options) *Printer {
	p := &Printer{opts: o, out: o.Out, err: o.Err, finished: map[int]transcript.Entry{}}
	if o.Format != Text && o.Out != nil {
		p.out = sanitize.JSONWriter(o.Out)
	}
	p.conv = conversation{p: p, turns: map[int]*liveTurn{}, round: -1}
	return p
}

// Sink implements debate.Sink.
func (p *Printer) Sink(ev debate.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.(type) {
	case debate.SessionStarted, debate.SessionUpdated:
		// Not yet: the line may be a named ask, which the header of the
		// command's mode (MAGI's members, the council's) does not describe.
	case debate.NamedAskStarted:
		p.headerDone = true
	default:
		if p.opts.Format == Text && !p.headerDone && p.opts.Header != "" {
			fmt.Fprint(p.out, p.opts.Header)
		}
		p.headerDone = true
	}
	switch ev := ev.(type) {
	case debate.TurnStarted:
		p.started++
	case debate.TurnFinished:
		p.finished[ev.Entry.Turn] = ev.Entry
	case debate.CapReached:
		p.capped = true
	case verdict.MagiDecided:
		p.noDecision = sanitize.Text(verdict.NoDecision(&ev.MagiResult))
	case debate.SessionStarted:
		p.session = ev.Session.ID
	case debate.SessionUpdated:
		p.session = ev.Session.ID
	case debate.NamedAskStarted:
		// The exchange is mention's, whatever the command: it prints as ask's.
		p.named = true
		p.doc.session, p.doc.mode = p.session, debate.ModeMention
	case debate.EntryAdded:
		// Parley's own notes (a named ask's sentence, whom @all skipped, a
		// tool limit reached) are said once, in the core, when they happen.
		if en := ev.Entry; en.Kind == transcript.KindNote && en.Speaker == transcript.SpeakerSystem && p.opts.Format == Text {
			p.flushSlip()
			fmt.Fprintln(p.err, "parley: "+sanitize.Text(en.Text))
		}
	case debate.CheckpointAnswered:
		// The checkpoint itself is printed by the host that asks (hostline).
		if p.opts.Format != JSONL {
			p.flushSlip()
			fmt.Fprintln(p.err, "parley: "+sanitize.Text(ev.Sentence))
		}
	}
	if p.opts.Format == JSONL {
		p.line(ev)
		return
	}
	switch ev := ev.(type) { // native tool calls: a line each on stderr, whatever the format of stdout
	case debate.ToolFinished:
		p.flushSlip()
		fmt.Fprintf(p.err, "[%s] %s\n", sanitize.Text(ev.Agent), sanitize.Text(ev.Line()))
		return
	case debate.ToolStarted, debate.EvidenceAdded:
		return
	}
	if p.opts.Format == JSON && p.style() == Conversation {
		p.doc.sink(ev)
		return
	}
	if a, ok := ev.(debate.AgentAnswered); ok && p.opts.Format == JSON && p.style() == Agent {
		answered := a // the one document, printed when the exchange ends; not &a, which put every event's a on the heap
		p.answer = &answered
		return
	}
	if w, ok := ev.(debate.ErrorOccurred); ok && w.Kind == debate.KindOverWorstCase && p.opts.Format == Text {
		p.flushSlip()
		fmt.Fprintln(p.err, "parley: warning:", sanitize.Text(w.Err))
		return
	}
	if r, ok := ev.(debate.Retrying); ok && p.opts.Format == Text {
		if p.opts.QuietRetries {
			return
		}
		p.flushSlip()
		fmt.Fprintln(p.err, retryLine(r))
		return
	}
	if a, ok := ev.(debate.EntryAdded); ok && a.Entry.Kind == transcript.KindOutcome && p.opts.Format == Text {
		p.outcome(a.Entry)
		return
	}
	switch p.style() {
	case Conversation, Talk:
		if p.opts.Format == JSON { // Talk
			if tf, ok := ev.(debate.TurnFinished); ok {
				p.talkJSON(tf.Entry)
			}
			return
		}
		p.conv.sink(ev)
	case Alternate:
		p.alternate(ev)
	case Magi:
		p.magi(ev)
	case Agent:
		p.agent(ev)
	case Council:
		p.council(ev)
	}
}

// outcome prints a mode's outcome sentence as the mode wrote it.
func (p *Printer) outcome(en transcript.Entry) {
	p.flushSlip()
	text := sanitize.Text(en.Text)
	if p.opts.Style == Conversation || p.opts.Style == Talk {
		p.conv.flush()
		p.conv.printWhole(text)
		return
	}
	fmt.Fprintf(p.out, "\n%s\n", text)
}

// line prints ev as one JSON line.
func (p *Printer) line(ev debate.Event) {
	if b, err := debate.MarshalEvent(ev); err == nil {
		fmt.Fprintf(p.out, "%s\n", b)
	}
}

// Asked is the number of agent turns the last finished exchange started.
func (p *Printer) Asked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastAsked
}

// NoDecision is why the last MAGI council seen decided nothing, as the core
// words it (verdict.NoDecision); "" when its verdict stands or none was seen.
func (p *Printer) NoDecision() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.noDecision
}

// style is the shape of this exchange: a named ask prints as ask's.
func (p *Printer) style() Style {
	if p.named {
		return Conversation
	}
	return p.opts.Style
}

// EndExchange prints what closes an exchange in text (totals on stderr)
// and resets the per-exchange state. runErr is the exchange's error.
func (p *Printer) EndExchange(runErr error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conv.end()
	p.flushSlip()
	switch {
	case p.style() == Agent && p.answer != nil:
		p.agentSummary(*p.answer)
	case p.style() == Agent && !p.answered && runErr != nil:
		p.agentSummary(debate.AgentAnswered{Error: runErr.Error()})
	case p.opts.Format == JSON && p.style() == Conversation:
		p.doc.write(p.out, runErr)
	case p.opts.Format == Text && (p.style() == Conversation || p.style() == Talk) && len(p.finished) > 0:
		var usage providers.Usage
		var cost float64
		for _, en := range p.finished {
			usage = usage.Add(en.Usage)
			cost += en.Cost
		}
		fmt.Fprintln(p.err, TotalsLine(len(p.finished), "turn", "turns", usage, cost))
	}
	p.finished = map[int]transcript.Entry{}
	p.answered, p.answer = false, nil
	p.capped, p.named = false, false
	p.lastAsked, p.started = p.started, 0
}

// EndRun prints what closes a whole run: alternate's token saving, once.
func (p *Printer) EndRun() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.Style == Alternate && p.opts.Format == Text && p.lastAlt != nil && p.lastAlt.Totals.Both > 0 {
		t := p.lastAlt.Totals
		ratio := float64(t.Used) / float64(t.Both)
		fmt.Fprintf(p.err, "tokens: %s used vs %s if both answered every step (ratio %.2f); next: %s\n",
			Thousands(t.Used), Thousands(t.Both), ratio, sanitize.Text(p.lastAlt.NextDisplay))
	}
}

// retryLine reports a retry on stderr; the error text came from a server.
func retryLine(ev debate.Retrying) string {
	return fmt.Sprintf("[%s] retrying in %s (attempt %d): %s", ev.Agent, ev.Wait.Round(100*time.Millisecond), ev.Attempt, sanitize.Text(ev.Err))
}

// TotalsLine is the closing "— N turns, T tokens (…), $C" line on stderr.
func TotalsLine(n int, unit, units string, usage providers.Usage, cost float64) string {
	return fmt.Sprintf("— %d %s, %s tokens (%s in, %s out), %s", n, Plural(n, unit, units),
		Thousands(usage.Total()), Thousands(usage.InputTokens), Thousands(usage.OutputTokens), providers.FormatUsageCost(cost, usage))
}

// TurnBody is a finished turn's text as the headless commands print it:
// sanitized, its status marked; a failed turn shows its error instead.
func TurnBody(en transcript.Entry) string {
	text := strings.TrimSpace(sanitize.Text(en.Text))
	if en.Status == transcript.StatusError && text == "" {
		return "(error) " + sanitize.Text(en.Error)
	}
	return text + statusMark(en)
}

// statusMark is what follows an unfinished answer's text.
func statusMark(en transcript.Entry) string {
	switch en.Status {
	case transcript.StatusCancelled:
		return " [cancelled]"
	case transcript.StatusPartial:
		return fmt.Sprintf(" [cut off: %s]", sanitize.Text(en.Error))
	case transcript.StatusError:
		return fmt.Sprintf(" [error: %s]", sanitize.Text(en.Error))
	}
	return ""
}

// toolSteps reports whether a mode's answers are tool loops (agent mode):
// its steps print as tool lines, not as streamed text.
func toolSteps(modes config.ModeList, mode string) bool {
	mi, _ := modes.Info(mode)
	return mi.Layout.ToolSteps
}

// isToolStep reports whether a finished turn is a step of a tool loop (a
// list_file or read_file call, shown as a tool line rather than as text).
func (p *Printer) isToolStep(en transcript.Entry) bool {
	if !p.opts.ToolAgents[en.Speaker] && !toolSteps(p.opts.Modes, en.Mode) || en.Status != transcript.StatusComplete || len(en.ToolCalls) > 0 {
		return false
	}
	call, err := tools.ParseCall(en.Text)
	return err == nil && call.Tool != tools.ToolComplete
}

// ToolLine is one tool call on one line: the call and what came of it.
func ToolLine(c transcript.ToolCall) string {
	line := "→ " + c.Tool + " " + c.Parameters["path"]
	if c.Parameters["recursive"] == "true" {
		line += " (recursive)"
	}
	if c.Error != "" {
		return line + " — error: " + c.Error
	}
	head, _, _ := strings.Cut(c.Result, "\n")
	if i := strings.LastIndex(head, ": "); i >= 0 {
		return line + " — " + head[i+2:]
	}
	return line
}

// Plural picks the word for n.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Thousands writes n with thousands separators.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && r != '-' && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
