package tui

import (
	"github.com/parleyhq/parley/tui/prefs"

	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/spf13/viper"

	"github.com/parleyhq/parley"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/providers/demo"
)

// fixedNow is the clock of every test, so screens are the same on every run.
var fixedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// testConfig reads the embedded config.yaml the way the command does.
func testConfig(tb testing.TB) *config.Config {
	tb.Helper()
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(parley.DefaultConfig)); err != nil {
		tb.Fatal(err)
	}
	v.Set("theme", map[string]any{"base": v.GetString("theme")}) // theme: auto, as configload decodes it
	var cfg config.Config
	if err := v.Unmarshal(&cfg); err != nil {
		tb.Fatal(err)
	}
	cfg.Source, cfg.ModeList = "config.yaml (embedded)", modes.All()
	cfg.Pricing, cfg.Offline = nil, true // as with --demo
	return &cfg
}

// testEngine builds an engine whose agents all use the demo provider at pace.
func testEngine(tb testing.TB, pace time.Duration) *debate.Engine {
	tb.Helper()
	cfg := testConfig(tb)
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", pace)})
	}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		tb.Fatal(err)
	}
	// A fixed session id keeps the status line of golden screens stable.
	if err := e.Restore(debate.SessionInfo{ID: "5e55101d0000", Mode: "mention", Created: fixedNow}, nil); err != nil {
		tb.Fatal(err)
	}
	return e
}

func testOptions(e *debate.Engine) Options {
	return Options{
		Engine:     e,
		Now:        func() time.Time { return fixedNow },
		TimeFormat: func(time.Time) string { return "12:00:00" },
		// The theme is fixed as the clock is (auto waits for the terminal).
		Theme: prefs.ThemeDark,
	}
}

// harness wraps the model so a test can look at it from inside the
// program's goroutine (no data race with Update and View).
type harness struct{ *Model }

type probeMsg struct {
	f    func(*Model)
	done chan struct{}
}

func (h harness) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if p, ok := msg.(probeMsg); ok {
		p.f(h.Model)
		close(p.done)
		return h, nil
	}
	_, cmd := h.Model.Update(msg)
	return h, cmd
}

// start runs the console in teatest at w×h.
func start(t *testing.T, m *Model, w, h int) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, harness{m}, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(time.Minute))
		m.Close()
	})
	return tm
}

// probe runs f on the model inside the program.
func probe(t *testing.T, tm *teatest.TestModel, f func(*Model)) {
	t.Helper()
	done := make(chan struct{})
	tm.Send(probeMsg{f: f, done: done})
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the program did not answer a probe")
	}
}

// waitFor polls cond inside the program until it holds.
func waitFor(t *testing.T, tm *teatest.TestModel, what string, cond func(*Model) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for {
		ok := false
		probe(t, tm, func(m *Model) { ok = cond(m) })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var s string
			probe(t, tm, func(m *Model) { s = screen(m) })
			t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		<-poll.C
	}
}

// idle reports that no exchange runs and every event has been applied.
func idle(m *Model) bool { return !m.busy() && len(m.bus.ch) == 0 && !m.engine.Busy() }

// screen is the frame as plain text, trailing spaces trimmed.
func screen(m *Model) string {
	lines := m.frame()
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// snapshot returns the screen from inside the program.
func snapshot(t *testing.T, tm *teatest.TestModel) string {
	var s string
	probe(t, tm, func(m *Model) { s = screen(m) })
	return s
}

func typeLine(tm *teatest.TestModel, s string) {
	tm.Type(s)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
}

func altKey(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModAlt} }

func keyMsg(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code} }

func ctrlKey(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }

// sizes are the two terminal sizes golden screens are kept for.
var sizes = []struct {
	name string
	w, h int
}{{"120x40", 120, 40}, {"80x24", 80, 24}}

// flatten joins a screen's lines with spaces and squeezes runs of blanks
// and box borders, so a wrapped sentence reads as one.
func flatten(screen string) string {
	var words []string
	for _, l := range strings.Split(screen, "\n") {
		words = append(words, strings.Fields(strings.Trim(l, "│ "))...)
	}
	return strings.Join(words, " ")
}
