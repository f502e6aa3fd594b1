package tui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/toolbox"
)

// evidenceList is /evidence: the session's ledger, a row a record (its id,
// source and who took it); Enter opens the record whole (its source, when
// it was taken, its digest and the text the member was shown). Sources,
// titles and texts come from outside and are drawn through Sanitize.
type evidenceList struct {
	items         []evidence.Record
	cursor        int
	width, height int
	keys          evidenceKeys
}

// evidenceKeys are the list's keys, its help.KeyMap.
type evidenceKeys struct {
	Up, Down, Open, Close key.Binding
}

var _ help.KeyMap = evidenceKeys{}

// newEvidenceKeys are the console's keys in force (keys: remaps them)
// for moving, opening and closing, and q.
func newEvidenceKeys(k keyMap) evidenceKeys {
	with := func(b key.Binding, help, desc string, more ...string) key.Binding {
		return key.NewBinding(key.WithKeys(append(slices.Clone(b.Keys()), more...)...), key.WithHelp(help, desc))
	}
	return evidenceKeys{
		Up:    with(k.Up, keyName(k.Up.Keys()[0]), "previous"),
		Down:  with(k.Down, keyName(k.Down.Keys()[0]), "next"),
		Open:  with(k.Open, keyName(k.Open.Keys()[0]), "source and text"),
		Close: with(k.Cancel, keyName(k.Cancel.Keys()[0]), "close", "q"),
	}
}

// ShortHelp implements help.KeyMap: the list's hint line.
func (k evidenceKeys) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.Down, k.Open, k.Close} }

