package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

func TestMentionAllStreamsSideBySide(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			e := testEngine(t, time.Millisecond)
			m := New(testOptions(e))
			tm := start(t, m, sz.w, sz.h)
			typeLine(tm, "@all hello")
			sawStreaming := false
			waitFor(t, tm, "both agents to start", func(m *Model) bool {
				for _, p := range m.panels {
					if p.state == stateStreaming {
						sawStreaming = true
					}
				}
				return len(m.panels) == 2 && m.panels[0].turn > 0 && m.panels[1].turn > 0
			})
			waitFor(t, tm, "the exchange to end", idle)
			probe(t, tm, func(m *Model) {
				if len(m.panels) != 2 || m.panels[0].name != "gemini" || m.panels[1].name != "chatgpt" {
					t.Fatalf("panels = %v, want gemini and chatgpt", panelNames(m))
				}
				for _, p := range m.panels {
					if p.state != stateDone || p.answer.String() == "" || p.usage.OutputTokens == 0 {
						t.Errorf("panel %s: state %v, %d tokens, text %q", p.name, p.state, p.usage.OutputTokens, p.answer.String())
					}
				}
				kinds := []transcript.Kind{transcript.KindUser, transcript.KindReply, transcript.KindReply}
				if m.tr.Len() != 3 {
					t.Fatalf("transcript has %d entries, want 3", m.tr.Len())
				}
				for i, k := range kinds {
					en, _ := m.tr.Entry(i + 1)
					if en.Kind != k || en.Status != transcript.StatusComplete {
						t.Errorf("entry %d: %s/%s, want %s complete", i+1, en.Kind, en.Status, k)
					}
				}
			})
			_ = sawStreaming // a fast machine may finish between two probes
			s := snapshot(t, tm)
			if sz.w >= narrowWidth && !strings.Contains(s, "Gemini") || !strings.Contains(s, "ChatGPT") {
				t.Errorf("screen lacks the agents:\n%s", s)
			}
			golden.RequireEqual(t, s)
		})
	}
}

func TestMagiCouncilVotesLive(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			e := testEngine(t, 0)
			m := New(testOptions(e))
			tm := start(t, m, sz.w, sz.h)
			tm.Send(altKey('4'))
			waitFor(t, tm, "magi mode", func(m *Model) bool { return m.engine.Current().Name() == "magi" })
			typeLine(tm, "Should we ship on Friday?")
			waitFor(t, tm, "the council to end", func(m *Model) bool { return idle(m) && m.verdict != "" })
			probe(t, tm, func(m *Model) {
				if got := panelNames(m); strings.Join(got, ",") != "melchior,balthasar,casper" {
					t.Fatalf("panels = %v", got)
				}
				for _, p := range m.panels {
					if len(p.votes) != 3 {
						t.Errorf("%s shows %d votes, want one per round (3)", p.name, len(p.votes))
					}
				}
			})
			s := snapshot(t, tm)
			if !strings.Contains(s, "VERDICT") {
				t.Errorf("no verdict banner:\n%s", s)
			}
			golden.RequireEqual(t, s)
		})
	}
}

func TestModeSwitchingKeepsHistory(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) { modeSwitching(t, sz.w, sz.h) })
	}
}

