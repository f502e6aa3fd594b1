// Package tui is Parley's full-screen console: one panel per agent of the
// current mode, the shared transcript, an input box, and a status line,
// driven by the debate engine's events.
package tui

import (
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/tui/prefs"

	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/providers"
)

// Options are the console's dependencies.
type Options struct {
	Engine *debate.Engine
	// Sessions backs the session list, /new, /fork and /export; nil: the
	// console says sessions are unavailable.
	Sessions Sessions
	// Banner is shown under the header (e.g. which env vars to set).
	Banner string
	// ConfigPath and DatabasePath say, on the first screen, where the
	// configuration and the sessions live ("": built-in / not saved).
	ConfigPath   string
	DatabasePath string
	// Resumed: the engine holds a saved session (--resume, --continue);
	// the status says which.
	Resumed bool
	// AgentNotes adds a line to an agent's panel, e.g. its key is missing.
	AgentNotes map[string]string
	// Context bounds every exchange (default: context.Background()).
	Context context.Context
	// Now and TimeFormat let tests fix the clock (defaults: time.Now, 15:04:05).
	Now        func() time.Time
	TimeFormat func(time.Time) string
	// EventBuffer is the event queue's size (default 8192).
	EventBuffer int
	// Theme is the console's styles (prefs.Themes): auto ("" too) asks the
	// terminal for its background and takes dark or light.
	Theme string
	// Colours are the configuration's colours by role over a dark or
	// light theme (prefs.Roles, or an agent's name → #RRGGBB), as
	// prefs.CheckColours returns them.
	Colours map[string]string
	// Keys are the configuration's keys: (action → key names), over the
	// default bindings (prefs.Actions).
	Keys map[string]config.KeyList
}

type focusArea int

const (
	focusInput focusArea = iota
	focusTranscript
	focusPanels
)

// Model is the console's top-level Bubble Tea model.
type Model struct {
	opts   Options
	engine *debate.Engine
	keys   keyMap
	help   help.Model
	th     *theme // the styles of everything drawn
	// themeAsked: the theme is auto, the program has started and asked
	// the terminal for its background, which has not answered yet.
	themeAsked bool
	md         *markdown
	spin       spinner.Model
	bus        *eventBus
	// unsubscribe stops the engine delivering events to bus.
	unsubscribe func()

	in     *input
	tr     *transcriptPane
	panels []*panel          // of the current mode, in order
	byName map[string]*panel // every panel made so far, kept across modes
	active int               // panel shown in the narrow (tabbed) layout
	// tabChosen: the user picked the active panel (key or click) since the
	// last line sent; until then the shown tab follows the streaming one.
	tabChosen bool
	focus     focusArea
	overlay   *overlay
	sessions  *sessionList
	evidence  *evidenceList // /evidence (evidencelist.go)
	find      *finder       // the transcript search, while it is open
	palette   *palette      // the command palette (Ctrl+P), while it is open
	selecting bool          // select mode: the mouse is the terminal's (v)

	info      debate.SessionInfo
	verdict   string
	council   councilView // the council's ranking table, from its events
	status    string
	statusErr bool
	// statusShort, when set, stands for status where the whole would wrap.
	statusShort string
	usage       providers.Usage
	cost        float64
	// spend is the engine's latest spend report: the run's spend and
	// its cap, shown on the status line while a cap is set.
	spend debate.SpendUpdated
	// cache is the session's prompt-cache use and what it saved.
	cache    spend.CacheStats
	spinning bool
	quitting bool

	width, height int
	lay           layout

	helpCache string
	helpID    helpID

	paging bool // a page of older turns is being read

	// host answers the runs' checkpoints; waiting is the checkpoint a run
	// waits at (nil: none; checkpoint.go).
	host    *consoleHost
	waiting *debate.CheckpointReached

	// stale: something on screen changed since frameCache was drawn (only
	// deltas of turns off screen leave it false).
	stale      bool
	frameCache string
}

// Pager is implemented by Sessions that resume lazily: they load a
// session's tail, and its older turns page by page as the transcript
// scrolls to them.
type Pager interface {
	// Page returns up to limit entries of session id before turn before,
	// oldest first.
	Page(id string, before, limit int) ([]transcript.Entry, error)
	// Totals sums the session's usage and cost over every turn.
	Totals(id string) (providers.Usage, float64, error)
}