// FullHelp implements help.KeyMap.
func (k evidenceKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func newEvidenceList(records []evidence.Record, k keyMap) *evidenceList {
	return &evidenceList{items: records, keys: newEvidenceKeys(k)}
}

func (l *evidenceList) SetSize(w, h int) { l.width, l.height = w, h }

func (l *evidenceList) Move(d int) {
	l.cursor = min(max(l.cursor+d, 0), max(len(l.items)-1, 0))
}

// Selected is the record under the cursor.
func (l *evidenceList) Selected() (evidence.Record, bool) {
	if l.cursor < 0 || l.cursor >= len(l.items) {
		return evidence.Record{}, false
	}
	return l.items[l.cursor], true
}

// View draws the box: a row a record, the cursor's marked, the keys last.
func (l *evidenceList) View(th *theme) []string {
	inner, room := max(l.width-2, 1), max(l.height-3, 1)
	var lines []string
	if len(l.items) == 0 {
		lines = append(lines, th.muted.Render("no evidence yet: members' tool results are listed here (E1, E2, …)"))
	}
	for i := max(0, l.cursor-room+1); i < len(l.items) && len(lines) < room; i++ {
		mark := "  "
		if i == l.cursor {
			mark = th.selected.Render("▸ ")
		}
		lines = append(lines, fitLine(mark+th.evidenceRow(l.items[i]), inner))
	}
	for len(lines) < room {
		lines = append(lines, "")
	}
	h := help.New()
	lines = append(lines, fitLine(h.ShortHelpView(l.keys.ShortHelp()), inner))
	return drawBox(lines, l.width, l.height, th.box, "Evidence")
}

// evidenceRow is a record in one line: the id first, then the source
// (the title when it has one) and who took it.
func (th *theme) evidenceRow(r evidence.Record) string {
	src := r.Source
	if strings.TrimSpace(r.Title) != "" {
		src = r.Title + " · " + r.Source
	}
	return th.bold.Render(Sanitize(r.ID)) + " " + Sanitize(strings.Join(strings.Fields(src), " ")) +
		th.muted.Render(" · "+Sanitize(r.Tool)+" by "+Sanitize(r.Agent))
}

// evidenceDetail is the overlay of one record.
func (th *theme) evidenceDetail(r evidence.Record, clock func(time.Time) string) *overlay {
	return &overlay{title: "Evidence " + Sanitize(r.ID), build: func(w int) []string {
		var lines []string
		for _, f := range [][2]string{{"source", r.Source}, {"title", r.Title}, {"kind", r.Kind}, {"tool", r.Tool},
			{"member", r.Agent}, {"turn", fmt.Sprint(r.Turn)}, {"taken", clock(r.Taken)}, {"digest", r.Digest}} {
			if strings.TrimSpace(f[1]) == "" {
				continue
			}
			lines = append(lines, wrapPlain(th.muted.Render(fmt.Sprintf("%-7s ", f[0]))+Sanitize(f[1]), max(w, 10))...)
		}
		lines = append(lines, "", th.bold.Render("Text (quoted to the member as untrusted data)"))
		return append(lines, wrapPlain(Sanitize(r.Text), max(w, 10))...)
	}}
}

// openEvidence shows the session's ledger.
func (m *Model) openEvidence() {
	m.evidence = newEvidenceList(m.engine.Evidence().Records(), m.keys)
	m.layout()
}

func (m *Model) evidenceKey(msg tea.KeyPressMsg) tea.Cmd {
	l := m.evidence
	switch {
	case key.Matches(msg, m.keys.Quit):
		m.evidence = nil
		return m.quit()
	case key.Matches(msg, l.keys.Close):
		m.evidence = nil
	case key.Matches(msg, l.keys.Up):
		l.Move(-1)
	case key.Matches(msg, l.keys.Down):
		l.Move(1)
	case key.Matches(msg, l.keys.Open):
		if r, ok := l.Selected(); ok {
			m.evidence = nil
			m.openOverlay(m.th.evidenceDetail(r, m.tr.clock))
		}
	}
	return nil
}

// openTools is /tools: each member's tools in this run (native calls,
// the XML protocol, or none), the policy and the limits.
func (m *Model) openTools() {
	cfg := m.engine.Config
	var lines []string
	for _, a := range m.engine.Agents() {
		line := Sanitize(fmt.Sprintf("@%-10s ", a.Name))
		var offered []string
		if box := m.engine.NativeTools(a); box != nil {
			for _, s := range box.Specs() {
				offered = append(offered, s.Name)
			}
			for _, s := range box.ServerTools {
				offered = append(offered, s.Kind+" (the vendor's)")
			}
			line += "native: " + Sanitize(strings.Join(offered, ", "))
		} else if config.ToolList(a.Tools).Files() {
			line += "list_file, read_file (XML protocol)"
		} else {
			line += m.th.muted.Render("no tools")
		}
		lines = append(lines, line)
	}
	per := fmt.Sprintf("%d a turn", cfg.Tools.PerTurn())
	if n := cfg.Tools.MaxToolCallsPerExchange; n > 0 {
		per += fmt.Sprintf(", %d an exchange", n)
	}
	lines = append(lines, "", m.th.bold.Render("Limits"), "calls          "+per,
		"fetch_url      10 s, 2 MiB read, 64 KiB of text; "+privateFetch(cfg.Tools.Fetch.AllowPrivate))
	lines = append(lines, "", m.th.bold.Render("Policy")+m.th.muted.Render("  (allow unless set; ask waits for the host)"))
	rules := cfg.Tools.Rules()
	if len(rules) == 0 {
		lines = append(lines, m.th.muted.Render("every tool: allow"))
	}
	for _, name := range slices.Sorted(maps.Keys(rules)) {
		lines = append(lines, Sanitize(fmt.Sprintf("%-14s %s", name, rules[name])))
	}
	if len(cfg.MCPServers) > 0 {
		lines = append(lines, "", m.th.bold.Render("MCP servers")+m.th.muted.Render("  (started on first use)"))
		for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
			lines = append(lines, Sanitize(toolbox.MCPPrefix+name))
		}
	}
	lines = append(lines, "", m.th.muted.Render("--tools LIST chooses them for a run (docs/tools.md); /evidence lists what they returned"))
	m.openOverlay(&overlay{title: "Tools", lines: lines})
}

func privateFetch(allow bool) string {
	if allow {
		return "private addresses allowed (tools.fetch.allow_private)"
	}
	return "private addresses refused"
}
