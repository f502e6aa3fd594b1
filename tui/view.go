package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate/config"
)

// narrowWidth is the width under which panels are tabbed, not side by side.
const narrowWidth = 100

// bannerMaxLines caps the banner: on a small screen it would crowd out the
// answers it is about.
const bannerMaxLines = 2

// bannerLines is the banner in at most maxLines lines. A banner too long for
// them loses whole sentences from its end, never the end of one: a cut
// sentence ("…or put them in") says less than no sentence. The first
// sentence is always kept, wrapped.
func (m *Model) bannerLines(maxLines int) []string {
	if m.opts.Banner == "" || maxLines <= 0 {
		return nil
	}
	w := max(m.width, minWidth)
	sentences := splitSentences(Sanitize(m.opts.Banner))
	text := sentences[0]
	wrapped := wrapPlain(text, w-1)
	for _, next := range sentences[1:] {
		more := wrapPlain(text+" "+next, w-1)
		if len(more) > maxLines {
			break
		}
		text, wrapped = text+" "+next, more
	}
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		out[i] = m.th.banner.Render(fitLine(" "+l, w))
	}
	return out
}

// splitSentences splits text after each ". " (at least one sentence).
func splitSentences(text string) []string {
	var out []string
	for {
		i := strings.Index(text, ". ")
		if i < 0 {
			break
		}
		out = append(out, text[:i+1])
		text = strings.TrimLeft(text[i+2:], " ")
	}
	if text != "" || len(out) == 0 {
		out = append(out, text)
	}
	return out
}

// bannerMinLines is what the banner takes at the least: its first sentence.
func (m *Model) bannerMinLines() int {
	if m.opts.Banner == "" {
		return 0
	}
	return len(m.bannerLines(1))
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.selecting {
		v.MouseMode = tea.MouseModeNone // the terminal's own selection works
	}
	v.WindowTitle = "Parley"
	if m.quitting || m.themeAsked {
		return v // the theme is not known yet: no frame in the wrong one
	}
	if m.stale || m.frameCache == "" {
		m.layout()
		m.frameCache = strings.Join(m.frame(), "\n")
		m.stale = false
	}
	v.SetContent(m.frameCache)
	return v
}

// frame draws the whole screen as exactly height lines of width cells.
func (m *Model) frame() []string {
	if m.tooSmall() {
		w, h := max(m.width, 1), max(m.height, 1)
		return padLines([]string{fitLine(m.th.warn.Render(m.tooSmallNotice()), w)}, w, h)
	}
	if m.lay.welcome != m.welcoming() {
		m.layout() // the first entry: the panels get their room back
	}
	w, h := m.width, m.height
	spin := m.spin.View()
	lines := make([]string, 0, h)
	lines = append(lines, m.header(w))
	lines = append(lines, m.bannerLines(m.lay.bannerCap)...)
	lines = append(lines, m.panelsView(w, spin)...)
	lines = append(lines, m.councilTable(w, m.lay.tableH)...)
	if m.lay.welcome {
		lines = append(lines, m.welcomeView(w, m.lay.transcriptH)...)
	} else {
		lines = append(lines, m.tr.View()...)
	}
	lines = append(lines, m.inputRule(w))
	lines = append(lines, m.in.View()...)
	lines = append(lines, m.statusLines(w)...)
	lines = append(lines, m.helpLine(w))
	lines = padLines(lines, w, h) // every part is already w wide
	switch {
	case m.palette != nil:
		box := m.palette.View(m.th, m.keys.Pal)
		overlayAt(lines, box, max((w-m.palette.width)/2, 0), 1, w)
	case m.sessions != nil:
		box := m.sessions.View(m.th, m.keys.Ses)
		overlayAt(lines, box, max((w-m.sessions.width)/2, 0), 2, w)
	case m.evidence != nil:
		box := m.evidence.View(m.th)
		overlayAt(lines, box, max((w-m.evidence.width)/2, 0), 2, w)
	case m.overlay != nil:
		box := m.overlay.View(m.th, m.keys.Box)
		overlayAt(lines, box, max((w-m.overlay.width)/2, 0), 2, w)
	}
	return lines
}

