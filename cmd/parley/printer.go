package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

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
	turns  map[int]debate.Entry // every finished turn of the exchange, for the totals (a tool loop's last turn finishes twice)
	// onEntry, when set, prints entries the plain printer leaves alone
	// (votes, verdicts, tool activity) for mode-specific commands.
	onEntry func(debate.Entry)
	quiet   bool // print nothing for turns (a mode command prints its own)
}

func newPrinter(out, errOut io.Writer, json bool) *printer {
	return &printer{out: out, errOut: errOut, json: json, done: map[int]debate.Entry{}, silent: map[int]bool{}, turns: map[int]debate.Entry{}}
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
		fmt.Fprintf(p.errOut, "[%s] retrying in %s (attempt %d): %s\n", ev.Agent, ev.Wait.Round(100_000_000), ev.Attempt, ev.Err)
	case debate.TurnFinished:
		en := ev.Entry
		p.turns[en.Turn] = en
		if call, err := tools.ParseCall(en.Text); err == nil && en.Status == debate.StatusComplete {
			if call.Tool == tools.ToolComplete {
				return // the loop rewrites this turn with the summary: print that
			}
			p.silent[en.Turn] = true
		}
		p.done[en.Turn] = en
		p.flush()
	case debate.ToolActivity:
		if ev.Done {
			fmt.Fprintf(p.errOut, "[%s] %s\n", ev.Agent, sanitize(toolLine(ev.Call)))
		}
	case debate.EntryAdded:
		if p.onEntry != nil {
			p.onEntry(ev.Entry)
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
		if p.onEntry != nil && en.Kind != debate.KindReply && en.Kind != debate.KindModerator {
			p.onEntry(en)
			continue
		}
		if !p.quiet && !p.silent[en.Turn] {
			p.printTurn(en)
		}
	}
}

func (p *printer) printTurn(en debate.Entry) {
	fmt.Fprintf(p.out, "[%s]: %s\n", en.Display, turnBody(en))
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

// summary prints the exchange's totals on stderr (stdout stays the answers).
func (p *printer) summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json || len(p.turns) == 0 {
		return
	}
	var usage providers.Usage
	var cost float64
	for _, en := range p.turns {
		usage = usage.Add(en.Usage)
		cost += en.Cost
	}
	fmt.Fprintf(p.errOut, "— %d %s, %s tokens (%s in, %s out), $%.4f\n", len(p.turns), plural(len(p.turns), "turn", "turns"),
		thousands(usage.Total()), thousands(usage.InputTokens), thousands(usage.OutputTokens), cost)
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
