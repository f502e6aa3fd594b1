package tui

import (
	"github.com/parleyhq/parley/debate"
)

// The first screen of an empty session: instead of blank lines, the
// transcript area shows what to type in the current mode, the mode keys and
// where the configuration and the sessions live. The first entry replaces it.

// welcoming reports whether the welcome shows: nothing said yet.
func (m *Model) welcoming() bool { return m.tr.Len() == 0 }

// welcomeExamples are three lines to try in a mode, each with what it does.
// first is the first agent's name (mention's example addresses it).
func welcomeExamples(mode, first string, info debate.ModeInfo) [][2]string {
	switch mode {
	case "mention":
		return [][2]string{
			{"@all compare Kafka and NATS for a small team", "every agent answers"},
			{"@" + first + " what would you measure first?", "one agent answers"},
			{"we expect 10k messages a second", "a plain line is a note"},
		}
	case "alternate":
		return [][2]string{
			{"write a Go LRU cache with tests", "one agent starts, the other answers"},
			{"(enter on an empty line)", "the next agent takes a step"},
			{"now add benchmarks", "a step with a new instruction"},
		}
	case "talk":
		return [][2]string{
			{"Is remote work here to stay?", "the topic: the MC opens the talk"},
			{"/rounds 2", "before the topic: two rounds"},
			{"/pause  /resume  /stop", "hold or end a running talk"},
		}
	case "magi":
		return [][2]string{
			{"Should we ship on Friday?", "three members vote over three rounds"},
			{"Rewrite the billing service in Rust?", "a majority decides"},
			{"Adopt a four-day week?", "enter on a vote opens its reasoning"},
		}
	case "agent":
		return [][2]string{
			{"what does this project do?", "the agent reads the folder and explains"},
			{"where is the configuration loaded?", "it lists and reads files as it goes"},
			{"explain main.go", "each tool call shows in its panel"},
		}
	}
	// A mode this list does not know yet says what its input means.
	return [][2]string{{info.Input, info.Title}}
}

// welcomeLines is the welcome at width w, most useful lines first.
func (m *Model) welcomeLines(w int) []string {
	cur := m.engine.Current().Name()
	info, _ := debate.LookupMode(cur)
	first := "name"
	if agents := m.engine.Current().Agents(); len(agents) > 0 {
		first = agents[0].Name
	}
	const indent = "  "
	var out []string
	// How the agents sit when some keys are missing, whole.
	if line := m.engine.SeatingLine(cur); line != "" {
		for _, l := range wrapPlain(Sanitize(line), max(w-len(indent), 10)) {
			out = append(out, styles.warn.Render(indent+l))
		}
	}
	out = append(out, fitLine(indent+styles.title.Render("Try")+styles.muted.Render(" in "+cur+" mode:"), w))
	for _, ex := range welcomeExamples(cur, first, info) {
		line := indent + styles.warn.Render("› "+ex[0])
		// What the line does, when it fits beside it.
		if hint := "   " + ex[1]; ex[1] != "" && cellWidth(line+hint) <= w {
			line += styles.muted.Render(hint)
		}
		out = append(out, fitLine(line, w))
	}
	// The mode keys, wrapped between keys, never inside one.
	line, sep := indent+"Modes:", " "
	for _, mi := range debate.Modes() {
		item := mi.Key + " " + mi.Name
		if cellWidth(line+sep+item) > w && sep != " " {
			out = append(out, styles.muted.Render(line+" ·"))
			line, sep = indent+"      ", " "
		}
		line += sep + item
		sep = " · "
	}
	out = append(out, styles.muted.Render(fitLine(line, w)))
	config := m.opts.ConfigPath
	if config == "" {
		config = "built-in"
	}
	database := m.opts.DatabasePath
	if database == "" {
		database = "not saved"
	}
	for _, l := range wrapPlain("Config: "+Sanitize(config)+"\nSessions: "+Sanitize(database), max(w-len(indent), 10)) {
		out = append(out, styles.muted.Render(indent+l))
	}
	out = append(out, styles.muted.Render(fitLine(indent+"? or F1: every key and command", w)))
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
