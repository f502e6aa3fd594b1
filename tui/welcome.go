package tui

import (
	"strings"
)

// The first screen of an empty session: instead of blank lines, the
// transcript area shows what to type in the current mode, the mode keys and
// where the configuration and the sessions live. The first entry replaces it.

// welcoming reports whether the welcome shows: nothing said yet.
func (m *Model) welcoming() bool { return m.tr.Len() == 0 }

// welcomeLines is the welcome at width w, most useful lines first.
func (m *Model) welcomeLines(w int) []string {
	cur := m.engine.Current().Name()
	info, _ := m.engine.Modes().Info(cur)
	first := "name"
	if agents := m.engine.Current().Agents(); len(agents) > 0 {
		first = agents[0].Name
	}
	const indent = "  "
	var out []string
	// How the agents sit when some keys are missing, whole.
	if line := m.engine.SeatingLine(cur); line != "" {
		for _, l := range wrapPlain(Sanitize(line), max(w-len(indent), 10)) {
			out = append(out, m.th.warn.Render(indent+l))
		}
	}
	out = append(out, fitLine(indent+m.th.title.Render("Try")+m.th.muted.Render(" in "+cur+" mode:"), w))
	for _, ex := range info.ExamplesFor(first) {
		line := indent + m.th.warn.Render("› "+ex.Line)
		// What the line does, when it fits beside it.
		if hint := "   " + ex.Does; ex.Does != "" && cellWidth(line+hint) <= w {
			line += m.th.muted.Render(hint)
		}
		out = append(out, fitLine(line, w))
	}
	// The mode keys, wrapped between keys, never inside one.
	line, sep := indent+"Modes:", " "
	for i, mi := range m.engine.Modes().Infos() {
		item := m.keys.Modes[i].Help().Key + " " + mi.Name
		if cellWidth(line+sep+item) > w && sep != " " {
			out = append(out, m.th.muted.Render(line+" ·"))
			line, sep = indent+"      ", " "
		}
		line += sep + item
		sep = " · "
	}
	out = append(out, m.th.muted.Render(fitLine(line, w)))
	config := m.opts.ConfigPath
	if config == "" {
		config = "built-in"
	}
	database := m.opts.DatabasePath
	if database == "" {
		database = "not saved"
	}
	for _, l := range wrapPlain("Config: "+Sanitize(config)+"\nSessions: "+Sanitize(database), max(w-len(indent), 10)) {
		out = append(out, m.th.muted.Render(indent+l))
	}
	help := make([]string, 0, 2)
	for _, k := range m.keys.Help.Keys() {
		help = append(help, humanKey(k))
	}
	out = append(out, m.th.muted.Render(fitLine(indent+strings.Join(help, " or ")+": every key and command · "+humanKey(shortest(m.keys.Palette.Keys()))+": run any of them", w)))
	return out
}

// welcomeView is the welcome in the transcript's h lines, with a blank line
// above it when there is room to spare.
func (m *Model) welcomeView(w, h int) []string {
	lines := m.welcomeLines(w)
	if len(lines) < h {
		lines = append([]string{""}, lines...)
	}
	return fitLines(lines, w, h)
}
