package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

// printer is the headless consumer of engine events. As text it prints each
// agent turn as "[Name]: text" once finished, in history order (parallel turns
// finish in any order but print in configuration order), with retries and
// failures on stderr. As JSON it prints every event as one line.
type printer struct {
	mu      sync.Mutex
	out     io.Writer
	errOut  io.Writer
	json    bool
	order   []int                // started turns, oldest first
	done    map[int]debate.Entry // finished, not yet printed
	usage   providers.Usage
	cost    float64
	replies int
	// onEntry, when set, prints entries the plain printer leaves alone
	// (votes, verdicts, tool activity) for mode-specific commands.
	onEntry func(debate.Entry)
	quiet   bool // print nothing for turns (a mode command prints its own)
}

func newPrinter(out, errOut io.Writer, json bool) *printer {
	return &printer{out: out, errOut: errOut, json: json, done: map[int]debate.Entry{}}
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
		p.done[ev.Entry.Turn] = ev.Entry
		p.usage = p.usage.Add(ev.Entry.Usage)
		p.cost += ev.Entry.Cost
		p.replies++
		p.flush()
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
		if !p.quiet {
			p.printTurn(en)
		}
	}
}

func (p *printer) printTurn(en debate.Entry) {
	text := strings.TrimSpace(sanitize(en.Text))
	switch en.Status {
	case debate.StatusError:
		fmt.Fprintf(p.out, "[%s]: (error) %s\n", en.Display, sanitize(en.Error))
		return
	case debate.StatusCancelled:
		text += " [cancelled]"
	case debate.StatusPartial:
		text += fmt.Sprintf(" [cut off: %s]", sanitize(en.Error))
	}
	fmt.Fprintf(p.out, "[%s]: %s\n", en.Display, text)
}

// summary prints the exchange's totals on stderr (stdout stays the answers).
func (p *printer) summary() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json || p.replies == 0 {
		return
	}
	fmt.Fprintf(p.errOut, "— %d %s, %s tokens (%s in, %s out), $%.4f\n", p.replies, plural(p.replies, "turn", "turns"),
		thousands(p.usage.Total()), thousands(p.usage.InputTokens), thousands(p.usage.OutputTokens), p.cost)
	p.usage, p.cost, p.replies = providers.Usage{}, 0, 0
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
