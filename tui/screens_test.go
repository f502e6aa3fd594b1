package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
)

// testBanner is the command's no-key banner (cmd/parley demoBanner).
const testBanner = "Demo agents: no API key is set. Export OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or use .env)."

// screenSizes are the sizes every mode's golden screens are kept for, from
// the smallest usable terminal to a large one.
var screenSizes = []struct {
	name string
	w, h int
}{{"60x16", 60, 16}, {"80x24", 80, 24}, {"100x30", 100, 30}, {"200x50", 200, 50}}

// modeInputs are what a user types in each mode (a mode not listed gets a
// question).
var modeInputs = map[string][]string{
	"mention":   {"@all compare Kafka and NATS for a small team"},
	"alternate": {"write a Go LRU cache"},
	"talk":      {"/rounds 1", "Is remote work here to stay?"},
	"magi":      {"Should we ship on Friday?"},
	"agent":     {"what does this project do?"},
}

// screenOptions are the options of a first run without keys.
func screenOptions(e *debate.Engine) Options {
	o := testOptions(e)
	o.Banner = testBanner
	o.ConfigPath = "built-in (yours: ./parley.yaml or /home/ada/.config/parley/config.yaml)"
	o.DatabasePath = "/home/ada/.local/share/parley/parley.db"
	return o
}

// modeKey is the Alt+digit key press of a mode's console key ("alt+4").
func modeKey(t *testing.T, mi config.ModeInfo) tea.KeyPressMsg {
	t.Helper()
	digit, ok := strings.CutPrefix(mi.Key, "alt+")
	if !ok || len(digit) != 1 {
		t.Fatalf("mode %s: key %q is not alt+digit", mi.Name, mi.Key)
	}
	return altKey(rune(digit[0]))
}

// TestModeScreensAtEverySize keeps golden screens of every mode at every
// size, first the welcome and then after an exchange, and checks what must
// hold at any size: the shown panel's answer is visible, the banner ends
// with a whole sentence, the status line says the totals once, no line is
// wider than the terminal.
func TestModeScreensAtEverySize(t *testing.T) {
	for _, mi := range modes.All().Infos() {
		for _, sz := range screenSizes {
			t.Run(mi.Name+"/"+sz.name, func(t *testing.T) {
				e := testEngine(t, 0)
				if err := e.SetWorkspace(agentProject(t)); err != nil {
					t.Fatal(err)
				}
				m := New(screenOptions(e))
				tm := start(t, m, sz.w, sz.h)
				tm.Send(modeKey(t, mi))
				waitFor(t, tm, mi.Name+" mode", func(m *Model) bool { return m.engine.Current().Name() == mi.Name })
				t.Run("welcome", func(t *testing.T) {
					s := snapshot(t, tm)
					checkScreen(t, s, sz.w, sz.h)
					if !strings.Contains(s, "Try in "+mi.Name+" mode:") {
						t.Errorf("no welcome:\n%s", s)
					}
					// The agent's panel names the folder it reads (where it fits).
					if reads := strings.Contains(s, "reading ~/queue"); reads != (mi.Name == "agent") && sz.w >= 80 {
						t.Errorf("agent mode names its folder, no other mode does (reads: %v):\n%s", reads, s)
					}
					golden.RequireEqual(t, s)
				})
				inputs, ok := modeInputs[mi.Name]
				if !ok {
					inputs = []string{"a question"}
				}
				for _, in := range inputs {
					typeLine(tm, in)
				}
				waitFor(t, tm, "the exchange to end", func(m *Model) bool { return idle(m) && m.tr.Len() > 1 && m.status != "" })
				t.Run("answered", func(t *testing.T) {
					var panelRows []string
					var lastLine string
					var s string
					probe(t, tm, func(m *Model) {
						s = screen(m)
						rows := strings.Split(s, "\n")
						panelRows = rows[m.lay.panelsY : m.lay.panelsY+m.lay.panelsH]
						p := m.panels[m.active]
						for _, l := range p.answer.Lines(m.md, max(p.width-4, 1)) {
							if l := strings.TrimSpace(ansi.Strip(l)); l != "" {
								lastLine = l
							}
						}
					})
					checkScreen(t, s, sz.w, sz.h)
					if strings.Contains(s, "Try in ") {
						t.Errorf("the welcome is still there after the first entry:\n%s", s)
					}
					if lastLine == "" || !strings.Contains(strings.Join(panelRows, "\n"), lastLine) {
						t.Errorf("the shown panel does not show its answer (%q):\n%s", lastLine, strings.Join(panelRows, "\n"))
					}
					if mi.Name == "council" {
						checkRankingRows(t, tm, s)
					}
					golden.RequireEqual(t, s)
				})
			})
		}
	}
}

// checkRankingRows checks that the council's ranking table shows a row
// for every ranked answer, each with its Borda points, at every size (at
// 60×16 it once showed only its two header lines).
func checkRankingRows(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	var rows []string
	probe(t, tm, func(m *Model) {
		all := strings.Split(s, "\n")
		rows = all[m.lay.transcriptY-m.lay.tableH : m.lay.transcriptY]
		if len(m.council.ranked) == 0 {
			t.Errorf("no ranking reached the console")
		}
		for _, r := range m.council.ranked {
			found := false
			for _, l := range rows {
				found = found || strings.Contains(l, r.Display) && slices.Contains(strings.Fields(ansi.Strip(l)), fmt.Sprint(r.Borda))
			}
			if !found {
				t.Errorf("no table row for %s (Borda %d):\n%s", r.Display, r.Borda, strings.Join(rows, "\n"))
			}
		}
	})
}

// checkScreen checks what holds on every screen: the width, the banner
// ending with a whole sentence, one token count in the status line.
func checkScreen(t *testing.T, s string, w, h int) {
	t.Helper()
	rows := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(rows) != h {
		t.Errorf("%d rows, want %d", len(rows), h)
	}
	for i, l := range rows {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("row %d is %d wide (> %d): %q", i, n, w, l)
		}
	}
	// The banner's rows follow the header; its last one ends a sentence.
	last := ""
	for _, l := range rows[1:] {
		if !strings.HasPrefix(l, " ") || strings.HasPrefix(strings.TrimSpace(l), ansi.Strip("╭")) || strings.ContainsAny(l, "╭│") {
			break
		}
		if strings.Contains(testBanner, strings.TrimSpace(l)) && strings.TrimSpace(l) != "" {
			last = strings.TrimSpace(l)
			continue
		}
		break
	}
	if last == "" || !strings.HasSuffix(last, ".") {
		t.Errorf("the banner is missing or cut mid-sentence (last row %q):\n%s", last, s)
	}
	status := rows[len(rows)-2]
	if n := strings.Count(status, " tok"); n > 1 {
		t.Errorf("the status line says the tokens %d times: %q", n, status)
	}
}

// agentProject is a small fixed folder for agent mode to read.
func agentProject(t *testing.T) string {
	t.Helper()
	// Under a home of its own, so the panel's folder reads ~/queue in
	// every run.
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, "queue")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"README.md": "# queue\n\nA tiny message queue.\n",
		"main.go":   "package main\n\nfunc main() { println(\"queue\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
