package alternate

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
)

// Entries of a saved alternate session, for the resume table below. The
// pair of modeConfig is codex (first) and claude (second).
func savedHost(text string) transcript.Entry {
	return transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Mode: "alternate", Text: text, Status: transcript.StatusComplete}
}

func savedReply(agent string, round int, status transcript.Status, text string) transcript.Entry {
	return transcript.Entry{Kind: transcript.KindReply, Speaker: agent, Mode: "alternate", Round: round, Text: text, Status: status}
}

func savedAnswer(agent string, round int) transcript.Entry {
	return savedReply(agent, round, transcript.StatusComplete, agent+" said something")
}

func savedIn(mode string, en transcript.Entry) transcript.Entry { en.Mode = mode; return en }

func savedNote(text string) transcript.Entry {
	return transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Mode: "mention", Text: text, Status: transcript.StatusComplete}
}

// TestAlternateResumeHandsTheTurnToTheRightAgent resumes sessions saved
// without alternate's state (sessions from before the state was kept, and
// forks) in every shape a history can have, and checks the agent the next
// step goes to and the step number it carries, both written out by hand
// from the rules: after a usable answer (complete, or the words that
// arrived before a cut or cancel) the other agent speaks; a responder that
// left nothing keeps its turn; a start nobody answered is no start.
func TestAlternateResumeHandsTheTurnToTheRightAgent(t *testing.T) {
	t.Parallel()
	const unstarted = "" // the next line is a start turn: codex then claude
	cases := []struct {
		name     string
		saved    []transcript.Entry
		next     string // who answers the next step
		lastStep int    // the step count saved with it (when started)
	}{
		{name: "empty session", saved: nil, next: unstarted},
		{name: "only the host's instruction", saved: []transcript.Entry{savedHost("design a cache")}, next: unstarted},
		{name: "start: first agent failed at once",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusError, "")}, next: unstarted},
		{name: "start: first agent cancelled before a word",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusCancelled, "")}, next: unstarted},
		{name: "start: first agent answered only blanks",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusComplete, " \n\t")}, next: unstarted},
		{name: "start: first agent refused (an error that kept its words)",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusError, "I cannot help with that.")}, next: unstarted},
		{name: "start: both failed",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusError, ""), savedReply("claude", 0, transcript.StatusError, "")}, next: unstarted},
		{name: "start: first answered, second not yet",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0)}, next: "claude", lastStep: 0},
		{name: "start: first answered, second failed",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedReply("claude", 0, transcript.StatusError, "")}, next: "claude", lastStep: 0},
		{name: "start: first answered, second cancelled before a word",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedReply("claude", 0, transcript.StatusCancelled, "")}, next: "claude", lastStep: 0},
		{name: "start: first cancelled mid-answer",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusCancelled, "half an answ")}, next: "claude", lastStep: 0},
		{name: "start: first cut mid-answer",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusPartial, "half an answ")}, next: "claude", lastStep: 0},
		{name: "start: first failed, second answered",
			saved: []transcript.Entry{savedHost("q"), savedReply("codex", 0, transcript.StatusError, ""), savedAnswer("claude", 0)}, next: "codex", lastStep: 0},
		{name: "start: both answered",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0)}, next: "codex", lastStep: 0},
		{name: "start: second cut mid-answer",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedReply("claude", 0, transcript.StatusPartial, "half")}, next: "codex", lastStep: 0},
		{name: "step 1 answered by the first agent",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1)}, next: "claude", lastStep: 1},
		{name: "step 1 failed: the first agent keeps its turn",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedReply("codex", 1, transcript.StatusError, "")}, next: "codex", lastStep: 1},
		{name: "step 1 refused: the first agent keeps its turn",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedReply("codex", 1, transcript.StatusError, "I cannot help with that.")},
			next:  "codex", lastStep: 1},
		{name: "step 1 failed twice, then answered",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedReply("codex", 1, transcript.StatusError, ""),
				savedReply("codex", 2, transcript.StatusError, ""), savedAnswer("codex", 3)}, next: "claude", lastStep: 3},
		{name: "step 2 by the second agent, with an instruction",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1), savedHost("now tests"), savedAnswer("claude", 2)},
			next:  "codex", lastStep: 2},
		{name: "several rounds, the last one cut",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1), savedAnswer("claude", 2), savedAnswer("codex", 3),
				savedReply("claude", 4, transcript.StatusPartial, "so f")}, next: "codex", lastStep: 4},
		{name: "several rounds, the last one cancelled before a word",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1), savedAnswer("claude", 2), savedAnswer("codex", 3),
				savedReply("claude", 4, transcript.StatusCancelled, "")}, next: "claude", lastStep: 4},
		{name: "notes after the last step",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1), savedNote("remember the deadline"), savedNote("and the budget")},
			next:  "claude", lastStep: 1},
		{name: "a mention exchange with the pair after the last step",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1),
				savedIn("mention", savedHost("@claude @codex thoughts?")), savedIn("mention", savedAnswer("claude", 0)), savedIn("mention", savedAnswer("codex", 0))},
			next: "claude", lastStep: 1},
		{name: "a mention exchange before the start",
			saved: []transcript.Entry{savedIn("mention", savedHost("@codex hi")), savedIn("mention", savedAnswer("codex", 0)), savedIn("mention", savedAnswer("claude", 3))},
			next:  unstarted},
		{name: "an agent outside the pair answered in alternate mode (config changed)",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("gemini", 5)}, next: "codex", lastStep: 0},
		{name: "the pair's tool call and error entries are no answers",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1),
				{Kind: transcript.KindToolCall, Speaker: "claude", Mode: "alternate", Round: 7, Text: "read_file x", Status: transcript.StatusComplete},
				{Kind: transcript.KindError, Speaker: "claude", Mode: "alternate", Round: 8, Text: "boom", Status: transcript.StatusComplete}},
			next: "claude", lastStep: 1},
		{name: "a step after a switch away and back",
			saved: []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedIn("magi", savedAnswer("gemini", 1)), savedAnswer("codex", 1)},
			next:  "claude", lastStep: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "mention", nil)
			saved := append([]transcript.Entry(nil), tc.saved...)
			if err := e.Restore(debate.SessionInfo{ID: "saved", Mode: "alternate"}, saved); err != nil {
				t.Fatal(err)
			}
			e.Current() // the mode works out its state from the history
			ctx := context.Background()
			if tc.next == unstarted {
				if got := e.State("alternate.next"); got != "" {
					t.Fatalf("resumed as started (next %q); want a session that still needs its start turn", got)
				}
				if err := e.Submit(ctx, ""); !errors.Is(err, ErrNoInstruction) {
					t.Fatalf("an empty line: %v, want ErrNoInstruction", err)
				}
				if err := e.Submit(ctx, "begin"); err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(log.Order(), ","); got != "codex,claude" {
					t.Fatalf("the start turn called %s, want codex,claude", got)
				}
				return
			}
			if got, want := e.State("alternate.next"), tc.next; got != want {
				t.Fatalf("resumed next = %q, want %q", got, want)
			}
			if got, want := e.State("alternate.step"), strconv.Itoa(tc.lastStep); got != want {
				t.Fatalf("resumed step = %q, want %q", got, want)
			}
			if err := e.Submit(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(log.Order(), ","); got != tc.next {
				t.Fatalf("the step after the resume called %s, want %s", got, tc.next)
			}
			if st := lastAlternateTurn(t, e, events); st.Step != tc.lastStep+1 || st.Responder != tc.next {
				t.Fatalf("the step after the resume: step %d by %s, want step %d by %s", st.Step, st.Responder, tc.lastStep+1, tc.next)
			}
		})
	}
}

// A session whose saved state names the next responder keeps it: the
// history is only read when the state is missing.
func TestAlternateResumeTrustsSavedState(t *testing.T) {
	t.Parallel()
	e, log, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "mention", nil)
	// The history alone would say claude (codex answered step 1); the saved
	// state says codex at step 6 (say, claude's step was taken out since).
	saved := []transcript.Entry{savedHost("q"), savedAnswer("codex", 0), savedAnswer("claude", 0), savedAnswer("codex", 1)}
	info := debate.SessionInfo{ID: "saved", Mode: "alternate", State: map[string]string{"alternate.next": "codex", "alternate.step": "6"}}
	if err := e.Restore(info, saved); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log.Order(), ","); got != "codex" {
		t.Fatalf("called %s, want codex", got)
	}
	if got := e.State("alternate.step"); got != "7" {
		t.Fatalf("step after the resume %q, want 7", got)
	}
}
