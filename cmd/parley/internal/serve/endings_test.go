package serve

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// heldAnswer is what every fake model answers while held: twenty words, of
// which the first four stream at once and the rest wait for the client.
const heldAnswer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"

// vendorFakes points the three vendors at fakes in their own wire formats
// (real SDKs on Parley's side). While *held is true every answer is
// heldAnswer, paused after four words until the client goes away;
// otherwise each answers at once.
func vendorFakes(t *testing.T, held *atomic.Bool) func(*config.Config) ([]*debate.Agent, error) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	h := func(r providertest.Request) providertest.Reply {
		if held.Load() {
			return providertest.Reply{Text: heldAnswer, Hold: hold, HoldAfter: 4}
		}
		if strings.Contains(r.System, `"vote"`) || strings.Contains(r.System, "approve") {
			return providertest.Reply{Text: `{"vote":"approve","reasoning":"The fake agrees.","summary":"fake approves"}`}
		}
		return providertest.Reply{Text: "FAKE-ANSWER to " + r.Model}
	}
	oa, an, ge := providertest.OpenAI(t, h), providertest.Anthropic(t, h), providertest.Gemini(t, h)
	env := map[string]string{"OPENAI_API_KEY": "k1", "ANTHROPIC_API_KEY": "k2", "GEMINI_API_KEY": "k3",
		"OPENAI_BASE_URL": oa.URL, "ANTHROPIC_BASE_URL": an.URL, "GOOGLE_GEMINI_BASE_URL": ge.URL}
	return SharedProviders(func(name string, spec providers.Spec) (providers.Provider, error) {
		return open.Open(name, spec, func(k string) string { return env[k] })
	})
}

// savedTurns is a session's turns as the server saved them (Load would
// settle a turn left streaming, hiding the defect tested here).
func savedTurns(t *testing.T, f *fixture, id string) []transcript.Entry {
	t.Helper()
	entries, err := f.st.Record().Since(context.Background(), id, 1)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// newestSession is the id of the session with the newest activity.
func newestSession(t *testing.T, f *fixture) string {
	t.Helper()
	list, err := f.st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		return ""
	}
	return list[0].ID
}

// waitSaved polls the newest session's saved turns until ok holds, within
// deadline (its own, sized for a loaded machine).
func waitSaved(t *testing.T, f *fixture, deadline time.Duration, what string, ok func([]transcript.Entry) bool) (string, []transcript.Entry) {
	t.Helper()
	end := time.Now().Add(deadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		id := newestSession(t, f)
		var entries []transcript.Entry
		if id != "" {
			entries = savedTurns(t, f, id)
		}
		if ok(entries) {
			return id, entries
		}
		if time.Now().After(end) {
			t.Fatalf("%s not seen within %v; saved turns: %+v", what, deadline, entries)
		}
	}
	return "", nil
}

// agentTurn: a turn an agent writes (an answer, a vote, a moderator's turn).
func agentTurn(en transcript.Entry) bool {
	return en.Kind == transcript.KindReply || en.Kind == transcript.KindVote || en.Kind == transcript.KindModerator
}

// streamingWords counts the agents' turns saved streaming with words.
func streamingWords(entries []transcript.Entry) int {
	n := 0
	for _, en := range entries {
		if agentTurn(en) && en.Status == transcript.StatusStreaming && strings.TrimSpace(en.Text) != "" {
			n++
		}
	}
	return n
}

func noneStreaming(entries []transcript.Entry) bool {
	for _, en := range entries {
		if en.Status == transcript.StatusStreaming {
			return false
		}
	}
	return len(entries) > 0
}

// TestDroppedSyncCallSavesCutTurnsHonestly: the synchronous routes run
// their exchange under the request. A client that drops the connection
// mid-answer (fake vendors holding every answer after four words) cancels
// it: every agent's turn begun after the drop point is saved cancelled or
// partial with the words that arrived, never complete, and the session is
// free again (a line posted to it next is answered).
func TestDroppedSyncCallSavesCutTurnsHonestly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, body string
		startFirst       bool // an active debate must exist first (unheld)
		streams          int  // agents' turns streaming at once before the drop
	}{
		{name: "debate start", path: "/api/v1/debate/start", body: `{"user_id":"ada","instruction":"leave mid-answer?"}`, streams: 1},
		{name: "debate step", path: "/api/v1/debate/step", body: `{"user_id":"ada"}`, startFirst: true, streams: 1},
		{name: "magi", path: "/api/v1/magi", body: `{"user_id":"ada","question":"leave mid-answer?","single_round":true}`, streams: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var held atomic.Bool
			f := newFixture(t, func(o *Options) { o.Agents = vendorFakes(t, &held) })
			before := 0
			if tc.startFirst {
				f.must(http.StatusOK, "POST", "/api/v1/debate/start", map[string]any{"user_id": "ada", "instruction": "begin"})
				before = len(savedTurns(t, f, newestSession(t, f)))
			}
			held.Store(true)
			callCtx, drop := context.WithCancel(context.Background())
			called := make(chan error, 1)
			go func() { called <- dropCall(callCtx, f, tc.path, tc.body) }()
			waitSaved(t, f, time.Minute, "the agents' answers streaming", func(e []transcript.Entry) bool { return streamingWords(e) == tc.streams })
			drop() // the connection goes
			select {
			case err := <-called:
				if err == nil {
					t.Fatal("the call's response ended before the drop")
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the dropped call did not return within 30s")
			}
			id, entries := waitSaved(t, f, 30*time.Second, "every turn settled after the drop", noneStreaming)
			checkCutTurns(t, entries[before:], tc.streams)
			// The session is free: the next line is taken and answered.
			held.Store(false)
			f.waitIdle(id)
			f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]any{"text": "again?"})
			f.waitIdle(id)
			after := savedTurns(t, f, id)
			if last := after[len(after)-1]; len(after) <= len(entries) || last.Status != transcript.StatusComplete {
				t.Errorf("the next exchange after the drop: %+v", after[len(entries):])
			}
		})
	}
}

// dropCall posts body and reads the answer until ctx ends (the drop); it
// returns nil only if the answer ended on its own first.
func dropCall(ctx context.Context, f *fixture, path, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.ts.URL+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// checkCutTurns fails unless the cut exchange's agent turns (want of them
// were streaming) are saved cancelled or partial with the words that had
// arrived, and no turn of it is saved complete but the question.
func checkCutTurns(t *testing.T, entries []transcript.Entry, want int) {
	t.Helper()
	cut := 0
	for _, en := range entries {
		if !agentTurn(en) {
			if en.Kind != transcript.KindUser && en.Status == transcript.StatusComplete {
				t.Errorf("turn %d (%s, %s) saved complete after the drop: %q", en.Turn, en.Kind, en.Speaker, en.Text)
			}
			continue
		}
		cut++
		t.Logf("%s (%s) saved %s with %d of 20 words", en.Speaker, en.Kind, en.Status, len(strings.Fields(en.Text)))
		if en.Status != transcript.StatusCancelled && en.Status != transcript.StatusPartial {
			t.Errorf("%s's cut turn saved %s (%q), want cancelled or partial", en.Speaker, en.Status, en.Text)
		}
		if !strings.HasPrefix(heldAnswer, en.Text) || len(strings.Fields(en.Text)) < 4 || en.Text == heldAnswer {
			t.Errorf("%s's cut turn kept %q, want the words that arrived (at least four, not all twenty)", en.Speaker, en.Text)
		}
	}
	if cut != want {
		t.Errorf("%d agent turns saved for the cut exchange, want %d: %+v", cut, want, entries)
	}
}
