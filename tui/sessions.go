package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// Sessions is what the console needs of the session store. The command
// adapts the SQLite store to it; nil means sessions are unavailable.
type Sessions interface {
	// List returns the saved sessions, the most recently active first.
	List() ([]debate.SessionSummary, error)
	// Load reads a session to resume it.
	Load(id string) (debate.SessionInfo, []transcript.Entry, error)
	// Delete removes a session.
	Delete(id string) error
	// Fork copies a session up to turn atTurn (0: all of it) into a new one
	// and returns the copy.
	Fork(id string, atTurn int) (debate.SessionInfo, []transcript.Entry, error)
	// Export writes the session as "md" or "json" and says where.
	Export(id, format string) (string, error)
	// SaveAs writes a conversation as a new session (a fresh ID) and
	// returns it as saved: what the console shows of a session deleted
	// or taken from it meanwhile.
	SaveAs(info debate.SessionInfo, entries []transcript.Entry) (debate.SessionInfo, []transcript.Entry, error)
}

// Messages of the session list, produced by commands (the store's I/O
// never runs inside Update).
type (
	sessionsListedMsg struct {
		list []debate.SessionSummary
		err  error
	}
	sessionOpenedMsg struct {
		info    debate.SessionInfo
		entries []transcript.Entry
		verb    string // "resumed" unless "forked into" or "saved as"
		err     error
	}
	sessionDeletedMsg struct {
		id  string
		err error
	}
	exportedMsg struct {
		path string
		err  error
	}
)

// sessionList is the Ctrl+S picker: resume, fork or delete a session.
type sessionList struct {
	items         []debate.SessionSummary
	cursor        int
	current       string // id of the session on screen
	armed         string // id awaiting a second d to delete
	err           string
	loading       bool
	now           time.Time // when the list was read: rows say "5 min ago" from it
	width, height int
}

func (s *sessionList) SetSize(w, h int) { s.width, s.height = w, h }

func (s *sessionList) Move(d int) {
	s.armed, s.err = "", ""
	s.cursor = min(max(s.cursor+d, 0), max(len(s.items)-1, 0))
}

// Selected is the session under the cursor.
func (s *sessionList) Selected() (debate.SessionInfo, bool) {
	if s.cursor < 0 || s.cursor >= len(s.items) {
		return debate.SessionInfo{}, false
	}
	return s.items[s.cursor].SessionInfo, true
}

// Remove drops a deleted session from the list.
func (s *sessionList) Remove(id string) {
	for i, it := range s.items {
		if it.ID == id {
			s.items = append(s.items[:i], s.items[i+1:]...)
			break
		}
	}
	s.Move(0)
}

func (s *sessionList) View(th *theme, keys sessionKeys) []string {
	inner := max(s.width-2, 1)
	room := max(s.height-3, 1)
	var lines []string
	switch {
	case s.err != "":
		lines = append(lines, th.err.Render(s.err))
	case s.loading:
		lines = append(lines, th.muted.Render("loading…"))
	case len(s.items) == 0:
		lines = append(lines, th.muted.Render("no saved sessions yet"))
	}
	start := max(0, s.cursor-room+1)
	for i := start; i < len(s.items) && len(lines) < room; i++ {
		it := s.items[i]
		mark := "  "
		if i == s.cursor {
			mark = th.selected.Render("▸ ")
		}
		title := firstNonEmpty(Sanitize(it.Title), "(untitled)")
		if it.Parent != "" { // forks share their parent's title
			title = th.muted.Render("fork of "+it.Parent[:min(6, len(it.Parent))]+" · ") + title
		}
		if it.ID == s.current { // before the title: a long title must not hide it
			title = th.ok.Render("(open) ") + title
		}
		meta := sessionRowMeta(it, s.now)
		if inner-2-cellWidth(meta) < minTitle {
			// Narrow: the title first, after the ID (seen at 60 columns: the
			// whole row was figures and no title).
			meta = it.ID[:min(6, len(it.ID))] + " "
		}
		lines = append(lines, fitLine(mark+th.muted.Render(meta)+title, inner))
	}
	for len(lines) < room {
		lines = append(lines, "")
	}
	hint := th.muted.Render(hintLine(keys, inner))
	if s.armed != "" {
		hint = th.warn.Render(fitLine("press "+shortest(keys.Delete.Keys())+" again to delete "+s.armed[:min(6, len(s.armed))], inner))
	}
	lines = append(lines, hint)
	return drawBox(lines, s.width, s.height, th.box, "Sessions")
}

