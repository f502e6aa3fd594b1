package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/serve/web"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// storeBackend shows saved sessions to the web page.
type storeBackend struct{ st *store.Store }

func (b storeBackend) ListSessions(context.Context) ([]debate.SessionSummary, error) {
	return nil, nil // only the session page is read here
}

func (b storeBackend) LoadSession(ctx context.Context, id string) (web.SessionView, error) {
	info, entries, err := b.st.Load(ctx, id)
	return web.SessionView{Info: info, Entries: entries}, err
}

// One MAGI council, decided 1 approve against 2 rejects: its verdict
// sentence, written once by debate, reads byte for byte the same in the
// headless output, the saved row, `sessions show`, the Markdown and JSON
// exports and the web page.
func TestVerdictSentenceIsTheSameAtEveryDoor(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	magiFakeVendors(t, func(member string, round int) providertest.Reply {
		if member == "CASPER" {
			return magiFakeVote("approve", "The launch window matters.", "Ship it.")
		}
		return magiFakeVote("reject", "Friday deploys leave nobody on call.", "Not on a Friday.")
	})
	db := filepath.Join(dir, "magi.db")
	code, headlessOut, stderr := runCLI(t, "", "--db", db, "magi", "Should we ship on Friday?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const sentence = "REJECTED after round 3: 1 approve, 2 reject, 0 abstain, 0 invalid · rule: majority"

	st, info, entries := onlySession(t, db)
	saved := ""
	for _, en := range entries {
		if en.Kind == transcript.KindVerdict {
			saved = en.Text
		}
	}
	if saved != sentence {
		t.Fatalf("saved verdict %q, want %q", saved, sentence)
	}
	outs := doorOutputs(t, modes.All(), st, db, info.ID)
	show := outs["sessions show"]
	outs["headless"] = headlessOut
	checkSentence(t, outs, sentence)
	// sessions show words the votes as prose, not their JSON.
	if strings.Contains(show, `{"vote"`) || !strings.Contains(show, "[MELCHIOR vote REJECT]: Not on a Friday. — Friday deploys leave nobody on call.") {
		t.Errorf("sessions show does not word the votes:\n%s", show)
	}
}

// A council's and a talk's outcome sentences, written once by debate
// (CouncilSentence, TalkSentence) and saved as the exchange's outcome
// entry, read byte for byte the same in the headless output, `sessions
// show`, the Markdown and JSON exports and the web page.
func TestOutcomeSentenceIsTheSameAtEveryDoor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		sentence string
	}{
		// The demo's rankings follow the session's label shuffle: who
		// ranks first and the mean rank are the saved sentence's.
		{"council", []string{"council", "--members", "gemini,chatgpt,claude", "kafka or nats?"},
			"ANSWERED by the chairman (Chairman) · top-ranked: "},
		{"talk", []string{"talk", "--rounds", "1", "--topic", "tabs or spaces"},
			"ENDED after 1 of 1 rounds · 5 turns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := isolate(t)
			db := filepath.Join(dir, tc.name+".db")
			code, headlessOut, stderr := runCLI(t, "", append([]string{"--demo", "--db", db}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			st, info, entries := onlySession(t, db)
			last := entries[len(entries)-1]
			if last.Kind != transcript.KindOutcome || !strings.HasPrefix(last.Text, tc.sentence) {
				t.Fatalf("saved outcome %+v, want %q", last, tc.sentence)
			}
			outs := doorOutputs(t, modes.All(), st, db, info.ID)
			outs["headless"] = headlessOut
			checkSentence(t, outs, last.Text)
		})
	}
}

// onlySession opens db and loads the one session in it.
func onlySession(t *testing.T, db string) (*store.Store, debate.SessionInfo, []transcript.Entry) {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v", list, err)
	}
	info, entries, err := st.Load(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return st, info, entries
}

// doorOutputs is what `sessions show`, the Markdown and JSON exports and
// the web page print of session id.
func doorOutputs(t *testing.T, known config.ModeList, st *store.Store, db, id string) map[string]string {
	t.Helper()
	_, show, _ := runWith(t, known, "", "--db", db, "sessions", "show", id)
	_, md, _ := runWith(t, known, "", "--db", db, "sessions", "export", id, "--format", "md")
	_, js, _ := runWith(t, known, "", "--db", db, "sessions", "export", id, "--format", "json")
	srv := httptest.NewServer(web.New(storeBackend{st}, web.Options{Modes: known}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/s/" + id)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return map[string]string{"sessions show": show, "Markdown export": md, "JSON export": js, "web page": string(page)}
}

// checkSentence fails for every door whose output lacks sentence (the JSON
// export: quoted).
func checkSentence(t *testing.T, outs map[string]string, sentence string) {
	t.Helper()
	quoted, _ := json.Marshal(sentence)
	for door, out := range outs {
		want := sentence
		if door == "JSON export" {
			want = string(quoted)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks the sentence %s:\n%.3000s", door, want, out)
		}
	}
}
