// Panels made again from the record: for the current mode's agents, each
// with its last turn and votes.

package tui

import (
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// refreshPanels makes the panel list match the current mode's agents.
func (m *Model) refreshPanels() {
	m.keys.forMode(m.modeInfo(), m.info.State[dialogue.StateStepNext] != "")
	agents := m.engine.Current().Agents()
	m.panels = m.panels[:0]
	for _, a := range agents {
		p := m.byName[a.Name]
		if p == nil {
			p = newPanel(a, m.opts.AgentNotes[a.Name], m.th)
			if en, ok := m.lastTurnOf(a.Name); ok {
				p.Show(en)
			}
			m.restoreVotes(p)
			m.byName[a.Name] = p
		}
		m.panels = append(m.panels, p)
	}
	if m.active >= len(m.panels) {
		m.active = 0
	}
	m.showFolder()
	m.in.SetPlaceholder(m.modeInfo().Prompt())
	m.layout()
}

// panelsOfMode makes each panel show its agent's latest turn in mode, or
// the mode's hint when it has none: a panel never shows what the agent
// said in another mode (the transcript keeps that).
func (m *Model) panelsOfMode(mode string) {
	mi, _ := m.engine.Modes().Info(mode)
	for i, p := range m.panels {
		if p.Busy() {
			continue
		}
		a, ok := m.engine.Agent(p.name)
		if !ok {
			continue // the council's chairman seat keeps its own panel
		}
		fresh := newPanel(a, m.opts.AgentNotes[a.Name], m.th)
		fresh.width, fresh.height = p.width, p.height
		if en, ok := m.lastTurnIn(a.Name, mode); ok {
			fresh.Show(en)
			m.restoreVotes(fresh)
		} else if !m.welcoming() { // the welcome says it already
			fresh.hint = modeHint(mi)
		}
		m.panels[i], m.byName[a.Name] = fresh, fresh
	}
	m.showFolder()
}

// lastTurnIn finds an agent's latest turn in mode.
func (m *Model) lastTurnIn(name, mode string) (transcript.Entry, bool) {
	for turn := m.tr.Len(); turn >= m.tr.First(); turn-- {
		en, ok := m.tr.Entry(turn)
		if ok && en.Speaker == name && en.IsAgentTurn() && en.Mode == mode {
			return en, true
		}
	}
	return transcript.Entry{}, false
}

// restoreVotes puts the votes of an agent's latest council on its panel
// (after a resume, or when MAGI mode comes back).
func (m *Model) restoreVotes(p *panel) {
	for turn := m.tr.First(); turn <= m.tr.Len(); turn++ {
		en, ok := m.tr.Entry(turn)
		if !ok || en.Speaker != p.name || en.Kind != transcript.KindVote || en.Status == transcript.StatusStreaming {
			continue
		}
		if en.Round <= 1 {
			p.votes = nil
		}
		p.Vote(verdict.VoteCast{Agent: en.Speaker, Round: en.Round, Vote: en.Vote, Valid: en.Vote != "" && en.Vote != string(verdict.VoteInvalid)})
	}
}

// lastTurnOf finds an agent's latest turn in the transcript.
func (m *Model) lastTurnOf(name string) (transcript.Entry, bool) {
	for turn := m.tr.Len(); turn >= m.tr.First(); turn-- {
		en, ok := m.tr.Entry(turn)
		if ok && en.Speaker == name && en.IsAgentTurn() {
			return en, true
		}
	}
	return transcript.Entry{}, false
}
