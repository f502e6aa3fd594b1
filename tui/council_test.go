package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"
)

// A demo council in the console: member panels and the chairman's side by
// side (tabs when narrow), the ranking table after stage 2, all from events.
func TestCouncilPanelsAndRankingTable(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			e := testEngine(t, 0)
			m := New(testOptions(e))
			tm := start(t, m, sz.w, sz.h)
			tm.Send(altKey('6'))
			waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
			typeLine(tm, "kafka or nats?")
			waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.council.stage3 != nil })
			probe(t, tm, func(m *Model) {
				if got := strings.Join(panelNames(m), ","); got != "gemini,chatgpt,claude,chairman" {
					t.Fatalf("panels = %s", got)
				}
				for _, p := range m.panels[:3] {
					// Back on its answer, with the ranking it cast as a badge.
					if !strings.Contains(p.answer.String(), "on *kafka or nats?*") || !strings.Contains(p.badge, "ranked") {
						t.Errorf("%s: answer %q, badge %q", p.name, p.answer.String(), p.badge)
					}
				}
				if ch := m.panels[3]; ch.state != stateDone || !strings.Contains(ch.answer.String(), "Chairman") {
					t.Errorf("chairman panel: state %v, %q", ch.state, ch.answer.String())
				}
				if len(m.council.ranked) != 3 || m.lay.tableH == 0 {
					t.Errorf("ranking table: %d rows, height %d", len(m.council.ranked), m.lay.tableH)
				}
			})
			s := snapshot(t, tm)
			for _, want := range []string{"Peer ranking", "mean  Borda", "stage 3 chairman"} {
				if !strings.Contains(s, want) {
					t.Errorf("screen lacks %q:\n%s", want, s)
				}
			}
			golden.RequireEqual(t, s)
		})
	}
}

// A failed chairman: its panel says so and shows the top-ranked answer,
// marked as the fallback; the table's last line says the same.
func TestCouncilChairmanFailureShowsTheMarkedFallback(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)
	tm.Send(altKey('6'))
	waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
	answers := []verdict.CouncilAnswer{
		{Member: "gemini", Display: "Gemini", Text: "G says", Status: string(transcript.StatusComplete)},
		{Member: "chatgpt", Display: "ChatGPT", Text: "C says \x1b[31mred", Status: string(transcript.StatusComplete)},
	}
	rankings := []verdict.CouncilRanking{
		{Ranker: "gemini", Display: "Gemini", Valid: true, Order: []string{"chatgpt"}},
		{Ranker: "chatgpt", Display: "ChatGPT", Error: "unreadable ranking after a retry: no ranking found"},
	}
	agg := verdict.Aggregate(answers, rankings)
	e.Emit(verdict.CouncilAnswersCollected{Question: "q", Answers: answers})
	e.Emit(verdict.CouncilRankingCast{CouncilRanking: rankings[1]})
	e.Emit(verdict.CouncilRanked{Rankings: rankings, Aggregate: agg})
	e.Emit(verdict.CouncilDecided{CouncilResult: verdict.CouncilResult{Question: "q", Answers: answers, Rankings: rankings, Aggregate: agg,
		Chairman: verdict.CouncilChair{Member: "claude", Seat: "chairman", Display: "Chairman", Status: verdict.CouncilFailed, Error: "anthropic: bad_request (HTTP 400): gone", Fallback: "chatgpt"}}})
	waitFor(t, tm, "the outcome", func(m *Model) bool { return m.council.outcome != "" })
	probe(t, tm, func(m *Model) {
		ch := m.byName["chairman"]
		if ch.state != stateFailed || !strings.Contains(ch.badge, "FALLBACK") || ch.answer.String() != "C says red" {
			t.Errorf("chairman panel: state %v badge %q answer %q", ch.state, ch.badge, ch.answer.String())
		}
		if b := m.byName["chatgpt"].badge; !strings.Contains(b, "INVALID") {
			t.Errorf("invalid ranking badge %q", b)
		}
	})
	s := snapshot(t, tm)
	for _, want := range []string{"CHAIRMAN FAILED", "FALLBACK: the top-ranked answer, by ChatGPT", "✗"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// A resumed council comes back as it ended: the ranking table, each
// member's stage-1 answer on its panel with the ranking it cast as a
// badge, and the chairman's answer — rebuilt from the saved turns.
func TestResumedCouncilRebuildsItsTable(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	tm := start(t, New(testOptions(e)), 120, 40)
	tm.Send(altKey('6'))
	waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
	typeLine(tm, "kafka or nats?")
	waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.council.stage3 != nil })

	resumed := testEngine(t, 0)
	if err := resumed.Restore(e.Info(), e.History().Entries()); err != nil {
		t.Fatal(err)
	}
	m := New(testOptions(resumed))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	frame := m.View().Content
	if len(m.council.ranked) != 3 || m.council.stage3 == nil {
		t.Fatalf("resumed council: %d ranked answers, chairman usage %v", len(m.council.ranked), m.council.stage3)
	}
	for _, p := range m.panels[:3] {
		if !strings.Contains(p.answer.String(), "on *kafka or nats?*") || !strings.Contains(p.badge, "ranked") {
			t.Errorf("%s after the resume: answer %q, badge %q", p.name, p.answer.String(), p.badge)
		}
	}
	if !strings.Contains(frame, "Peer ranking") {
		t.Errorf("the resumed frame has no ranking table:\n%s", frame)
	}
}

// On a 60×16 screen a resumed council shows a row for every ranked answer:
// the status line says "resumed (N turns)" in one line instead of wrapping
// the title (which the header shows) over the table's rows.
func TestResumedCouncilAtSixtyBySixteenShowsEveryRow(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 0)
	tm := start(t, New(testOptions(e)), 120, 40)
	tm.Send(altKey('6'))
	waitFor(t, tm, "council mode", func(m *Model) bool { return m.engine.Current().Name() == "council" })
	typeLine(tm, "which is better for a queue: kafka or nats?")
	waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.council.stage3 != nil })

	resumed := testEngine(t, 0)
	if err := resumed.Restore(e.Info(), e.History().Entries()); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(resumed)
	opts.Resumed = true
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 16})
	frame := ansi.Strip(m.View().Content)
	if !strings.Contains(frame, "resumed (") {
		t.Errorf("the status line should take its short form at 60 columns:\n%s", frame)
	}
	lines := strings.Split(frame, "\n")
	for i, s := range m.council.ranked {
		mean := fmt.Sprintf("%.2f", s.MeanRank)
		found := slices.ContainsFunc(lines, func(l string) bool {
			l = strings.TrimSpace(l)
			return (strings.HasPrefix(l, s.Display) || strings.HasPrefix(l, fmt.Sprintf("%d %s", i+1, s.Display))) && strings.Contains(l, mean)
		})
		if !found {
			t.Errorf("the resumed table lacks %s's row (mean %s):\n%s", s.Display, mean, frame)
		}
	}
}
