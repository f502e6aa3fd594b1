package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
)

// The command palette (Ctrl+P): every command, mode, key and recent
// session in one list, filtered as you type by a fuzzy matcher; Enter runs
// the chosen one. Each row shows the key in force for it, so the palette
// is also how a key is learnt.

// paletteItem is one row of the palette.
type paletteItem struct {
	kind  string // command, mode, key, session
	title string
	keys  string // the key in force, as the help shows it ("" none)
	run   func(m *Model) tea.Cmd
}

// palette is the open palette.
type palette struct {
	items         []paletteItem
	query         string
	shown         []fuzzy.Match // of items, best first (all, in order, for an empty query)
	cursor        int
	width, height int
}

// paletteSessionsMsg carries the recent sessions read for the palette.
type paletteSessionsMsg struct{ list []debate.SessionSummary }

// recentSessions is how many recent sessions the palette lists.
const recentSessions = 8

// openPalette opens the palette; the recent sessions join it when read
// (the store's I/O never runs inside Update).
func (m *Model) openPalette() tea.Cmd {
	m.palette = &palette{items: m.paletteItems()}
	m.palette.filter()
	m.layout()
	st := m.opts.Sessions
	if st == nil {
		return nil
	}
	return func() tea.Msg {
		list, err := st.List()
		if err != nil {
			return nil
		}
		return paletteSessionsMsg{list: list}
	}
}

// addSessions adds the recent sessions other than the open one.
func (m *Model) addSessions(list []debate.SessionSummary) {
	if m.palette == nil {
		return
	}
	n := 0
	for _, s := range list {
		if s.ID == m.info.ID || n == recentSessions {
			continue
		}
		n++
		id := s.ID
		title := firstNonEmpty(Sanitize(s.Title), "(untitled)")
		m.palette.items = append(m.palette.items, paletteItem{kind: "session", title: "resume " + title + " · " + id[:min(6, len(id))],
			run: func(m *Model) tea.Cmd { return m.resume(id) }})
	}
	m.palette.filter()
}

// paletteItems lists the commands, the modes and the keys, each with the
// key in force.
func (m *Model) paletteItems() []paletteItem {
	k := m.keys
	var items []paletteItem
	command := func(name, title string, b *key.Binding) {
		keys := ""
		if b != nil {
			keys = b.Help().Key
		}
		items = append(items, paletteItem{kind: "command", title: "/" + name + "  " + title, keys: keys,
			run: func(m *Model) tea.Cmd {
				if strings.HasSuffix(name, " …") { // it takes an argument: typed in the input
					m.in.SetValue("/" + strings.TrimSuffix(name, "…"))
					return m.setFocus(focusInput)
				}
				c, _ := parseSlash("/" + name)
				return m.command(c)
			}})
	}
	command("help", "every key and command", &k.Help)
	command("search …", "find in the transcript", &k.Find)
	command("sessions", "saved sessions: resume, fork, delete", &k.Sessions)
	command("new", "a new session", nil)
	command("fork", "a copy of this session", nil)
	command("saveas", "the conversation on screen as a new session", nil)
	command("export md", "write parley-ID.md here", nil)
	command("export json", "write parley-ID.json here", nil)
	command("agents", "the configured agents", nil)
	command("tools", "each member's tools, the policy and limits", nil)
	command("evidence", "what the members' tools returned (E1, E2, …)", nil)
	command("title …", "rename this session", nil)
	command("budget …", "cap this session's spend (USD, or off)", nil)
	mi := m.modeInfo()
	for _, c := range []struct {
		kind       config.ControlKind
		name, what string
	}{
		{config.ControlRounds, "rounds …", "rounds of the next exchange"},
		{config.ControlSteps, "steps …", "step limit of the next exchange"},
		{config.ControlPause, "pause", "pause after the current turn"},
		{config.ControlContinue, "resume", "go on after a pause"},
		{config.ControlStop, "stop", "stop after the current turn"},
	} {
		if mi.Accepts(c.kind) {
			command(c.name, c.what, nil)
		}
	}
	command("quit", "leave Parley", &k.Quit)
	for i, info := range m.engine.Modes().Infos() {
		name := info.Name
		items = append(items, paletteItem{kind: "mode", title: name + " mode  " + info.Title, keys: k.Modes[i].Help().Key,
			run: func(m *Model) tea.Cmd { m.switchMode(name); return nil }})
	}
	return append(items, m.keyItems()...)
}

// keyItems are the keys, each run as if typed where it acts.
func (m *Model) keyItems() []paletteItem {
	k := &m.keys
	const anywhere = focusArea(-1)
	var items []paletteItem
	add := func(area focusArea, where string, b key.Binding, title string) {
		if !b.Enabled() || len(b.Keys()) == 0 {
			return
		}
		if title == "" {
			title = b.Help().Desc
		}
		if where != "" {
			title = where + ": " + title
		}
		name := b.Keys()[0]
		items = append(items, paletteItem{kind: "key", title: title, keys: b.Help().Key, run: func(m *Model) tea.Cmd {
			msg, ok := keyPress(name)
			if !ok {
				return nil
			}
			var cmd tea.Cmd
			if area != anywhere && m.focus != area {
				cmd = m.setFocus(area)
			}
			return tea.Batch(cmd, m.key(msg))
		}})
	}
	add(anywhere, "", k.Find, "")
	add(anywhere, "", k.Select, "")
	add(anywhere, "", k.CycleMode, "")
	add(anywhere, "", k.FocusNext, "")
	add(anywhere, "", k.FocusPrev, "")
	add(anywhere, "", k.Cancel, "cancel the agents / close a box")
	for _, b := range []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End, k.Open, k.PrevExchange, k.NextExchange, k.PrevSame, k.NextSame, k.Copy, k.CopyCode} {
		add(focusTranscript, "transcript", b, "")
	}
	add(focusPanels, "panels", k.PanelLeft, "")
	add(focusPanels, "panels", k.PanelRight, "")
	add(focusPanels, "panels", k.Home, "the answer's first line")
	add(focusPanels, "panels", k.End, "the answer's last line")
	add(focusPanels, "panels", k.Copy, "copy the panel's turn (Markdown)")
	return items
}

