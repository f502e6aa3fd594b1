package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/spend"
)

// doneMsg ends a Submit run in the background.
type doneMsg struct {
	input string
	err   error
}

// key handles a key press: modal boxes first, then global keys, then the
// focused component.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case m.palette != nil:
		return m.paletteKey(msg)
	case m.sessions != nil:
		return m.sessionsKey(msg)
	case m.evidence != nil:
		return m.evidenceKey(msg)
	case m.overlay != nil:
		return m.overlayKey(msg)
	case m.find != nil:
		if cmd, done := m.findKey(msg); done {
			return cmd
		}
	case m.selecting && m.selectKey(msg):
		return nil
	}
	// In the input a character is typed, whatever action its key has
	// elsewhere (/ starts a command there); ? on an empty input is help.
	typing := m.focus == focusInput && isText(msg)
	switch {
	case typing && !(key.Matches(msg, k.Help) && m.in.Value() == ""):
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Cancel):
		if m.busy() {
			m.engine.Cancel()
			m.setStatus("cancelling…", false)
			return nil
		}
		m.setStatus("", false)
		return m.setFocus(focusInput)
	case key.Matches(msg, k.ModeKeys):
		for i, b := range k.Modes {
			if key.Matches(msg, b) {
				m.switchMode(m.engine.Modes().Names()[i])
			}
		}
		return nil
	case key.Matches(msg, k.CycleMode):
		i := slices.Index(m.engine.Modes().Names(), m.engine.Current().Name())
		m.switchMode(m.engine.Modes().Names()[(i+1)%len(m.engine.Modes().Names())])
		return nil
	case key.Matches(msg, k.Sessions):
		return m.openSessions()
	case key.Matches(msg, k.Palette):
		return m.openPalette()
	case key.Matches(msg, k.Find):
		m.openFind("", true)
		return nil
	case key.Matches(msg, k.Help):
		m.openHelp()
		return nil
	case key.Matches(msg, k.FocusPrev):
		return m.setFocus((m.focus + 2) % 3)
	case key.Matches(msg, k.FocusNext):
		if m.focus == focusInput && m.in.Complete() {
			return nil
		}
		return m.setFocus((m.focus + 1) % 3)
	}
	switch m.focus {
	case focusTranscript:
		return m.transcriptKey(msg)
	case focusPanels:
		return m.panelsKey(msg)
	}
	return m.inputKey(msg)
}

func (m *Model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Submit):
		return m.submit()
	case key.Matches(msg, k.HistoryPrev) && m.in.Browsing():
		m.in.HistoryPrev()
		return nil
	case key.Matches(msg, k.HistoryNext) && m.in.Browsing():
		m.in.HistoryNext()
		return nil
	case key.Matches(msg, k.PageUp):
		m.tr.PageUp()
		return nil
	case key.Matches(msg, k.PageDown):
		m.tr.PageDown()
		return nil
	}
	return m.in.Update(msg)
}

func (m *Model) transcriptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.tr.Move(-1)
	case key.Matches(msg, k.Down):
		m.tr.Move(1)
	case key.Matches(msg, k.PageUp):
		m.tr.PageUp()
	case key.Matches(msg, k.PageDown):
		m.tr.PageDown()
	case key.Matches(msg, k.Home):
		m.tr.Home()
	case key.Matches(msg, k.End):
		m.tr.End()
	case key.Matches(msg, k.Open):
		if en, ok := m.tr.Selected(); ok {
			m.openOverlay(turnDetail(en, m.md, m.opts.TimeFormat))
		}
	case m.tr.jumpKey(k, msg):
	default:
		en, ok := m.tr.Selected()
		if cmd, done := m.copyKey(msg, en, ok); done {
			return cmd
		}
		return m.typeIntoInput(msg)
	}
	return nil
}

