package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// newModel is a console outside any program, sized w×h, events applied.
func newModel(t testing.TB, e *debate.Engine, w, h int) *Model {
	m := New(testOptions(e))
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(m)
	return m
}

func TestEverySizeDrawsAnExactFrame(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	for i := 0; i < 30; i++ {
		e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: fmt.Sprintf("question %d with a long line that must wrap somewhere around the edge of a narrow terminal", i)})
	}
	for _, mode := range []string{"mention", "magi", "talk"} {
		if err := e.SetMode(mode); err != nil {
			t.Fatal(err)
		}
		m := newModel(t, e, 80, 24)
		// A streaming turn, so the live path is drawn too.
		a := e.Agents()[0]
		e.Emit(debate.TurnStarted{Entry: transcript.Entry{Turn: e.History().Len() + 1, Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Status: transcript.StatusStreaming}})
		e.Emit(debate.TextDelta{Turn: e.History().Len() + 1, Agent: a.Name, Text: "para one\n\npara **two** 日本語 wide text that keeps going and going"})
		drain(m)
		for w := 60; w <= 200; w += 7 {
			for h := 20; h <= 60; h += 8 {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				lines := strings.Split(m.View().Content, "\n")
				if len(lines) != h {
					t.Fatalf("%s %dx%d: %d lines", mode, w, h, len(lines))
				}
				for i, l := range lines {
					if got := ansi.StringWidth(l); got != w {
						t.Fatalf("%s %dx%d: line %d is %d wide: %q", mode, w, h, i, got, ansi.Strip(l))
					}
				}
			}
		}
		m.Close()
	}
}

func TestModelTextNeverReachesTheTerminalRaw(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := newModel(t, e, 120, 40)
	evil := "ok \x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ bell\a \u009b1;1H end"
	a, _ := e.Agent("gemini")
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@all " + evil})
	turn := e.History().Len() + 1
	e.Emit(debate.TurnStarted{Entry: transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Status: transcript.StatusStreaming}})
	e.Emit(debate.TextDelta{Turn: turn, Agent: a.Name, Text: evil})
	e.Emit(debate.Retrying{Turn: turn, Agent: a.Name, Wait: time.Second, Err: "503 \x1b[2J"})
	drain(m)
	check := func(stage string) {
		frame := m.View().Content
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\x07", "\u009b", "\x1b[1;1H"} {
			if strings.Contains(frame, bad) {
				t.Errorf("%s: the frame carries %q from the model", stage, bad)
			}
		}
		if !strings.Contains(ansi.Strip(frame), "red") {
			t.Errorf("%s: the text around the escapes is lost", stage)
		}
	}
	check("streaming")
	e.Emit(debate.TurnFinished{Entry: transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: a.Name, Display: a.Label(), Text: evil, Status: transcript.StatusError, Error: "boom \x1b]0;x\x07"}})
	drain(m)
	check("finished")
	m.openOverlay(turnDetail(m.tr.entries[turn-1], m.md, m.opts.TimeFormat))
	check("overlay")
}

func TestTranscriptRendersOnlyWhatIsVisible(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	for i := 0; i < 1000; i++ {
		e.AddEntry(transcript.Entry{Kind: transcript.KindReply, Speaker: "gemini", Text: replyText(i)})
	}
	m := newModel(t, e, 200, 60)
	m.View()
	if n := len(m.tr.cache); n == 0 || n > 20 {
		t.Fatalf("%d turns rendered for one screen of a 1000-turn history", n)
	}
	cached := m.tr.cache[1000].lines
	m.View()
	if &m.tr.cache[1000].lines[0] != &cached[0] {
		t.Error("a finished turn was rendered again at the same width")
	}
	m.Update(tea.WindowSizeMsg{Width: 150, Height: 60})
	m.View()
	if c := m.tr.cache[1000]; c.width != m.tr.bodyWidth() {
		t.Errorf("cache width %d after resize, want %d", c.width, m.tr.bodyWidth())
	}
}