// minTitle is the least room a Ctrl+S row keeps for the session's title.
const minTitle = 24

// sessionListWidth is the Ctrl+S box's width in a w-column window: most of
// a wide window (titles are long), all but a margin of a narrow one.
func sessionListWidth(w int) int { return min(w-4, max(100, w*4/5)) }

// sessionRowMeta is what a Ctrl+S row says before the title: ID, mode,
// last activity, turns, tokens and cost.
func sessionRowMeta(it debate.SessionSummary, now time.Time) string {
	return fmt.Sprintf("%s %-9s %-16s %3d turns %7s tok %s ", it.ID[:min(6, len(it.ID))], it.Mode,
		debate.ActivityAgo(it.LastActivity, now), it.Turns, strconv.Itoa(it.Tokens), it.CostText())
}

const noSessions = "sessions unavailable (no session store)"

// openSessions shows the list and loads it in the background.
func (m *Model) openSessions() tea.Cmd {
	if m.opts.Sessions == nil {
		m.setStatus(noSessions, true)
		return nil
	}
	m.sessions = &sessionList{loading: true, current: m.info.ID, now: m.opts.Now()}
	m.layout()
	st := m.opts.Sessions
	return func() tea.Msg {
		list, err := st.List()
		return sessionsListedMsg{list: list, err: err}
	}
}

func (m *Model) sessionsKey(msg tea.KeyPressMsg) tea.Cmd {
	s, k := m.sessions, m.keys.Ses
	switch {
	case key.Matches(msg, k.Close, m.keys.Sessions):
		m.sessions = nil
	case key.Matches(msg, m.keys.Quit):
		m.sessions = nil
		return m.quit()
	case key.Matches(msg, k.Up):
		s.Move(-1)
	case key.Matches(msg, k.Down):
		s.Move(1)
	case key.Matches(msg, k.Open):
		it, ok := s.Selected()
		if !ok {
			return nil
		}
		if m.engine.Busy() {
			m.setStatus("wait for the agents or press "+shortest(m.keys.Cancel.Keys())+" first", true)
			return nil
		}
		st := m.opts.Sessions
		return func() tea.Msg {
			info, entries, err := st.Load(it.ID)
			return sessionOpenedMsg{info: info, entries: entries, err: err}
		}
	case key.Matches(msg, k.Fork):
		if it, ok := s.Selected(); ok {
			return m.forkSession(it.ID, 0)
		}
	case key.Matches(msg, k.Delete):
		it, ok := s.Selected()
		if !ok {
			return nil
		}
		if it.ID == m.info.ID {
			s.err = "the open session cannot be deleted"
			return nil
		}
		if s.armed != it.ID {
			s.armed = it.ID
			return nil
		}
		st := m.opts.Sessions
		return func() tea.Msg { return sessionDeletedMsg{id: it.ID, err: st.Delete(it.ID)} }
	}
	return nil
}

// mayOpenAnother says whether the console can switch to another saved
// session now (a store, no exchange running), and why not on its status.
func (m *Model) mayOpenAnother() bool {
	if m.opts.Sessions == nil {
		m.setStatus(noSessions, true)
		return false
	}
	if m.engine.Busy() {
		m.setStatus("wait for the agents or press "+shortest(m.keys.Cancel.Keys())+" first", true)
		return false
	}
	return true
}

// forkSession copies a session into a new one and opens the copy.
func (m *Model) forkSession(id string, at int) tea.Cmd {
	if !m.mayOpenAnother() {
		return nil
	}
	if id == m.info.ID && m.tr.Len() == 0 {
		m.setStatus("nothing to fork yet: the session is empty", true)
		return nil
	}
	st := m.opts.Sessions
	return func() tea.Msg {
		info, entries, err := st.Fork(id, at)
		return sessionOpenedMsg{info: info, entries: entries, verb: "forked into", err: err}
	}
}