func (m *Model) panelsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if len(m.panels) == 0 {
		return m.setFocus(focusInput)
	}
	p := m.panels[m.active]
	switch {
	case key.Matches(msg, k.PanelLeft):
		m.active, m.tabChosen = (m.active+len(m.panels)-1)%len(m.panels), true
	case key.Matches(msg, k.PanelRight):
		m.active, m.tabChosen = (m.active+1)%len(m.panels), true
	case key.Matches(msg, k.Up):
		p.Scroll(1)
	case key.Matches(msg, k.Down):
		p.Scroll(-1)
	case key.Matches(msg, k.PageUp):
		p.Scroll(max(p.height-4, 1))
	case key.Matches(msg, k.PageDown):
		p.Scroll(-max(p.height-4, 1))
	case key.Matches(msg, k.Home):
		p.ScrollTop()
	case key.Matches(msg, k.End):
		p.ScrollEnd()
	case key.Matches(msg, k.Open):
		if en, ok := m.tr.Entry(p.turn); ok {
			m.openOverlay(turnDetail(en, m.md, m.opts.TimeFormat))
		}
	default:
		en, ok := m.tr.Entry(p.turn)
		if cmd, done := m.copyKey(msg, en, ok); done {
			return cmd
		}
		return m.typeIntoInput(msg)
	}
	return nil
}

// isText reports a key that types a character (shift aside).
func isText(msg tea.KeyPressMsg) bool {
	return msg.Text != "" && (msg.Mod == 0 || msg.Mod == tea.ModShift)
}

// typeIntoInput sends a printable key typed elsewhere to the input box.
func (m *Model) typeIntoInput(msg tea.KeyPressMsg) tea.Cmd {
	if !isText(msg) {
		return nil
	}
	cmd := m.setFocus(focusInput)
	return tea.Batch(cmd, m.in.Update(msg))
}

// quit applies the engine's one Ctrl+C policy: while agents work the first
// press cancels them (what arrived is kept); a second within two seconds,
// or one while idle, quits.
func (m *Model) quit() tea.Cmd {
	if !m.engine.Interrupt() {
		m.setStatus("cancelled · "+shortest(m.keys.Quit.Keys())+" again quits", false)
		return nil
	}
	return m.quitNow()
}

func (m *Model) quitNow() tea.Cmd {
	m.quitting = true
	m.engine.Cancel()
	return tea.Quit
}

// switchMode changes the engine's mode; the history stays, the panels change.
func (m *Model) switchMode(name string) {
	if m.engine.Busy() {
		m.setStatus("wait for the agents or press "+shortest(m.keys.Cancel.Keys())+" before switching modes", true)
		return
	}
	if err := m.engine.SetMode(name); err != nil {
		m.setStatus(err.Error(), true)
		return
	}
	m.info = m.engine.Info()
	m.refreshPanels()
	m.panelsOfMode(name)
	m.setFocus(focusInput) // what is typed next is for the new mode
	status := "mode: " + name
	if line := m.engine.SeatingLine(name); line != "" {
		status += " · " + line
	}
	m.setStatus(status, false)
}

// modeInfo is the current mode's descriptor.
func (m *Model) modeInfo() config.ModeInfo {
	mi, _ := m.engine.Modes().Info(m.engine.Current().Name())
	return mi
}

// inputHint says what typing does now: the mode's hint, and in a mode
// that steps (alternate) where the steps stand and who answers next.
func (m *Model) inputHint() string {
	mode, mi := m.engine.Current(), m.modeInfo()
	if !mi.StepOnEmpty {
		return modeHint(mi)
	}
	next := m.info.State[dialogue.StateStepNext]
	agents := mode.Agents()
	if len(agents) < 2 {
		return modeHint(mi)
	}
	// While a step runs the state still names it as next (it advances when
	// the step ends): the rule says who answers, and offers no step yet.
	if next == "" {
		if m.busy() {
			return "start: " + agents[0].Label() + " answers, then " + agents[1].Label()
		}
		return "type an instruction: " + agents[0].Label() + " starts, " + agents[1].Label() + " answers"
	}
	label := next
	if a, ok := m.engine.Agent(next); ok {
		label = a.Label()
	}
	step, _ := strconv.Atoi(m.info.State[dialogue.StateStepCount])
	if m.busy() {
		return fmt.Sprintf("step %d · %s answering", step+1, label)
	}
	return fmt.Sprintf("step %d · next: %s · enter: next step", step+1, label)
}

// modeHint says what typing does in a mode.
func modeHint(mi config.ModeInfo) string {
	if mi.Hint != "" {
		return mi.Hint
	}
	return mi.Input
}