func TestTranscriptFollowsOnlyAtTheBottom(t *testing.T) {
	t.Parallel()
	tr := newTranscript(newMarkdown(newTheme(prefs.ThemeDark)), nil, func(time.Time) string { return "t" })
	tr.SetSize(60, 10)
	add := func(i int) {
		tr.Put(transcript.Entry{Turn: i, Kind: transcript.KindNote, Speaker: "user", Text: fmt.Sprintf("line %d", i), Status: transcript.StatusComplete})
	}
	for i := 1; i <= 20; i++ {
		add(i)
	}
	view := func() string {
		lines := tr.View()
		for i, l := range lines {
			lines[i] = strings.TrimRight(ansi.Strip(l), " ")
		}
		return strings.Join(lines, "\n") + "\n"
	}
	if !strings.Contains(view(), "line 20") {
		t.Fatal("not at the bottom at first")
	}
	add(21)
	if !strings.Contains(view(), "line 21") {
		t.Fatal("does not follow new output at the bottom")
	}
	tr.ScrollUp(15)
	before := view()
	add(22)
	if view() != before {
		t.Fatal("new output moved the view while scrolled back")
	}
	tr.ScrollDown(1000)
	if !tr.follow || !strings.Contains(view(), "line 22") {
		t.Fatal("scrolling to the end does not resume following")
	}
	tr.Home()
	if v := view(); !strings.Contains(v, "line 1\n") || tr.follow {
		t.Fatalf("Home does not show the first turn:\n%s", v)
	}
	tr.focused = true
	tr.sel = 0
	for i := 0; i < 21; i++ {
		tr.Move(1)
		tr.View()
	}
	if tr.sel != 21 || !strings.Contains(view(), "line 22") {
		t.Fatalf("moving the selection to the end: sel %d\n%s", tr.sel, view())
	}
}

func TestInputCompletesNamesAndKeepsHistory(t *testing.T) {
	t.Parallel()
	in := newInput([]string{"gemini", "chatgpt", "claude", "codex", "casper"}, modes.All().Names())
	in.SetSize(80, 0)
	in.Focus()
	for _, r := range "hi @ge" {
		in.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if got := in.Suggestions(); len(got) != 1 || got[0] != "gemini" {
		t.Fatalf("suggestions %v", got)
	}
	if !in.Complete() || in.Value() != "hi @gemini " {
		t.Fatalf("completed to %q", in.Value())
	}
	in.SetValue("@c")
	if got := in.Suggestions(); len(got) != 4 {
		t.Fatalf("@c suggests %v", got)
	}
	// Nothing to extend: tab cycles through the names (and keeps the focus).
	if !in.Complete() || in.Value() != "@casper" {
		t.Fatalf("ambiguous @c: tab gave %q, want the first name", in.Value())
	}
	in.SetValue("@cl")
	in.Complete()
	if in.Value() != "@claude " {
		t.Fatalf("@cl completed to %q", in.Value())
	}
	// /mode completes the modes the engine knows.
	in.SetValue("/mode ma")
	if !in.Complete() || in.Value() != "/mode magi " {
		t.Fatalf("/mode ma completed to %q", in.Value())
	}
	in.SetValue("/mode a")
	if got := in.Suggestions(); !slices.Equal(got, []string{"agent", "alternate"}) && !slices.Equal(got, []string{"alternate", "agent"}) {
		t.Fatalf("/mode a suggests %v", got)
	}
	in.SetValue("one")
	in.Take()
	in.SetValue("two")
	if in.Take() != "two" || in.Value() != "" {
		t.Fatal("Take does not clear the box")
	}
	steps := []struct {
		prev bool
		want string
	}{{true, "two"}, {true, "one"}, {true, "one"}, {false, "two"}, {false, ""}}
	for i, s := range steps {
		if !in.Browsing() {
			t.Fatalf("step %d: not browsing with %q", i, in.Value())
		}
		if s.prev {
			in.HistoryPrev()
		} else {
			in.HistoryNext()
		}
		if in.Value() != s.want {
			t.Fatalf("step %d: %q, want %q", i, in.Value(), s.want)
		}
	}
	in.SetValue("edited")
	in.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if in.Browsing() {
		t.Fatal("an edited line still walks the history")
	}
}

func TestParseSlash(t *testing.T) {
	t.Parallel()
	cases := map[string]slashCommand{
		"/mode magi":     {"mode", "magi"},
		"/MODE  talk ":   {"mode", "talk"},
		"/export json":   {"export", "json"},
		"/new":           {"new", ""},
		"exit":           {"quit", ""},
		"quit":           {"quit", ""},
		"  /help  ":      {"help", ""},
		"/rounds 5":      {"rounds", "5"},
		"/agents please": {"agents", "please"},
	}
	for in, want := range cases {
		got, ok := parseSlash(in)
		if !ok || got != want {
			t.Errorf("parseSlash(%q) = %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{"hello", "@all /mode", "//not a command", "exit now"} {
		if c, ok := parseSlash(in); ok {
			t.Errorf("parseSlash(%q) = %+v, want no command", in, c)
		}
	}
}

func TestEventBusLosesNothingWhenFull(t *testing.T) {
	t.Parallel()
	bus := newEventBus(4)
	const n = 20000
	var want strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&want, "%d,", i)
	}
	go func() {
		for i := 0; i < n; i++ {
			bus.Sink(debate.TextDelta{Turn: 1, Text: fmt.Sprintf("%d,", i)})
		}
	}()
	var got strings.Builder // a frame's deltas arrive merged: their text, in order
	for got.Len() < want.Len() {
		msg, ok := bus.Wait().(eventsMsg)
		if !ok {
			t.Fatal("the bus closed early")
		}
		if len(msg) > maxBatch {
			t.Fatalf("batch of %d", len(msg))
		}
		for _, ev := range msg {
			got.WriteString(ev.(debate.TextDelta).Text)
		}
		if !strings.HasPrefix(want.String(), got.String()) {
			t.Fatalf("after %d bytes the text differs: lost or out of order", got.Len())
		}
	}
	// Once the console is gone, a blocked engine is released.
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10; i++ {
			bus.Sink(debate.TextDelta{})
		}
		close(done)
	}()
	bus.Close()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the sink blocks after Close")
	}
}