// olderPageMsg carries a page of older turns read by pageIn.
type olderPageMsg struct {
	id      string
	entries []transcript.Entry
	err     error
}

// pageSize is how many older turns one read brings in.
const pageSize = 100

// pageIn reads the page of turns before the loaded ones when the view has
// reached the top of them (the store's I/O never runs inside Update).
func (m *Model) pageIn() tea.Cmd {
	pager, ok := m.opts.Sessions.(Pager)
	if !ok || m.paging || !m.tr.WantsOlder() {
		return nil
	}
	m.paging = true
	id, before := m.info.ID, m.tr.First()
	return func() tea.Msg {
		entries, err := pager.Page(id, before, pageSize)
		return olderPageMsg{id: id, entries: entries, err: err}
	}
}

// New builds the console for an engine. Subscribe happens here: build the
// model before the engine runs anything.
func New(opts Options) *Model {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TimeFormat == nil {
		opts.TimeFormat = func(t time.Time) string {
			if t.IsZero() {
				return "--:--:--"
			}
			return t.Local().Format("15:04:05")
		}
	}
	e := opts.Engine
	th := resolveTheme(opts.Theme, true, opts.Colours) // auto: dark until the terminal answers
	colors := map[string]string{}
	var names []string
	for _, a := range e.Agents() {
		colors[a.Name] = th.agentColour(a.Name, a.Color)
		names = append(names, a.Name)
	}
	var keysErr error
	md := newMarkdown(th)
	h := help.New()
	h.Styles = th.help
	m := &Model{
		opts: opts, engine: e, help: h, md: md, th: th,
		spin:   spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		bus:    newEventBus(opts.EventBuffer),
		in:     newInput(names, e.Modes().Names()),
		tr:     newTranscript(md, colors, opts.TimeFormat),
		byName: map[string]*panel{},
		info:   e.Info(),
		width:  80, height: 24,
	}
	m.in.SetStyles(th.input)
	m.keys, keysErr = newKeys(e.Modes().Infos(), opts.Keys)
	m.in.SetNewline(m.keys.Newline)
	m.unsubscribe = e.Subscribe(m.bus.Sink)
	m.host = newConsoleHost()
	e.SetHost(m.host, "") // the modes' configured policies; a tool call under ask is asked here
	m.reload()
	m.setStatus(e.SeatingLine(e.Current().Name()), false)
	if opts.Resumed {
		status, short := resumedLine("resumed", m.info, m.tr.Len()), resumedShort("resumed", m.tr.Len())
		if m.status != "" {
			status += " · " + m.status
			short += " · " + m.status
		}
		m.setStatusOr(status, short)
	}
	if keysErr != nil { // the configuration's check let it through
		m.setStatus(keysErr.Error()+" (the default keys are in force)", true)
	}
	m.layout()
	return m
}

// Close stops the event bridge; call it after the program has ended.
func (m *Model) Close() {
	if m.unsubscribe != nil {
		m.unsubscribe()
	}
	m.bus.Close()
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	if m.opts.Theme != prefs.ThemeAuto && m.opts.Theme != "" {
		return tea.Batch(m.bus.Wait, m.in.Focus(), m.resumeCheckpoint())
	}
	m.themeAsked = true
	// Auto theme: Bubble Tea asks the terminal for its background (only
	// when it reads a terminal) and answers with a BackgroundColorMsg;
	// nothing waits for it but the first frame, and that for themeWait at
	// most.
	return tea.Batch(m.bus.Wait, m.in.Focus(), tea.RequestBackgroundColor, m.resumeCheckpoint(),
		tea.Tick(themeWait, func(time.Time) tea.Msg { return themeWaitOver{} }))
}