// header shows the mode tabs and the session title. The tabs are never
// cut: when the mode names do not fit beside some of the title, the idle
// modes show their number only, then the current one too.
func (m *Model) header(w int) string {
	// The tabs already show the mode the title starts with.
	title := strings.TrimPrefix(m.info.Title, m.info.Mode+" · ")
	if title == "" {
		title = "new session"
	}
	title = "  " + Sanitize(title)
	room := w - min(ansi.StringWidth(title), 16)
	var tabs string
	for form := range 3 {
		tabs = m.modeTabs(form)
		if ansi.StringWidth(tabs) <= room {
			break
		}
	}
	return fitLine(tabs+m.th.muted.Render(title), w)
}

// modeTabs draws "Parley" and the mode tabs: form 0 names every mode, 1
// only the current one (the others by their number), 2 none.
func (m *Model) modeTabs(form int) string {
	cur := m.engine.Current().Name()
	var b strings.Builder
	b.WriteString(m.th.title.Render("Parley "))
	for i, mi := range m.engine.Modes().Infos() {
		label := fmt.Sprintf(" %d %s ", i+1, mi.Name)
		if form == 2 || form == 1 && mi.Name != cur {
			label = fmt.Sprintf(" %d ", i+1)
		}
		if mi.Name == cur {
			b.WriteString(m.th.tabActive.Render(label))
		} else {
			b.WriteString(m.th.tabIdle.Render(label))
		}
	}
	return b.String()
}

// showVerdict reports whether the MAGI verdict banner is on screen: only
// in MAGI mode, whose council it sums up.
func (m *Model) showVerdict() bool {
	return m.verdict != "" && m.modeInfo().Layout.Board == config.BoardVotes
}

// panelsView draws the panels side by side, or tabbed when narrow.
func (m *Model) panelsView(w int, spin string) []string {
	if len(m.panels) == 0 || m.lay.panelsH == 0 {
		return nil
	}
	now := m.opts.Now()
	var out []string
	if m.showVerdict() {
		out = append(out, fitLine(m.th.verdictBanner(m.verdict, "", w)[0], w))
	}
	focused := m.focus == focusPanels
	m.active = min(max(m.active, 0), len(m.panels)-1)
	if m.lay.narrow {
		out = append(out, m.tabs(w, spin))
		out = append(out, m.panels[m.active].View(m.md, spin, now, focused)...)
		return out
	}
	blocks := make([][]string, len(m.panels))
	for i, p := range m.panels {
		blocks[i] = p.View(m.md, spin, now, focused && i == m.active)
	}
	return append(out, joinColumns(blocks...)...)
}

// tabsY is the screen row of the narrow layout's tabs.
func (m *Model) tabsY() int {
	if m.showVerdict() {
		return m.lay.panelsY + 1
	}
	return m.lay.panelsY
}

// tabAt is the index of the tab at column x (-1: none).
func (m *Model) tabAt(x int) int {
	left := 0
	for i, p := range m.panels {
		right := left + cellWidth(p.display) + 4 // " name mark "
		if x >= left && x < right {
			return i
		}
		left = right + 1
	}
	return -1
}

// tabs is the narrow layout's row of agents, the shown one highlighted.
// Every tab is " name mark " and a space: tabAt relies on it.
func (m *Model) tabs(w int, spin string) string {
	var b strings.Builder
	for i, p := range m.panels {
		mark := "·"
		switch {
		case p.Busy():
			mark = spin
		case p.state == stateDone:
			mark = "✓"
		case p.state == stateFailed || p.state == stateInvalid:
			mark = "✗"
		case p.state == stateCancelled:
			mark = "■"
		}
		st := m.th.agent(p.color, i == m.active, i == m.active)
		b.WriteString(st.Render(" " + p.display + " " + mark + " "))
		b.WriteString(" ")
	}
	return fitLine(b.String(), w)
}

// inputRule separates the transcript from the input and shows @completions
// and where the transcript is scrolled to.
func (m *Model) inputRule(w int) string {
	left := ""
	if m.find != nil {
		left = m.findRule(w)
	} else if m.waiting != nil {
		left = m.th.warn.Render(m.checkpointRule())
	} else if s := m.in.Suggestions(); len(s) > 0 {
		left = m.th.warn.Render(" @"+strings.Join(s, " @")+" ") + m.th.muted.Render("(tab) ")
	} else if m.focus == focusInput && m.in.Value() == "" {
		left = m.th.muted.Render(" " + m.inputHint() + " ")
	}
	if pos := m.tr.Position(); pos != "" && m.find == nil {
		left += m.th.warn.Render(" ↑ " + pos + " (" + keyName(m.keys.End.Keys()[0]) + ": latest) ")
	}
	edge := m.th.subtle
	if m.focus == focusTranscript {
		// The transcript has the keys: the rule under it says so.
		edge = m.th.warn
		if left == "" {
			left = m.th.warn.Render(" ▲ transcript ")
		}
	}
	rule := edge.Render(strings.Repeat("━", max(w-ansi.StringWidth(left), 0)))
	if m.focus != focusTranscript {
		rule = edge.Render(strings.Repeat("─", max(w-ansi.StringWidth(left), 0)))
	}
	return fitLine(left+rule, w)
}