func modeSwitching(t *testing.T, w, h int) {
	e := testEngine(t, 0)
	m := New(testOptions(e))
	tm := start(t, m, w, h)
	typeLine(tm, "@all hi")
	// The exchange's end ("done") is applied before the switches, or it
	// can land after them and replace the last switch's status line.
	waitFor(t, tm, "answers", func(m *Model) bool { return idle(m) && m.tr.Len() == 3 && m.status == "done" })
	tm.Send(altKey('2'))
	waitFor(t, tm, "alternate", func(m *Model) bool { return m.engine.Current().Name() == "alternate" })
	probe(t, tm, func(m *Model) {
		if got := strings.Join(panelNames(m), ","); got != "codex,claude" {
			t.Errorf("alternate panels = %s", got)
		}
		if m.tr.Len() != 3 {
			t.Errorf("history lost on switch: %d entries", m.tr.Len())
		}
	})
	tm.Send(ctrlKey('t'))
	waitFor(t, tm, "talk after ctrl+t", func(m *Model) bool { return m.engine.Current().Name() == "talk" })
	probe(t, tm, func(m *Model) {
		if got := strings.Join(panelNames(m), ","); got != "chatgpt,gemini,mc" {
			t.Errorf("talk panels = %s", got)
		}
		// A panel belongs to the mode: ChatGPT's mention answer stays in
		// the transcript, and its talk panel says what a talk does.
		if p := m.byName["chatgpt"]; p == nil || p.state != stateIdle || p.hint != "type the topic; /rounds N, /pause, /resume, /stop" {
			t.Errorf("chatgpt's talk panel shows another mode's turn")
		}
	})
	tm.Send(altKey('1'))
	// The header follows the session's mode from the SessionUpdated event,
	// which may reach the model a frame after the engine switched.
	waitFor(t, tm, "mention", func(m *Model) bool { return m.engine.Current().Name() == "mention" && m.info.Mode == "mention" })
	probe(t, tm, func(m *Model) {
		// Back in mention mode, the panel shows its mention answer again.
		if p := m.byName["chatgpt"]; p == nil || p.state != stateDone {
			t.Errorf("chatgpt's mention panel lost its answer")
		}
	})
	golden.RequireEqual(t, snapshot(t, tm))
}

func TestScrollBackToFirstTurnAndOpenIt(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			e := testEngine(t, 0)
			for i := 1; i <= 60; i++ {
				e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "note number " + itoa(i), Started: fixedNow})
			}
			m := New(testOptions(e))
			tm := start(t, m, sz.w, sz.h)
			s := snapshot(t, tm)
			if strings.Contains(s, "note number 1\n") || !strings.Contains(s, "note number 60") {
				t.Fatalf("the console should open at the latest turn:\n%s", s)
			}
			tm.Send(keyMsg(tea.KeyTab)) // focus the transcript
			tm.Send(keyMsg(tea.KeyHome))
			waitFor(t, tm, "first turn", func(m *Model) bool { return !m.tr.follow && m.tr.top == 0 })
			s = snapshot(t, tm)
			if !strings.Contains(s, "note number 1\n") || strings.Contains(s, "note number 60") {
				t.Errorf("Home should show the first turn:\n%s", s)
			}
			golden.RequireEqual(t, s)
			// New output does not pull the view away while scrolled back.
			e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "note number 61", Started: fixedNow})
			waitFor(t, tm, "the new note", func(m *Model) bool { return m.tr.Len() == 61 })
			if s := snapshot(t, tm); !strings.Contains(s, "note number 1\n") {
				t.Errorf("new output moved the view while scrolled back:\n%s", s)
			}
			tm.Send(keyMsg(tea.KeyEnter))
			waitFor(t, tm, "the overlay", func(m *Model) bool { return m.overlay != nil })
			if s := snapshot(t, tm); !strings.Contains(s, "Turn 1") {
				t.Errorf("overlay does not show turn 1:\n%s", s)
			}
			tm.Send(keyMsg(tea.KeyEscape))
			tm.Send(keyMsg(tea.KeyPgDown))
			tm.Send(keyMsg(tea.KeyEnd))
			waitFor(t, tm, "following again", func(m *Model) bool { return m.overlay == nil && m.tr.follow })
			if s := snapshot(t, tm); !strings.Contains(s, "note number 61") {
				t.Errorf("End should show the latest turn:\n%s", s)
			}
		})
	}
}

// stallingProvider streams a fixed beginning, then waits for the cancel:
// a cancelled answer is the same on every run.
type stallingProvider struct{ words []string }

func (p stallingProvider) Name() string { return "stall" }

func (p stallingProvider) Stream(ctx context.Context, _ providers.Request) (providers.Stream, error) {
	return &stallingStream{ctx: ctx, words: p.words, i: -1}, nil
}

type stallingStream struct {
	ctx   context.Context
	words []string
	i     int
	err   error
}

