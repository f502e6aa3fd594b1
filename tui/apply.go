package tui

import (
	"fmt"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// apply folds one engine event into the console's state, and marks the
// frame to be drawn again unless nothing on screen changed.
func (m *Model) apply(ev debate.Event) {
	if d, ok := ev.(debate.TextDelta); ok {
		m.applyDelta(d)
		return
	}
	m.stale = true
	m.applyEvent(ev)
}

// applyDelta adds streamed text. A delta of a turn that is not on screen
// (its panel hidden behind a tab, its transcript entry above the view)
// updates the state only: no frame is drawn for it.
func (m *Model) applyDelta(ev debate.TextDelta) {
	if ev.Text == "" || !shownField(ev.Field) {
		return // JSON syntax of a structured answer, or a field not shown
	}
	m.tr.Delta(ev.Turn, ev.Text)
	shown := m.tr.Shows(ev.Turn) || m.lay.welcome
	if p := m.byName[ev.Agent]; p != nil {
		state := p.state
		p.Delta(ev.Turn, ev.Text, ev.Field)
		shown = shown || p.state != state || m.panelShown(p)
	}
	m.stale = m.stale || shown
}

// followStream shows a streaming panel's tab when the shown one is not
// streaming and the user has not picked it: after a resize to the tabbed
// layout, what is being written, not a finished answer.
func (m *Model) followStream() {
	if m.tabChosen || len(m.panels) == 0 || (m.active < len(m.panels) && m.panels[m.active].Busy()) {
		return
	}
	for i, p := range m.panels {
		if p.Busy() {
			m.active = i
			return
		}
	}
}

// panelShown reports whether p is on screen: one of the mode's panels, and
// the tab shown when they are tabbed.
func (m *Model) panelShown(p *panel) bool {
	i := m.indexOf(p)
	return i >= 0 && (!m.lay.narrow || i == m.active)
}

func (m *Model) applyEvent(ev debate.Event) {
	switch ev := ev.(type) {
	case debate.SessionStarted:
		m.info = ev.Session
	case debate.SessionUpdated:
		mode := m.info.Mode
		m.info = ev.Session
		if ev.Session.Mode != mode {
			m.refreshPanels()
		}
		mi, _ := m.engine.Modes().Info(m.info.Mode)
		m.keys.forMode(mi, m.info.State[dialogue.StateStepNext] != "")
	case debate.EntryAdded:
		m.tr.Put(ev.Entry)
		switch ev.Entry.Kind {
		case transcript.KindVerdict:
			m.verdict = verdictLine(ev.Entry)
		case transcript.KindError:
			m.setStatus(firstNonEmpty(ev.Entry.Text, ev.Entry.Error), true)
		case transcript.KindUser:
			// A new exchange: the last one's ranking table goes (seen: it
			// stayed on screen through the next council's first stage). The
			// host's note at a checkpoint is no new exchange.
			if !ev.Entry.HostNote() {
				m.council = councilView{}
			}
		}
	case debate.TurnStarted:
		m.tr.Put(ev.Entry)
		p := m.panelFor(ev.Entry.Speaker)
		if p == nil {
			return
		}
		if ev.Entry.Kind == transcript.KindVote && ev.Entry.Round <= 1 {
			m.verdict = ""
		}
		p.Start(ev.Entry)
		// In any layout: a resize to tabs must show what streams.
		if i := m.indexOf(p); i >= 0 && !m.tabChosen && (m.active >= len(m.panels) || !m.panels[m.active].Busy()) {
			m.active = i
		}
	case debate.Retrying:
		if p := m.byName[ev.Agent]; p != nil {
			p.Retry(ev, m.opts.Now())
		}
	case debate.UsageReported:
		if p := m.byName[ev.Agent]; p != nil && p.turn == ev.Turn {
			p.usage, p.cost = ev.Usage, ev.Cost
		}
	case debate.TurnFinished:
		m.tr.Put(ev.Entry)
		m.usage = m.usage.Add(ev.Entry.Usage)
		m.cost += ev.Entry.Cost
		saved, priced := m.engine.Config.CacheSaving(ev.Entry.Model, ev.Entry.Usage, ev.Entry.Started)
		m.cache.Add(ev.Entry.Usage, saved, priced)
		if p := m.byName[ev.Entry.Speaker]; p != nil {
			p.Finish(ev.Entry)
		}
	case debate.FieldCompleted:
		if p := m.byName[ev.Agent]; p != nil {
			p.Field(ev)
		}
	case verdict.VoteCast:
		if p := m.byName[ev.Agent]; p != nil {
			p.Vote(ev)
		}
	case verdict.VerdictReached:
		if ev.Sentence != "" {
			m.verdict = Sanitize(ev.Sentence)
		}
	case debate.ToolActivity:
		if p := m.byName[ev.Agent]; p != nil {
			p.Tool(ev)
		}
	case debate.ToolStarted:
		if p := m.byName[ev.Agent]; p != nil {
			p.NativeToolStarted(ev)
		}
	case debate.ToolFinished:
		if p := m.byName[ev.Agent]; p != nil {
			p.NativeToolFinished(ev)
		}
	case debate.ErrorOccurred:
		if ev.Turn == 0 {
			m.setStatus(ev.Err, true)
		}
	case debate.SpendUpdated:
		m.spend = ev
	case debate.CapReached:
		m.setStatus(ev.Message, true)
	case debate.CheckpointReached:
		m.waiting = &ev
		m.setStatus(Sanitize(ev.Sentence), false)
	case debate.CheckpointAnswered:
		m.waiting = nil
		m.setStatus(Sanitize(ev.Sentence), false)
	case debate.ExchangeFinished:
		m.waiting = nil // a run that ended at its checkpoint (cancelled) waits no more here
		m.host.forget()
		for _, p := range m.byName {
			p.Settle() // a turn that never started settles as cancelled
		}
		if ev.Err == "" {
			// The right of the status line has the mode and the session's
			// totals: the exchange's own count only when it differs.
			done := "done"
			if ev.Usage.InputTokens != m.usage.InputTokens || ev.Usage.OutputTokens != m.usage.OutputTokens {
				done += fmt.Sprintf(" · this exchange %d→%d tok", ev.Usage.InputTokens, ev.Usage.OutputTokens) + costText(ev.Cost, ev.Usage)
			}
			m.setStatus(done, false)
		}
	default:
		m.applyCouncil(ev)
	}
}

// panelFor returns the panel of an agent that is about to speak, adding it
// when the mode shows it now (mention mode grows its panels).
func (m *Model) panelFor(name string) *panel {
	if p := m.byName[name]; p != nil && m.indexOf(p) >= 0 {
		return p
	}
	m.refreshPanels()
	if p := m.byName[name]; p != nil {
		return p
	}
	// An agent the mode does not show (e.g. a helper): keep its state anyway.
	if a, ok := m.engine.Agent(name); ok {
		p := newPanel(a, m.opts.AgentNotes[name], m.th)
		m.byName[name] = p
		return p
	}
	return nil
}

func (m *Model) indexOf(p *panel) int {
	for i, q := range m.panels {
		if q == p {
			return i
		}
	}
	return -1
}

// verdictLine is the banner's words for a saved verdict: the outcome's
// sentence as written by debate (live and resumed read the same), or the
// bare verdict for a session saved before sentences.
func verdictLine(en transcript.Entry) string {
	if text := strings.TrimSpace(Sanitize(en.Text)); text != "" {
		return text
	}
	return strings.ToUpper(Sanitize(en.Vote))
}

// cacheText is " · cache 62% saved $0.0712" once anything was cached.
func cacheText(s spend.CacheStats) string {
	if short := s.Short(); short != "" {
		return " · " + short
	}
	return ""
}

// capText is " · cap $0.0123/$0.50" while a cap is set: what this run
// spent against it.
func capText(s debate.SpendUpdated) string {
	if s.CapUSD <= 0 {
		return ""
	}
	return fmt.Sprintf(" · cap %s/%s", providers.FormatSpend(s.SpentUSD, s.Unknown, s.Estimated), spend.CapString(s.CapUSD))
}

// costText is " · $0.0123", " · $?" when a model had no price, " · ~$0.0123"
// when the usage is Parley's estimate, or nothing when there was nothing
// to pay.
func costText(c float64, u providers.Usage) string {
	if c <= 0 && !u.PriceUnknown {
		return ""
	}
	return " · " + providers.FormatUsageCost(c, u)
}