func TestCellWidthMatchesAnsi(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "\x1b[1;31mred\x1b[0m", "╭─ box ─╮", "· … → ✓ ✗ ⚖ ● ⣾", "日本語", "e\u0301", "👍🏽 emoji", "\x1b]8;;u\x1b\\l\x1b]8;;\x1b\\"} {
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Errorf("cellWidth(%q) = %d, ansi says %d", s, got, want)
		}
	}
}

func FuzzCellWidth(f *testing.F) {
	for _, s := range []string{"abc", "╭─╮", "日本", "· ✓", "e\u0301x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = "\x1b[38;2;1;2;3m" + Sanitize(s) + "\x1b[0m"
		if got, want := cellWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("cellWidth(%q) = %d, ansi says %d", s, got, want)
		}
	})
}

func TestBannerAndMissingKeyNote(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	opts := testOptions(e)
	opts.Banner = "no API key is set: export OPENAI_API_KEY"
	opts.AgentNotes = map[string]string{"chatgpt": "no key: set OPENAI_API_KEY"}
	m := New(opts)
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	s := screen(m)
	if !strings.Contains(s, "export OPENAI_API_KEY") || !strings.Contains(s, "no key: set OPENAI_API_KEY") {
		t.Fatalf("banner or note missing:\n%s", s)
	}
}

func TestPanelShowsToolCallsAsTheyRun(t *testing.T) {
	t.Parallel()
	a := &debate.Agent{AgentSpec: config.AgentSpec{Name: "claude", Display: "Claude", Model: "m"}, Provider: demo.New("demo")}
	p := newPanel(a, "", newTheme(prefs.ThemeDark))
	p.SetSize(60, 12)
	p.Start(transcript.Entry{Turn: 1, Kind: transcript.KindReply})
	p.Tool(debate.ToolActivity{Turn: 1, Agent: "claude", Call: transcript.ToolCall{Tool: "read_file", Parameters: map[string]string{"path": "main.go"}}})
	view := func() string {
		return ansi.Strip(strings.Join(p.View(newMarkdown(newTheme(prefs.ThemeDark)), "*", fixedNow, false), "\n"))
	}
	if !strings.Contains(view(), "⋯ read_file main.go") {
		t.Fatalf("running tool call not shown:\n%s", view())
	}
	p.Tool(debate.ToolActivity{Turn: 1, Agent: "claude", Call: transcript.ToolCall{Tool: "read_file", Parameters: map[string]string{"path": "main.go"}, Result: "package main"}, Done: true})
	if v := view(); !strings.Contains(v, "✓ read_file main.go") || strings.Contains(v, "⋯ read_file") {
		t.Fatalf("finished tool call not shown:\n%s", v)
	}
}

