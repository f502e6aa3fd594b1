package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/tools"
	"github.com/parleyhq/parley/providers"
)

// printer is the headless consumer of engine events. As text it prints each
// agent turn as "[Name]: text" once finished, in history order (parallel turns
// finish in any order but print in configuration order), with retries and
// failures on stderr. As JSON it prints every event as one line.
type printer struct {
	mu     sync.Mutex
	out    io.Writer
	errOut io.Writer
	json   bool
	order  []int                // started turns, oldest first
	done   map[int]debate.Entry // finished, not yet printed
	silent map[int]bool         // finished tool-call replies: shown as tool lines, not text
	turns  map[int]debate.Entry // every finished turn of the exchange, for the totals
	// toolAgents are the agents with tools: true, whose replies may be tool steps.
	toolAgents map[string]bool
	quiet      bool // print nothing for turns (a mode command prints its own)
	// lastMultiline says the last printed turn took several lines: the next
	// one is set off by a blank line (false before the exchange's first).
	lastMultiline bool
	printed       int // turns printed in this exchange
}

func newPrinter(out, errOut io.Writer, json bool) *printer {
	return &printer{out: out, errOut: errOut, json: json, done: map[int]debate.Entry{}, silent: map[int]bool{},
		turns: map[int]debate.Entry{}, toolAgents: map[string]bool{}}
}

// printer returns the app's printer, which knows the agents that may use tools.
func (a *app) printer(json bool) *printer {
	p := newPrinter(a.stdout, a.stderr, json)
	for _, ag := range a.engine.Agents() {
		p.toolAgents[ag.Name] = ag.Tools
	}
	return p
}

// isToolStep reports whether a finished turn is a step of a tool loop (a
// list_file or read_file call, shown as a tool line rather than as text).
// Only agents that may use tools take such steps; a loop's answer carries
// its complete call, and anyone else's text is printed whatever it holds.
func (p *printer) isToolStep(en debate.Entry) bool {
	if !p.toolAgents[en.Speaker] && en.Mode != "agent" || en.Status != debate.StatusComplete || len(en.ToolCalls) > 0 {
		return false
	}
	call, err := tools.ParseCall(en.Text)
	return err == nil && call.Tool != tools.ToolComplete
}

// Sink is the debate.Sink of the printer.
func (p *printer) Sink(ev debate.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		if b, err := debate.MarshalEvent(ev); err == nil {
			fmt.Fprintf(p.out, "%s\n", b)
		}
		return
	}
	switch ev := ev.(type) {
	case debate.TurnStarted:
		p.order = append(p.order, ev.Entry.Turn)
	case debate.Retrying:
		fmt.Fprintln(p.errOut, retryLine(ev))
	case debate.TurnFinished:
		en := ev.Entry
		p.turns[en.Turn] = en
		if p.isToolStep(en) {
			p.silent[en.Turn] = true
		}
		p.done[en.Turn] = en
		p.flush()
	case debate.ToolActivity:
		if ev.Done {
			fmt.Fprintf(p.errOut, "[%s] %s\n", ev.Agent, sanitize(toolLine(ev.Call)))
		}
	case debate.EntryAdded:
		// A MAGI verdict follows the last round's votes (all printed by now).
		if ev.Entry.Kind == debate.KindVerdict && !p.quiet {
			p.printLines(fmt.Sprintf("MAGI verdict: %s", strings.TrimSpace(sanitize(ev.Entry.Text))))
		}
	}
}

func (p *printer) flush() {
	for len(p.order) > 0 {
		en, ok := p.done[p.order[0]]
		if !ok {
			return
		}
		delete(p.done, p.order[0])
		p.order = p.order[1:]
		if !p.quiet && !p.silent[en.Turn] {
			p.printTurn(en)
		}
	}
}

func (p *printer) printTurn(en debate.Entry) {
	if en.Kind == debate.KindVote {
		p.printLines(fmt.Sprintf("[%s] round %d vote: %s", en.Display, en.Round, voteBody(en)))
		return
	}
	p.printLines(fmt.Sprintf("[%s]: %s", en.Display, turnBody(en)))
}

// printLines prints one turn; a blank line sets it off from the previous
// one when either takes several lines, so answers do not run together
// while one-line turns (votes) stay a compact list.
func (p *printer) printLines(text string) {
	multi := strings.Contains(text, "\n")
	if p.printed > 0 && (multi || p.lastMultiline) {
		fmt.Fprintln(p.out)
	}
	fmt.Fprintln(p.out, text)
	p.printed++
	p.lastMultiline = multi
}

// voteBody is a MAGI vote as one line: the vote word and its summary.
func voteBody(en debate.Entry) string {
	if en.Status != debate.StatusComplete {
		return turnBody(en)
	}
	b, err := debate.ParseVote(en.Text)
	if err != nil {
		return "INVALID (" + sanitize(en.Error) + ")"
	}
	return strings.ToUpper(string(b.Vote)) + " — " + strings.TrimSpace(sanitize(b.Summary))
}

// retryLine reports a retry on stderr; the error text came from a server.
func retryLine(ev debate.Retrying) string {
	return fmt.Sprintf("[%s] retrying in %s (attempt %d): %s", ev.Agent, ev.Wait.Round(100*time.Millisecond), ev.Attempt, sanitize(ev.Err))
}

// totalsLine is the closing "— N turns, T tokens (…), $C" line on stderr.
func totalsLine(n int, unit, units string, usage providers.Usage, cost float64) string {
	return fmt.Sprintf("— %d %s, %s tokens (%s in, %s out), $%.4f", n, plural(n, unit, units),
		thousands(usage.Total()), thousands(usage.InputTokens), thousands(usage.OutputTokens), cost)
}

// turnBody is a finished turn's text as the headless commands print it:
// sanitized, its status marked; a failed turn shows its error instead.
func turnBody(en debate.Entry) string {
	text := strings.TrimSpace(sanitize(en.Text))
	switch en.Status {
	case debate.StatusError:
		return "(error) " + sanitize(en.Error)
	case debate.StatusCancelled:
		text += " [cancelled]"
	case debate.StatusPartial:
		text += fmt.Sprintf(" [cut off: %s]", sanitize(en.Error))
	}
	return text
}

// asked is the number of agent turns the exchange has started so far.
func (p *printer) asked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.turns) + len(p.order)
}

// summary prints the exchange's totals on stderr (stdout stays the answers).
func (p *printer) summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.printed, p.lastMultiline = 0, false
	if p.json || len(p.turns) == 0 {
		return
	}
	var usage providers.Usage
	var cost float64
	for _, en := range p.turns {
		usage = usage.Add(en.Usage)
		cost += en.Cost
	}
	fmt.Fprintln(p.errOut, totalsLine(len(p.turns), "turn", "turns", usage, cost))
	p.turns = map[int]debate.Entry{}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