// statusLines show the latest message, then mode, session and totals at
// the right. A message too long for one line with the totals wraps above
// them, whole: it usually says what went wrong and what to do.
func (m *Model) statusLines(w int) []string {
	w = max(w, minWidth)
	id := m.info.ID
	if len(id) > 6 {
		id = id[:6]
	}
	right := fmt.Sprintf("%s · %s · %d→%d tok%s", m.engine.Current().Name(), id, m.usage.InputTokens, m.usage.OutputTokens, costText(m.cost, m.usage)+cacheText(m.cache)+capText(m.spend))
	if n := m.working(); n > 0 {
		right = fmt.Sprintf("%s %d working · ", m.spin.View(), n) + right
	}
	left := m.status
	st := m.th.status
	if m.statusErr {
		st = m.th.err
	}
	room := w - ansi.StringWidth(right) - 2
	if ansi.StringWidth(left) > room && m.statusShort != "" {
		left = m.statusShort
	}
	if ansi.StringWidth(left) <= room {
		pad := max(w-ansi.StringWidth(left)-ansi.StringWidth(right), 1)
		return []string{fitLine(st.Render(left)+strings.Repeat(" ", pad)+m.th.muted.Render(right), w)}
	}
	wrapped := wrapPlain(left, w)
	// A quarter of the screen at most: a message longer still (a provider's
	// whole error page) ends with "…".
	if most := max(m.height/4, 2); len(wrapped) > most {
		wrapped = append(wrapped[:most-1], ansi.Truncate(strings.Join(wrapped[most-1:], " "), w, "…"))
	}
	out := make([]string, 0, len(wrapped)+1)
	for _, l := range wrapped {
		out = append(out, fitLine(st.Render(l), w))
	}
	pad := max(w-ansi.StringWidth(right), 0)
	return append(out, fitLine(strings.Repeat(" ", pad)+m.th.muted.Render(right), w))
}

func (m *Model) working() int {
	n := 0
	for _, p := range m.byName {
		if p.Busy() {
			n++
		}
	}
	return n
}

// helpID is what the short key list depends on.
type helpID struct {
	width  int
	focus  focusArea
	submit string
}

// helpLine is the short key list of the focused area. It changes only with
// the width, the focus and the mode, so it is rendered once for each.
func (m *Model) helpLine(w int) string {
	m.keys.focus = m.focus
	id := helpID{w, m.focus, m.keys.Submit.Help().Desc}
	if m.helpCache == "" || m.helpID != id {
		m.helpCache, m.helpID = fitLine(m.shortHelp(w), w), id
	}
	return m.helpCache
}

// shortHelp is as many of the focused area's keys as fit in w cells, in
// the list's order. What does not fit goes whole, never cut (bubbles' help
// adds an item that overflows when its "…" would not fit either; seen:
// "esc cancel / clos…"): the least important first, the way to every key
// and to quitting last.
func (m *Model) shortHelp(w int) string {
	all := m.keys.ShortHelp()
	h := m.help
	h.SetWidth(0) // no "…" of its own: each try is measured whole
	keep := make([]bool, len(all))
	var order []int // who gets room first: help and quit, then the list's order
	for i, b := range all {
		if b.Help() == m.keys.Help.Help() || b.Help() == m.keys.Quit.Help() {
			order = append(order, i)
		}
	}
	for i := range all {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	kept := func() []key.Binding {
		var out []key.Binding
		for i, b := range all {
			if keep[i] {
				out = append(out, b)
			}
		}
		return out
	}
	for _, i := range order {
		keep[i] = true
		if ansi.StringWidth(h.ShortHelpView(kept())) > w {
			keep[i] = false
		}
	}
	return h.ShortHelpView(kept())
}
