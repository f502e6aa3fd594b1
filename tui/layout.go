// The layout: how the screen's height is shared between the banner, the
// panels, the transcript and the input, and the panels' sizes.

package tui

import "fmt"

// layout is where each part of the screen goes, recomputed on resize and
// whenever something changes the heights (banner, input lines, panels).
type layout struct {
	narrow                   bool
	bannerCap, bannerH       int  // lines the banner may take, and takes
	welcome                  bool // sized for the welcome (empty panels)
	panelsY, panelsH         int
	tableH                   int // the council's ranking table, under the panels
	transcriptY, transcriptH int
	inputY                   int
}

// Below minWidth columns, or fewer rows than minHeight, the console shows a
// one-line notice instead of a layout too cramped to use.
const minWidth = 40

// chromeHeight is the height of the parts above and below the panels and
// the transcript: the header, the input (its rule and box), status and help.
func (m *Model) chromeHeight() int { return 1 + m.in.Height() + 1 + len(m.statusLines(m.width)) + 1 }

// panelsMinHeight is the least height of the panel area that still shows
// the shown panel's answer: the border, a compact head (name and state on
// one line), two lines of answer, and the tabs, MAGI votes and verdict
// banner when there are any.
func (m *Model) panelsMinHeight(narrow bool) int {
	if len(m.panels) == 0 {
		return 0
	}
	h := 2 + 1 + panelMinBody
	if narrow {
		h++
	}
	if m.showVerdict() {
		h++
	}
	for _, p := range m.panels {
		if len(p.votes) > 0 {
			h++
			break
		}
	}
	return h
}

// panelsEmptyHeight is the panel area while the session is empty (the
// welcome shows): the border and the head, nothing to answer yet.
func (m *Model) panelsEmptyHeight(narrow bool) int {
	h := 2 + 2
	if narrow {
		h++
	}
	for _, p := range m.panels {
		if p.note != "" {
			h++
			break
		}
	}
	return h
}

// minHeight is the fewest rows the console draws a usable screen in, in
// any mode: the chrome with a one-line input, the banner's first sentence,
// the largest panel minimum (tabs, verdict, votes) and one transcript line.
func (m *Model) minHeight() int {
	return 1 + 2 + 2 + m.bannerMinLines() + (1 + 1 + 2 + 2 + panelMinBody) + 1
}

// tooSmall reports whether the window is below the usable size.
func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < m.minHeight() }

// tooSmallNotice is the one line shown instead of a cramped layout.
func (m *Model) tooSmallNotice() string {
	return fmt.Sprintf("enlarge the window (needs %d×%d)", minWidth, m.minHeight())
}

// layout sizes every component for the current window. Room goes first to
// the header, input, status and help, then to the panels' minimum and one
// transcript line, then to the banner, and what is left is shared.
func (m *Model) layout() {
	w, h := max(m.width, minWidth), max(m.height, 8)
	l := layout{narrow: w < narrowWidth, welcome: m.welcoming()}
	m.in.SetSize(w, 0)
	chrome := m.chromeHeight()
	pmin := m.panelsMinHeight(l.narrow)
	if l.welcome {
		pmin = min(pmin, m.panelsEmptyHeight(l.narrow))
	}
	l.bannerCap = min(bannerMaxLines, max(h-chrome-pmin-1-m.councilMinHeight(), m.bannerMinLines(), 0))
	l.bannerH = len(m.bannerLines(l.bannerCap))
	if h-chrome-pmin-1 < l.bannerH {
		l.bannerCap, l.bannerH = 0, 0 // only when the input has grown on a minimal screen
	}
	rest := max(h-chrome-l.bannerH, 2)
	if len(m.panels) > 0 {
		ph := rest * 45 / 100
		if share := m.modeInfo().Layout.PanelShare; share > 0 {
			ph = rest * share / 100
		}
		if m.showVerdict() {
			ph++
		}
		if l.welcome {
			ph = m.panelsEmptyHeight(l.narrow)
		}
		if m.focus == focusPanels && !l.welcome {
			ph = m.zoomedPanelsHeight(rest, pmin)
		}
		l.panelsH = min(max(ph, pmin), rest-1)
	}
	l.panelsY = 1 + l.bannerH
	l.tableH = m.councilHeight(rest - l.panelsH)
	l.transcriptY = l.panelsY + l.panelsH + l.tableH
	l.transcriptH = max(rest-l.panelsH-l.tableH, 1)
	l.inputY = l.transcriptY + l.transcriptH
	m.lay = l
	m.tr.SetSize(w, l.transcriptH)
	m.help.SetWidth(w)
	m.sizePanels(w, l.panelsH)
	if m.overlay != nil {
		m.overlay.SetSize(min(w-4, 120), max(h-4, 5))
	}
	if m.palette != nil {
		m.palette.SetSize(min(w-2, 100), max(min(h-2, len(m.palette.shown)+4), 5)) // as tall as its rows
	}
	if m.sessions != nil {
		m.sessions.SetSize(sessionListWidth(w), max(min(h-4, len(m.sessions.items)+4), 6))
	}
	if m.evidence != nil {
		m.evidence.SetSize(sessionListWidth(w), max(min(h-4, len(m.evidence.items)+4), 6))
	}
}

// zoomedPanelsHeight is the panel area while the panels have the keys:
// what is read there is a long answer (a chairman's at 60×16 had one line),
// so the panels take the room of the transcript, which keeps one line, and
// of the ranking table, which keeps one line per answer while that leaves
// the panels room for a few lines more than their least.
func (m *Model) zoomedPanelsHeight(rest, pmin int) int {
	table := m.councilMinHeight()
	if rest-1-table < pmin+3 {
		table = 0
	}
	return rest - 1 - table
}

func (m *Model) sizePanels(w, h int) {
	n := len(m.panels)
	if n == 0 {
		return
	}
	if m.showVerdict() {
		h--
	}
	if m.lay.narrow {
		for _, p := range m.panels {
			p.SetSize(w, h-1) // one line for the tabs
		}
		return
	}
	each := w / n
	for i, p := range m.panels {
		pw := each
		if i == n-1 {
			pw = w - each*(n-1)
		}
		p.SetSize(pw, h)
	}
}
