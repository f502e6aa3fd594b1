package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// storePager is the console's view of a real session database.
type storePager struct{ st *store.Store }

func (p storePager) List() ([]debate.SessionSummary, error) { return nil, nil }
func (p storePager) Load(id string) (debate.SessionInfo, []transcript.Entry, error) {
	return p.st.LoadRecent(context.Background(), id)
}
func (p storePager) Delete(string) error { return nil }
func (p storePager) Fork(string, int) (debate.SessionInfo, []transcript.Entry, error) {
	return debate.SessionInfo{}, nil, nil
}
func (p storePager) Export(string, string) (string, error) { return "", nil }
func (p storePager) SaveAs(info debate.SessionInfo, entries []transcript.Entry) (debate.SessionInfo, []transcript.Entry, error) {
	return store.NewBrowser(p.st, "").SaveAs(info, entries)
}
func (p storePager) Page(id string, before, limit int) ([]transcript.Entry, error) {
	return p.st.Page(context.Background(), id, before, limit)
}
func (p storePager) Totals(id string) (providers.Usage, float64, error) {
	return p.st.Totals(context.Background(), id)
}

// savedLongSession writes an alternate session of turns turns, summaries
// every ten answers as compaction leaves them, to a new database.
func savedLongSession(tb testing.TB, turns int) (*store.Store, string) {
	tb.Helper()
	st, err := store.Open(filepath.Join(tb.TempDir(), "long.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	info := debate.SessionInfo{ID: "10ad10ad10ad", Title: "a long one", Mode: "alternate", Created: fixedNow,
		State: map[string]string{"alternate.next": "codex", "alternate.step": fmt.Sprint(turns)}}
	entries := []transcript.Entry{{Turn: 1, Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "alternate",
		Text: "write a retry loop", Status: transcript.StatusComplete, Started: fixedNow, Finished: fixedNow}}
	var block []transcript.Entry
	for len(entries) < turns {
		turn := len(entries) + 1
		if len(block) == 10 {
			entries = append(entries, transcript.Entry{Turn: turn, Kind: transcript.KindSummary, Speaker: "system", Display: "Summary",
				Mode: "alternate", Text: debate.Digest(block, 1200), Status: transcript.StatusComplete, Covers: block[9].Turn,
				Started: fixedNow, Finished: fixedNow})
			block = nil
			continue
		}
		speaker := []string{"codex", "claude"}[turn%2]
		en := transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: speaker, Display: speaker, Provider: "openai", Model: "gpt-5",
			Mode: "alternate", Round: turn, Text: replyText(turn), Status: transcript.StatusComplete,
			Usage: providers.Usage{InputTokens: 1000, OutputTokens: 150}, Cost: 0.001, Started: fixedNow, Finished: fixedNow.Add(time.Second)}
		entries = append(entries, en)
		block = append(block, en)
	}
	if _, err := st.Import(context.Background(), info, entries, false); err != nil {
		tb.Fatal(err)
	}
	return st, info.ID
}

// resumeConsole opens a saved session the way `parley --resume` does and
// returns the console with its first frame drawn.
func resumeConsole(tb testing.TB, st *store.Store, id string) *Model {
	m, _ := resumeConsoleAt(tb, st, id, 160, 48)
	return m
}

// resumeConsoleAt is resumeConsole at w×h; it returns the first frame too.
func resumeConsoleAt(tb testing.TB, st *store.Store, id string, w, h int) (*Model, string) {
	info, entries, err := st.LoadRecent(context.Background(), id)
	if err != nil {
		tb.Fatal(err)
	}
	e := testEngine(tb, 0)
	if err := e.Restore(info, entries); err != nil {
		tb.Fatal(err)
	}
	opts := testOptions(e)
	opts.Sessions = storePager{st}
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	frame := m.View().Content
	if frame == "" {
		tb.Fatal("empty first frame")
	}
	return m, frame
}

// A resumed long session shows its tail at once, with the whole session's
// totals; scrolling to the top reads the older turns page by page, keeping
// the view where it was, back to the first turn.
func TestLazyResumePagesOlderTurnsIn(t *testing.T) {
	t.Parallel()
	st, id := savedLongSession(t, 1500)
	m := resumeConsole(t, st, id)
	if m.tr.First() <= 1 || m.tr.Len() != 1500 || m.tr.Len()-m.tr.First() > store.RecentTurns {
		t.Fatalf("loaded turns %d…%d", m.tr.First(), m.tr.Len())
	}
	if want, _, _ := st.Totals(context.Background(), id); m.usage != want {
		t.Fatalf("usage %+v, want the whole session's %+v", m.usage, want)
	}
	pages := 0
	for m.tr.First() > 1 {
		m.tr.Home()
		m.View()
		topTurn := m.tr.base + m.tr.top + 1
		cmd := m.pageIn()
		if cmd == nil {
			t.Fatalf("at the top of turns %d… no page is read", m.tr.First())
		}
		m.Update(cmd())
		if now := m.tr.base + m.tr.top + 1; now != topTurn {
			t.Fatalf("the view jumped from turn %d to %d", topTurn, now)
		}
		pages++
	}
	first, ok := m.tr.Entry(1)
	if !ok || first.Text != "write a retry loop" || pages < 10 {
		t.Fatalf("after %d pages turn 1 is %+v", pages, first)
	}
	if m.pageIn() != nil {
		t.Fatal("a page is read with nothing older left")
	}
	m.tr.Home()
	if !strings.Contains(m.tr.Position(), "turn 1/1500") {
		t.Fatalf("position %q", m.tr.Position())
	}
}

// BenchmarkResume opens a 50,000-turn session from its database the way
// `parley --resume` does, up to the console's first frame; it reports the
// time and the bytes allocated to get there.
func BenchmarkResume(b *testing.B) {
	const turns = 50000
	b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
		saved, id := savedLongSession(b, turns)
		path := saved.Path()
		saved.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			st, err := store.Open(path) // a fresh process opens the file
			if err != nil {
				b.Fatal(err)
			}
			m := resumeConsole(b, st, id)
			b.StopTimer()
			m.Close()
			st.Close()
			b.StartTimer()
		}
	})
}