// resume opens a saved session, as Enter in the session list does.
func (m *Model) resume(id string) tea.Cmd {
	if m.engine.Busy() {
		m.setStatus("wait for the agents or press "+shortest(m.keys.Cancel.Keys())+" first", true)
		return nil
	}
	st := m.opts.Sessions
	return func() tea.Msg {
		info, entries, err := st.Load(id)
		return sessionOpenedMsg{info: info, entries: entries, err: err}
	}
}

// filter ranks the items against the query.
func (p *palette) filter() {
	p.shown = p.shown[:0]
	if p.query == "" {
		for i := range p.items {
			p.shown = append(p.shown, fuzzy.Match{Index: i})
		}
	} else {
		p.shown = fuzzy.FindFrom(p.query, p)
		// A row that holds the query as typed, at a word's start, comes
		// first ("sess" is /sessions before "a new session"): the
		// matcher's score favours the first letter's place over that.
		q := strings.ToLower(p.query)
		slices.SortStableFunc(p.shown, func(a, b fuzzy.Match) int {
			return cmp.Compare(wordAt(p.String(b.Index), q), wordAt(p.String(a.Index), q))
		})
	}
	p.cursor = min(p.cursor, max(len(p.shown)-1, 0))
}

// wordAt ranks how s holds q: 2 at its start (after a slash), 1 at a
// word's start, 0 otherwise.
func wordAt(s, q string) int {
	s = strings.TrimPrefix(strings.ToLower(s), "/")
	switch i := strings.Index(s, q); {
	case i == 0:
		return 2
	case i > 0 && (s[i-1] == ' ' || s[i-1] == '/'):
		return 1
	}
	return 0
}

// String and Len make the items a fuzzy.Source: a row is matched on its
// title and its key.
func (p *palette) String(i int) string { return p.items[i].title + "  " + p.items[i].keys }
func (p *palette) Len() int            { return len(p.items) }

// paletteKey handles a key while the palette is open.
func (m *Model) paletteKey(msg tea.KeyPressMsg) tea.Cmd {
	p, k := m.palette, m.keys.Pal
	switch {
	case key.Matches(msg, k.Close, m.keys.Palette):
		m.palette = nil
	case key.Matches(msg, k.Run):
		m.palette = nil
		if p.cursor < len(p.shown) {
			return p.items[p.shown[p.cursor].Index].run(m)
		}
	case key.Matches(msg, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, k.Down):
		p.cursor = min(p.cursor+1, max(len(p.shown)-1, 0))
	case key.Matches(msg, k.PageUp):
		p.cursor = max(p.cursor-p.room(), 0)
	case key.Matches(msg, k.PageDown):
		p.cursor = min(p.cursor+p.room(), max(len(p.shown)-1, 0))
	case key.Matches(msg, k.Clear):
		p.query = ""
		p.filter()
	case msg.String() == "backspace":
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
			p.filter()
		}
	default:
		if msg.Text != "" && (msg.Mod == 0 || msg.Mod == tea.ModShift) {
			p.query += Sanitize(msg.Text)
			p.cursor = 0
			p.filter()
		}
	}
	return nil
}

func (p *palette) SetSize(w, h int) { p.width, p.height = w, h }

// room is how many rows of items the box shows.
func (p *palette) room() int { return max(p.height-4, 1) } // borders, query, hint

// View draws the palette: the query, the rows that fit (the cursor's in
// view), and a hint.
func (p *palette) View(th *theme, keys paletteKeys) []string {
	inner := max(p.width-2, 1)
	lines := []string{fitLine(th.bold.Render("› ")+p.query+th.selected.Render("▏"), inner)}
	room := p.room()
	start := max(0, p.cursor-room+1)
	for i := start; i < len(p.shown) && len(lines) < room+1; i++ {
		it := p.items[p.shown[i].Index]
		mark := "  "
		if i == p.cursor {
			mark = th.selected.Render("▸ ")
		}
		kind := th.muted.Render(fmt.Sprintf("%-8s", it.kind))
		keys := ""
		if it.keys != "" {
			keys = " " + th.ok.Render(it.keys)
		}
		title := th.highlightMatch(it.title, p.shown[i].MatchedIndexes)
		room := inner - 2 - 8 - cellWidth(keys)
		if cellWidth(title) > room {
			title = fitLine(title, max(room, 1))
		}
		lines = append(lines, mark+kind+padRight(title, max(room, 0))+keys)
	}
	if len(p.shown) == 0 {
		lines = append(lines, th.muted.Render("  nothing matches"))
	}
	for len(lines) < room+1 {
		lines = append(lines, "")
	}
	count := fmt.Sprintf("%d of %d · ", len(p.shown), len(p.items))
	lines = append(lines, th.muted.Render(count+hintLine(keys, max(inner-cellWidth(count), 1))))
	return drawBox(lines, p.width, p.height, th.box, "Commands")
}

// highlightMatch draws the characters the query matched in bold.
func (th *theme) highlightMatch(s string, at []int) string {
	if len(at) == 0 {
		return s
	}
	matched := map[int]bool{}
	for _, i := range at {
		matched[i] = true
	}
	var b strings.Builder
	for i, r := range s {
		if matched[i] {
			b.WriteString(th.bold.Render(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