func TestAgentModeShowsToolCalls(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.SetWorkspace(dir); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)
	tm.Send(altKey('5'))
	waitFor(t, tm, "agent mode", func(m *Model) bool { return m.engine.Current().Name() == "agent" })
	typeLine(tm, "what does this code do?")
	waitFor(t, tm, "the agent to finish", func(m *Model) bool { return idle(m) && m.tr.Len() > 1 })
	probe(t, tm, func(m *Model) {
		if len(m.panels) != 1 {
			t.Fatalf("agent mode shows %d panels, want 1", len(m.panels))
		}
		tools := 0
		for turn := 1; turn <= m.tr.Len(); turn++ {
			if en, _ := m.tr.Entry(turn); en.Kind == transcript.KindToolCall || en.Kind == transcript.KindToolResult || len(en.ToolCalls) > 0 {
				tools++
			}
		}
		if tools == 0 && len(m.panels[0].tools) == 0 {
			t.Errorf("no tool call reached the console:\n%s", screen(m))
		}
	})
}

func TestOverlayShowsRawVoteJSON(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	raw := `{"vote":"approve","reasoning":"cheap and reversible","summary":"approves"}`
	e.AddEntry(transcript.Entry{Kind: transcript.KindVote, Speaker: "melchior", Model: "gpt-5", Round: 1, Vote: "approve", Text: raw,
		Usage: providers.Usage{InputTokens: 120, OutputTokens: 30}, Started: fixedNow, Finished: fixedNow.Add(1500 * time.Millisecond)})
	m := newModel(t, e, 120, 40)
	m.key(keyMsg(tea.KeyTab))
	m.View()
	m.key(keyMsg(tea.KeyEnter))
	if m.overlay == nil {
		t.Fatal("enter on the selected turn opened nothing")
	}
	s := screen(m)
	for _, want := range []string{raw[:40], "gpt-5", "120 in", "30 out", "1.5s", "round"} {
		if !strings.Contains(s, want) {
			t.Errorf("overlay lacks %q:\n%s", want, s)
		}
	}
	m.key(keyMsg(tea.KeyEscape))
	if m.overlay != nil {
		t.Error("esc does not close the overlay")
	}
}

// fakeSessions records what the console asked of the store.
type fakeSessions struct {
	mu      sync.Mutex
	calls   []string
	entries []transcript.Entry
}

func (f *fakeSessions) note(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeSessions) List() ([]debate.SessionSummary, error) {
	f.note("list")
	return []debate.SessionSummary{
		{SessionInfo: debate.SessionInfo{ID: "aaaaaa111111", Title: "old talk", Mode: "mention", Created: fixedNow.Add(-48 * time.Hour)},
			Turns: 7, Tokens: 1234, Cost: 0.0123, LastActivity: fixedNow.Add(-5 * time.Minute)},
		{SessionInfo: debate.SessionInfo{ID: "bbbbbb222222", Title: "other", Mode: "magi", Created: fixedNow}, LastActivity: fixedNow.Add(-3 * time.Hour)},
	}, nil
}

func (f *fakeSessions) Load(id string) (debate.SessionInfo, []transcript.Entry, error) {
	f.note("load " + id)
	return debate.SessionInfo{ID: id, Title: "old talk", Mode: "mention", Created: fixedNow}, f.entries, nil
}

func (f *fakeSessions) Delete(id string) error { f.note("delete " + id); return nil }

func (f *fakeSessions) Fork(id string, at int) (debate.SessionInfo, []transcript.Entry, error) {
	f.note(fmt.Sprintf("fork %s %d", id, at))
	return debate.SessionInfo{ID: "cccccc333333", Mode: "mention", Parent: id}, f.entries, nil
}

func (f *fakeSessions) SaveAs(info debate.SessionInfo, entries []transcript.Entry) (debate.SessionInfo, []transcript.Entry, error) {
	f.note("saveas " + info.ID)
	info.ID = "dddddd444444"
	return info, entries, nil
}

func (f *fakeSessions) Export(id, format string) (string, error) {
	f.note("export " + id + " " + format)
	if format == "json" {
		return "", errors.New("disk full")
	}
	return "/tmp/parley-" + id + "." + format, nil
}

func (f *fakeSessions) Calls() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ";")
}

