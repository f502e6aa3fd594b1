// The mouse: the wheel scrolls the pane under the pointer, a click focuses a
// panel or selects a turn.

package tui

import tea "charm.land/bubbletea/v2"

func (m *Model) wheel(msg tea.MouseWheelMsg) {
	const step = 3
	up := msg.Button == tea.MouseWheelUp
	switch {
	case m.overlay != nil:
		if up {
			m.overlay.Scroll(-step)
		} else {
			m.overlay.Scroll(step)
		}
	case msg.Y >= m.lay.panelsY && msg.Y < m.lay.panelsY+m.lay.panelsH && len(m.panels) > 0:
		p := m.panelAt(msg.X)
		if up {
			p.Scroll(step)
		} else {
			p.Scroll(-step)
		}
	default:
		if up {
			m.tr.ScrollUp(step)
		} else {
			m.tr.ScrollDown(step)
		}
	}
}

func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if m.overlay != nil || m.sessions != nil || m.palette != nil || m.evidence != nil {
		return nil
	}
	switch {
	case msg.Y >= m.lay.inputY:
		return m.setFocus(focusInput)
	case msg.Y >= m.lay.transcriptY && msg.Y < m.lay.transcriptY+m.lay.transcriptH:
		// The turn under the pointer is selected, as ↑/↓ would.
		cmd := m.setFocus(focusTranscript)
		m.tr.Click(msg.Y - m.lay.transcriptY)
		return cmd
	case msg.Y >= m.lay.panelsY && msg.Y < m.lay.panelsY+m.lay.panelsH && len(m.panels) > 0:
		switch {
		case !m.lay.narrow:
			m.active, m.tabChosen = min(msg.X/max(m.width/len(m.panels), 1), len(m.panels)-1), true
		case msg.Y == m.tabsY():
			if i := m.tabAt(msg.X); i >= 0 {
				m.active, m.tabChosen = i, true
			}
		}
		return m.setFocus(focusPanels)
	}
	return nil
}

// panelAt is the panel under column x (the shown one when tabbed).
func (m *Model) panelAt(x int) *panel {
	if m.lay.narrow {
		return m.panels[m.active]
	}
	return m.panels[min(x/max(m.width/len(m.panels), 1), len(m.panels)-1)]
}