// saveAs writes the conversation on screen as a new session and goes on
// in it (/saveas): the way on when the session was deleted, or taken over,
// by another process while the console had it open.
func (m *Model) saveAs() tea.Cmd {
	if !m.mayOpenAnother() {
		return nil
	}
	entries := m.engine.History().Entries()
	if len(entries) == 0 {
		m.setStatus("nothing to save yet: the session is empty", true)
		return nil
	}
	st, info := m.opts.Sessions, m.engine.Info()
	return func() tea.Msg {
		saved, loaded, err := st.SaveAs(info, entries)
		return sessionOpenedMsg{info: saved, entries: loaded, verb: "saved as", err: err}
	}
}

// newSession starts an empty session in the current mode.
func (m *Model) newSession() tea.Cmd {
	if m.engine.Busy() {
		m.setStatus("wait for the agents or press "+shortest(m.keys.Cancel.Keys())+" first", true)
		return nil
	}
	info := debate.SessionInfo{ID: debate.NewSessionID(), Mode: m.engine.Current().Name(), Created: m.opts.Now()}
	if err := m.engine.Restore(info, nil); err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	m.engine.Start(false)
	m.reload()
	m.setStatus("new session "+info.ID, false)
	return nil
}

func (m *Model) export(format string) tea.Cmd {
	if m.opts.Sessions == nil {
		m.setStatus(noSessions, true)
		return nil
	}
	format = strings.ToLower(strings.TrimSpace(format))
	if format == "" {
		format = "md"
	}
	if format != "md" && format != "json" {
		m.setStatus("usage: /export md|json", true)
		return nil
	}
	if m.tr.Len() == 0 {
		m.setStatus("nothing to export yet: the session is empty", true)
		return nil
	}
	st, id := m.opts.Sessions, m.info.ID
	return func() tea.Msg {
		path, err := st.Export(id, format)
		return exportedMsg{path: path, err: err}
	}
}

// sessionResult applies what a session command returned.
func (m *Model) sessionResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sessionsListedMsg:
		if m.sessions == nil {
			return nil
		}
		m.sessions.loading = false
		if msg.err != nil {
			m.sessions.err = msg.err.Error()
		}
		m.sessions.items = msg.list
	case sessionDeletedMsg:
		if msg.err != nil {
			m.setStatus("delete: "+msg.err.Error(), true)
		} else if m.sessions != nil {
			m.sessions.Remove(msg.id)
		}
	case sessionOpenedMsg:
		if msg.err != nil {
			m.setStatus(msg.err.Error(), true)
			return nil
		}
		if err := m.engine.Restore(msg.info, msg.entries); err != nil {
			m.setStatus(err.Error(), true)
			return nil
		}
		m.engine.Start(true) // the store already holds the resumed or forked session
		m.sessions = nil
		m.reload()
		verb := msg.verb
		if verb == "" {
			verb = "resumed"
		}
		turns := 0
		if n := len(msg.entries); n > 0 {
			turns = msg.entries[n-1].Turn // a lazy load holds only the newest turns
		}
		m.setStatusOr(resumedLine(verb, msg.info, turns), resumedShort(verb, turns))
	case exportedMsg:
		if msg.err != nil {
			m.setStatus("export: "+msg.err.Error(), true)
		} else {
			m.setStatus("exported to "+msg.path, false)
		}
	}
	return nil
}

// resumedLine says which session came back and how long it is:
// resumed "magi · should we migrate…" (12 turns).
func resumedLine(verb string, info debate.SessionInfo, turns int) string {
	name := info.Title
	if name == "" {
		name = "session " + info.ID
	}
	return fmt.Sprintf("%s %q (%s)", verb, name, turnCount(turns))
}

// resumedShort is resumedLine without the title, for a narrow status line.
func resumedShort(verb string, turns int) string {
	return fmt.Sprintf("%s (%s)", verb, turnCount(turns))
}

func turnCount(turns int) string {
	if turns == 1 {
		return "1 turn"
	}
	return fmt.Sprintf("%d turns", turns)
}