// reload rebuilds the transcript and panels from the engine's history.
func (m *Model) reload() {
	m.info = m.engine.Info()
	entries := m.engine.History().Entries()
	m.tr.Reset(entries)
	m.byName = map[string]*panel{}
	m.verdict = ""
	m.council = councilView{}
	m.usage, m.cost = providers.Usage{}, 0
	m.spend = m.engine.Spend()
	m.cache = spend.CacheStatsOf(m.engine.Config, entries)
	if pager, ok := m.opts.Sessions.(Pager); ok && m.tr.First() > 1 {
		// A lazily resumed session: the totals come from the store.
		if u, cost, err := pager.Totals(m.info.ID); err == nil {
			m.usage, m.cost = u, cost
		}
	} else {
		for _, en := range entries {
			m.usage = m.usage.Add(en.Usage)
			m.cost += en.Cost
		}
	}
	// The banner of the last council, unless a later one never finished.
	for i := len(entries) - 1; i >= 0; i-- {
		if k := entries[i].Kind; k == transcript.KindVerdict {
			m.verdict = verdictLine(entries[i])
			break
		} else if k == transcript.KindVote {
			break
		}
	}
	m.refreshPanels()
	m.restoreCouncil(entries)
}

// showFolder names the folder the agent mode reads on its panels (the
// workspace, home shortened to ~), and nothing in other modes.
func (m *Model) showFolder() {
	folder := ""
	if m.modeInfo().Layout.Folder {
		folder = homeShort(m.engine.Workspace())
	}
	for _, p := range m.panels {
		p.folder = folder
	}
}

// homeShort writes a path under the home folder as ~/rest.
func homeShort(dir string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return dir
	}
	if rest, ok := strings.CutPrefix(dir, home); ok && (rest == "" || rest[0] == filepath.Separator) {
		return "~" + filepath.ToSlash(rest)
	}
	return dir
}

func (m *Model) setStatus(s string, isErr bool) {
	m.status, m.statusErr, m.statusShort = Sanitize(s), isErr, ""
}

// setStatusOr sets a message with a shorter form that the status line
// shows when the whole one would wrap (on a small screen every line is
// worth more than a title the header already shows).
func (m *Model) setStatusOr(s, short string) {
	m.setStatus(s, false)
	m.statusShort = Sanitize(short)
}

// busy reports whether any agent is working.
func (m *Model) busy() bool {
	if m.engine.Busy() {
		return true
	}
	for _, p := range m.panels {
		if p.Busy() {
			return true
		}
	}
	return false
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, events := msg.(eventsMsg); !events {
		m.stale = true // events decide for themselves (apply)
	}
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		m.background(msg.IsDark())
		return m, nil
	case themeWaitOver:
		m.themeAsked = false
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		m.followStream()
		return m, nil
	case eventsMsg:
		for _, ev := range msg {
			m.apply(ev)
		}
		return m, tea.Batch(m.bus.Wait, m.startSpinner())
	case spinner.TickMsg:
		if !m.busy() {
			m.spinning = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case doneMsg:
		return m, m.exchangeDone(msg)
	case sessionsListedMsg, sessionOpenedMsg, sessionDeletedMsg, exportedMsg:
		return m, m.sessionResult(msg)
	case paletteSessionsMsg:
		m.addSessions(msg.list)
		return m, nil
	case tea.MouseWheelMsg:
		if m.palette != nil {
			return m, nil
		}
		m.wheel(msg)
		return m, m.pageIn()
	case olderPageMsg:
		m.paging = false
		if msg.err != nil {
			m.setStatus("reading older turns: "+msg.err.Error(), true)
		} else if msg.id == m.info.ID {
			m.tr.Prepend(msg.entries)
		}
		return m, m.pageIn()
	case tea.MouseClickMsg:
		return m, m.click(msg)
	case tea.PasteMsg:
		m.setFocus(focusInput)
		return m, m.in.Update(msg)
	case tea.KeyPressMsg:
		return m, tea.Batch(m.key(msg), m.pageIn())
	}
	if m.focus == focusInput {
		return m, m.in.Update(msg)
	}
	return m, nil
}

// startSpinner ticks the spinner while agents work.
func (m *Model) startSpinner() tea.Cmd {
	if m.spinning || !m.busy() {
		return nil
	}
	m.spinning = true
	return m.spin.Tick
}

// setFocus moves the focus.
func (m *Model) setFocus(f focusArea) tea.Cmd {
	if f == focusPanels && len(m.panels) == 0 {
		f = focusInput
	}
	m.focus = f
	m.tr.Blur()
	m.in.Blur()
	switch f {
	case focusInput:
		return m.in.Focus()
	case focusTranscript:
		m.tr.Focus()
	}
	return nil
}
