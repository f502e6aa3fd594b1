// The slash commands typed in the input: /mode, /rename, /budget, the
// controls and the rest.

package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/figures"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/providers"
)

// command runs a slash command.
func (m *Model) command(c slashCommand) tea.Cmd {
	switch c.Name {
	case "quit", "exit", "q":
		return m.quit()
	case "mode":
		if c.Arg == "" {
			m.setStatus("usage: /mode "+strings.Join(m.engine.Modes().Names(), "|"), true)
			return nil
		}
		m.switchMode(strings.ToLower(c.Arg))
	case "help":
		m.openHelp()
	case "agents":
		m.openAgents()
	case "tools":
		m.openTools()
	case "evidence":
		m.openEvidence()
	case "sessions":
		return m.openSessions()
	case "new":
		return m.newSession()
	case "fork":
		return m.forkSession(m.info.ID, 0)
	case "saveas":
		return m.saveAs()
	case "export":
		return m.export(c.Arg)
	case "rounds", "steps", "pause", "resume", "continue", "stop":
		m.control(c)
	case "budget":
		m.budget(c.Arg)
	case "title", "rename":
		m.rename(c.Arg)
	case "search", "find":
		m.openFind(c.Arg, c.Arg == "")
	default:
		m.setStatus("unknown command /"+c.Name+" (try /help)", true)
	}
	return nil
}

// rename gives the session a title of the user's (/title NEW TITLE); the
// engine announces it and the store saves it from that event.
func (m *Model) rename(arg string) {
	if err := m.engine.Rename(arg); err != nil {
		m.setStatus("usage: /title NEW TITLE (names this session in every list)", true)
		return
	}
	m.info = m.engine.Info()
	m.setStatus("session titled \""+Sanitize(m.info.Title)+"\"", false)
}

// budget sets the session's cost cap (/budget 0.50; /budget off or 0
// lifts it; /budget alone says where it stands).
func (m *Model) budget(arg string) {
	arg = strings.TrimPrefix(strings.TrimSpace(arg), "$")
	if arg == "" {
		s := m.engine.Spend()
		if s.CapUSD <= 0 {
			m.setStatus(fmt.Sprintf("no cost cap; this run spent %s · /budget 0.50 sets one", providers.FormatSpend(s.SpentUSD, s.Unknown, s.Estimated)), false)
			return
		}
		m.setStatus(fmt.Sprintf("cost cap %s; this run spent %s", spend.CapString(s.CapUSD), providers.FormatSpend(s.SpentUSD, s.Unknown, s.Estimated)), false)
		return
	}
	usd, err := figures.ParseMoney("/budget", arg)
	if arg == "off" {
		usd, err = 0, nil
	}
	if err != nil {
		m.setStatus(err.Error()+" — usage: /budget USD (e.g. /budget 0.50; /budget off lifts the cap)", true)
		return
	}
	m.engine.SetCap(usd)
	m.spend = m.engine.Spend()
	if usd == 0 {
		m.setStatus("cost cap lifted", false)
		return
	}
	m.setStatus(fmt.Sprintf("cost cap %s: no call starts whose worst case could pass it (spent %s so far)", spend.CapString(usd), providers.FormatSpend(m.spend.SpentUSD, m.spend.Unknown, m.spend.Estimated)), false)
}

// control sends a mode control (/pause, /resume, /stop, /rounds N, /steps N)
// through the engine; each mode's info says which it takes.
func (m *Model) control(c slashCommand) {
	kind := config.ControlKind(c.Name)
	if c.Name == "resume" {
		kind = config.ControlContinue
	}
	ctl := debate.Control{Kind: kind}
	if kind == config.ControlRounds || kind == config.ControlSteps {
		n, err := strconv.Atoi(c.Arg)
		if err != nil || n < 1 {
			m.setStatus(fmt.Sprintf("usage: /%s N (N ≥ 1)", c.Name), true)
			return
		}
		ctl.N = n
	}
	if err := m.engine.Control(m.opts.Context, ctl); err != nil {
		m.setStatus(err.Error(), true)
		return
	}
	mode := m.engine.Current().Name()
	m.setStatus(map[config.ControlKind]string{
		config.ControlPause:    "the " + mode + " pauses after the current turn · /resume goes on, /stop ends it",
		config.ControlContinue: "the " + mode + " goes on",
		config.ControlStop:     "the " + mode + " stops after the current turn",
		config.ControlRounds:   fmt.Sprintf("the next %s runs %d round%s", mode, ctl.N, plural(ctl.N)),
		config.ControlSteps:    fmt.Sprintf("the next %s question may take %d step%s", mode, ctl.N, plural(ctl.N)),
	}[kind], false)
}