func (s *stallingStream) Next() bool {
	if s.i+1 < len(s.words) {
		s.i++
		return true
	}
	<-s.ctx.Done()
	s.err = s.ctx.Err()
	return false
}
func (s *stallingStream) Delta() string { return s.words[s.i] }
func (s *stallingStream) Err() error    { return s.err }
func (s *stallingStream) Result() providers.Result {
	return providers.Result{Usage: providers.Usage{InputTokens: 50, OutputTokens: len(s.words)}}
}
func (s *stallingStream) Close() error { return nil }

func TestEscCancelsAndKeepsWhatArrived(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			e := testEngine(t, 0)
			for _, a := range e.Agents() {
				a.Provider = stallingProvider{words: []string{"The first ", "half of ", a.Label() + "'s ", "answer, and then"}}
			}
			m := New(testOptions(e))
			tm := start(t, m, sz.w, sz.h)
			typeLine(tm, "@all tell me a long story")
			waitFor(t, tm, "streaming", func(m *Model) bool {
				n := 0
				for _, p := range m.panels {
					if p.state == stateStreaming && strings.HasSuffix(p.answer.String(), "and then") {
						n++
					}
				}
				return n == 2
			})
			tm.Send(keyMsg(tea.KeyEscape))
			waitFor(t, tm, "the cancel", func(m *Model) bool { return idle(m) && strings.HasPrefix(m.status, "cancelled") })
			probe(t, tm, func(m *Model) {
				for _, p := range m.panels {
					if p.state != stateCancelled || !strings.HasPrefix(p.answer.String(), "The first half") {
						t.Errorf("panel %s: state %v text %q, want cancelled with partial text", p.name, p.state, p.answer.String())
					}
				}
				for turn := 2; turn <= 3; turn++ {
					en, _ := m.tr.Entry(turn)
					if en.Status != transcript.StatusCancelled || !strings.HasSuffix(en.Text, "and then") {
						t.Errorf("turn %d: %s %q, want cancelled with the text that arrived", turn, en.Status, en.Text)
					}
				}
			})
			s := snapshot(t, tm)
			if !strings.Contains(s, "cancelled") {
				t.Errorf("screen does not say cancelled:\n%s", s)
			}
			golden.RequireEqual(t, s)
		})
	}
}

func TestNarrowLayoutTabsPanels(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct {
		name string
		w, h int
	}{{"60x20", 60, 20}, {"80x24", 80, 24}} {
		t.Run(sz.name, func(t *testing.T) {
			e := testEngine(t, 0)
			m := New(testOptions(e))
			tm := start(t, m, sz.w, sz.h)
			typeLine(tm, "@all hello")
			waitFor(t, tm, "answers", func(m *Model) bool { return idle(m) && m.tr.Len() == 3 })
			s := snapshot(t, tm)
			for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
				if w := len([]rune(l)); w > sz.w {
					t.Errorf("line %d is %d wide (> %d): %q", i, w, sz.w, l)
				}
			}
			if !strings.Contains(s, "Gemini ✓") || !strings.Contains(s, "ChatGPT ✓") {
				t.Errorf("narrow layout should show tabs for both agents:\n%s", s)
			}
			golden.RequireEqual(t, s)
		})
	}
}

// Ctrl+C follows the engine's one policy: the first press cancels the
// agents and keeps what arrived; one more while idle quits.
func TestCtrlCCancelsThenQuits(t *testing.T) {
	t.Parallel()
	e := testEngine(t, 30*time.Millisecond)
	m := New(testOptions(e))
	tm := start(t, m, 120, 40)
	typeLine(tm, "@all a long answer please")
	waitFor(t, tm, "work", func(m *Model) bool { return m.busy() })
	tm.Send(ctrlKey('c'))
	waitFor(t, tm, "the cancel", func(m *Model) bool { return !m.busy() && !m.quitting })
	if s := snapshot(t, tm); !strings.Contains(s, "cancelled") {
		t.Errorf("no cancelled mark:\n%s", s)
	}
	tm.Send(ctrlKey('c'))
	tm.WaitFinished(t, teatestTimeout())
}

func panelNames(m *Model) []string {
	var out []string
	for _, p := range m.panels {
		out = append(out, p.name)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func teatestTimeout() teatest.FinalOpt { return teatest.WithFinalTimeout(time.Minute) }