// submit sends the input to the engine (or runs a slash command).
func (m *Model) submit() tea.Cmd {
	line := strings.TrimSpace(m.in.Value())
	if c, ok := parseSlash(line); ok {
		m.in.Take()
		return m.command(c)
	}
	if m.waiting != nil {
		return m.answerCheckpoint()
	}
	if line == "" {
		if !m.modeInfo().StepOnEmpty {
			return nil
		}
	} else {
		m.in.Take()
	}
	if m.focus != focusInput {
		m.setFocus(focusInput)
	}
	m.tr.Latest()
	m.tabChosen = false
	m.setStatus("", false)
	e, ctx := m.engine, m.opts.Context
	return tea.Batch(func() tea.Msg {
		return doneMsg{input: line, err: e.Submit(ctx, line)}
	}, m.startSpinnerSoon())
}

// startSpinnerSoon starts the spinner once the exchange has begun.
func (m *Model) startSpinnerSoon() tea.Cmd {
	if m.spinning {
		return nil
	}
	m.spinning = true
	return m.spin.Tick
}

// exchangeDone reports how a Submit ended.
func (m *Model) exchangeDone(msg doneMsg) tea.Cmd {
	var unknown *debate.UnknownAgentError
	if debate.IsRefused(msg.err) && m.in.Value() == "" {
		m.in.SetValue(msg.input) // refused with nothing kept: the line stays to be corrected
	}
	switch {
	case msg.err == nil:
		if m.status == "cancelling…" {
			m.setStatus("", false)
		}
	case errors.Is(msg.err, debate.ErrBusy), lease.IsBusy(msg.err):
		if m.in.Value() == "" {
			m.in.SetValue(msg.input) // keep what was typed
		}
		m.setStatus(msg.err.Error(), true)
	case lease.IsLost(msg.err): // deleted or taken over by another process: nothing more is saved in it
		if m.in.Value() == "" {
			m.in.SetValue(msg.input)
		}
		m.setStatus(msg.err.Error()+" — /saveas keeps this conversation as a new session", true)
	case errors.As(msg.err, &unknown):
		m.setStatus(msg.err.Error(), true)
	case spend.IsCap(msg.err):
		m.setStatus(msg.err.Error(), true)
	case errors.Is(msg.err, context.Canceled):
		m.setStatus("cancelled: what arrived is kept", false)
	default:
		m.setStatus(firstLineOf(msg.err.Error()), true)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (m *Model) openOverlay(o *overlay) {
	m.overlay = o
	m.layout()
}

// openHelp shows every key binding and command.
func (m *Model) openHelp() {
	h := m.help
	h.SetWidth(0) // the overlay scrolls; nothing is cut
	groups := m.keys.FullHelp()
	per := 1 // groups side by side
	if m.width >= 110 {
		per = 2
	}
	var lines []string
	for i := 0; i < len(groups); i += per {
		lines = append(lines, splitLines(h.FullHelpView(groups[i:min(i+per, len(groups))]))...)
		lines = append(lines, "")
	}
	lines = append(lines, m.th.bold.Render("Commands"),
		"/mode NAME   switch mode ("+strings.Join(m.engine.Modes().Names(), ", ")+")",
		"/new  /sessions  /fork  /saveas  /export md|json  /agents  /help",
		"/tools  each member's tools, the policy and limits · /evidence  what they returned",
		"/rounds N  /steps N  /pause  /resume  /stop   (as the mode takes them)",
		"/budget USD  cap this session's spend (/budget off lifts it)",
		"/title TEXT  rename this session (lists show the new title)",
		"exit, quit   leave Parley",
		"",
		m.th.bold.Render("Mouse"),
		"wheel        scroll the transcript, or the panel under the pointer",
		"click        focus the input, transcript or a panel (narrow: pick a tab)")
	m.openOverlay(&overlay{title: "Keys", lines: lines})
}

// openAgents lists the configured agents.
func (m *Model) openAgents() {
	var lines []string
	for _, a := range m.engine.Agents() {
		line := fmt.Sprintf("@%-10s %-10s %s/%s", a.Name, a.Label(), a.Provider.Name(), a.Model)
		if n := m.opts.AgentNotes[a.Name]; n != "" {
			line += "  " + m.th.warn.Render(n)
		}
		lines = append(lines, line)
	}
	m.openOverlay(&overlay{title: "Agents", lines: lines})
}