func TestSessionListResumesForksDeletesExports(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	fake := &fakeSessions{entries: []transcript.Entry{{Turn: 1, Kind: transcript.KindNote, Speaker: "user", Text: "from the old session", Status: transcript.StatusComplete}}}
	opts := testOptions(e)
	opts.Sessions = fake
	m := New(opts)
	tm := start(t, m, 120, 40)
	tm.Send(ctrlKey('s'))
	waitFor(t, tm, "the list", func(m *Model) bool { return m.sessions != nil && len(m.sessions.items) == 2 })
	// Each row: mode, last activity (not creation), turns, tokens, cost.
	if s := snapshot(t, tm); !strings.Contains(s, "aaaaaa mention   5 min ago          7 turns    1234 tok $0.0123 old talk") ||
		!strings.Contains(s, "bbbbbb magi      3 h ago            0 turns       0 tok $0.0000 other") {
		t.Fatalf("list rows:\n%s", s)
	}
	tm.Send(keyMsg(tea.KeyDown))
	tm.Send(tea.KeyPressMsg{Code: 'd', Text: "d"})
	tm.Send(tea.KeyPressMsg{Code: 'd', Text: "d"})
	waitFor(t, tm, "the delete", func(m *Model) bool { return len(m.sessions.items) == 1 })
	tm.Send(keyMsg(tea.KeyEnter))
	waitFor(t, tm, "the resume", func(m *Model) bool { return m.sessions == nil && m.info.ID == "aaaaaa111111" })
	if s := snapshot(t, tm); !strings.Contains(s, "from the old session") {
		t.Fatalf("resumed history not shown:\n%s", s)
	}
	typeLine(tm, "/fork")
	waitFor(t, tm, "the fork", func(m *Model) bool { return m.info.ID == "cccccc333333" })
	typeLine(tm, "/export md")
	waitFor(t, tm, "the export", func(m *Model) bool { return strings.Contains(m.status, "exported to") })
	typeLine(tm, "/export json")
	waitFor(t, tm, "the export error", func(m *Model) bool { return strings.Contains(m.status, "disk full") && m.statusErr })
	want := "list;delete bbbbbb222222;load aaaaaa111111;fork aaaaaa111111 0;export cccccc333333 md;export cccccc333333 json"
	if got := fake.Calls(); got != want {
		t.Errorf("store calls:\n got %s\nwant %s", got, want)
	}
}

func TestSessionsUnavailableWithoutStore(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := newModel(t, e, 100, 30)
	m.key(ctrlKey('s'))
	if m.sessions != nil || !strings.Contains(m.status, "sessions unavailable") {
		t.Fatalf("status %q", m.status)
	}
}

func TestAlternateStepsOnEmptyEnter(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)
	tm.Send(altKey('2'))
	waitFor(t, tm, "alternate", func(m *Model) bool { return m.engine.Current().Name() == "alternate" })
	typeLine(tm, "design a rate limiter")
	waitFor(t, tm, "the first answer", func(m *Model) bool { return idle(m) && m.tr.Len() >= 2 })
	var before int
	probe(t, tm, func(m *Model) { before = m.tr.Len() })
	tm.Send(keyMsg(tea.KeyEnter)) // empty input: the next step
	waitFor(t, tm, "the next step", func(m *Model) bool { return idle(m) && m.tr.Len() > before })
	probe(t, tm, func(m *Model) {
		last, _ := m.tr.Entry(m.tr.Len())
		first, _ := m.tr.Entry(before)
		if last.Speaker == first.Speaker {
			t.Errorf("the step was answered by %s again", last.Speaker)
		}
	})
}

// /stop ends a talk gracefully: the current turn finishes, the MC closes.
func TestTalkSlashStopEndsTheTalk(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 5*time.Millisecond)
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)
	tm.Send(altKey('3'))
	waitFor(t, tm, "talk", func(m *Model) bool { return m.engine.Current().Name() == "talk" })
	typeLine(tm, "tabs or spaces")
	waitFor(t, tm, "the talk", func(m *Model) bool { return m.busy() })
	typeLine(tm, "/stop")
	waitFor(t, tm, "the talk to stop", func(m *Model) bool { return idle(m) && !m.quitting })
	probe(t, tm, func(m *Model) {
		rounds := 0
		for turn := 1; turn <= m.tr.Len(); turn++ {
			if en, _ := m.tr.Entry(turn); en.Round > rounds {
				rounds = en.Round
			}
		}
		if rounds >= 3 {
			t.Errorf("the talk ran all %d rounds after stop", rounds)
		}
	})
}
