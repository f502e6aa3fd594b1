package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
	"github.com/parleyhq/parley/tui"
)

func listSessions(t *testing.T, args ...string) []store.Summary {
	t.Helper()
	code, out, errOut := runCLI(t, "", append([]string{"sessions", "list", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("sessions list: exit %d: %s", code, errOut)
	}
	var list []store.Summary
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("sessions list --json: %v\n%s", err, out)
	}
	return list
}

// The commands a new user tries, in order: a few asks, the list, a
// continued session, show, export, fork and rm.
func TestSessionsCommandsEndToEnd(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if code, _, errOut := runCLI(t, "", "sessions", "list"); code != 0 || !strings.Contains(errOut, "no saved sessions") {
		t.Fatalf("empty list: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "parley", "parley.db")); err == nil {
		t.Error("listing created a database")
	}
	for _, q := range []string{"@gemini first question", "@all second question"} {
		if code, _, errOut := runCLI(t, "", "--demo", "ask", q); code != 0 {
			t.Fatalf("ask %q: exit %d: %s", q, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "parley", "parley.db")); err != nil {
		t.Fatalf("the database is not at $XDG_DATA_HOME/parley/parley.db: %v", err)
	}
	list := listSessions(t)
	if len(list) != 2 || list[0].Title != "mention · @all second question" || list[1].Title != "mention · @gemini first question" {
		t.Fatalf("list = %+v", list)
	}
	if s := list[0]; s.Mode != "mention" || s.Turns != 3 || strings.Join(s.Agents, ",") != "chatgpt,gemini" || s.TokensOut == 0 {
		t.Errorf("summary = %+v", s)
	}
	first := list[1].ID

	// Continue the first session by prefix: the new turns join its history.
	code, _, errOut := runCLI(t, "just a note\n@chatgpt and you?\nexit\n", "--demo", "repl", "--session", first[:5])
	if code != 0 {
		t.Fatalf("repl --session: exit %d: %s", code, errOut)
	}
	list = listSessions(t)
	if len(list) != 2 || list[0].ID != first || list[0].Turns != 5 {
		t.Fatalf("after continuing, list = %+v", list)
	}

	code, out, _ := runCLI(t, "", "sessions", "show", first[:4])
	for _, want := range []string{"1 [You]: @gemini first question", "2 [Gemini]:", "3 (note): just a note", "5 [ChatGPT]:"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	code, out, _ = runCLI(t, "", "sessions", "export", first, "--format", "md")
	if code != 0 || !strings.HasPrefix(out, "# mention · @gemini first question\n") || !strings.Contains(out, "### 5. ChatGPT · gpt-6.1-sol") {
		t.Errorf("export md (exit %d):\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "sessions", "export", first, "--format", "json")
	var exp store.ExportedSession
	if err := json.Unmarshal([]byte(out), &exp); code != 0 || err != nil || exp.ConversationID != first || len(exp.Messages) != 5 ||
		exp.Messages[4].Role != "assistant" || exp.Messages[4].Speaker != "chatgpt" || exp.Messages[2].Kind != transcript.KindNote {
		t.Errorf("export json: exit %d, %v, %+v", code, err, exp)
	}
	outFile := filepath.Join(dir, "out.md")
	if code, _, errOut := runCLI(t, "", "sessions", "export", first, "-o", outFile); code != 0 {
		t.Errorf("export -o: %d %s", code, errOut)
	} else if b, _ := os.ReadFile(outFile); !strings.Contains(string(b), "just a note") {
		t.Errorf("export -o wrote %q", b)
	}

	code, out, _ = runCLI(t, "", "sessions", "fork", first, "--at", "2")
	forkID := strings.TrimSpace(out)
	if code != 0 || len(forkID) != 12 {
		t.Fatalf("fork: exit %d, %q", code, out)
	}
	// The fork continues in another mode with the parent's first two turns.
	if code, _, errOut := runCLI(t, "", "--demo", "ask", "--session", forkID, "@claude what did gemini say?"); code != 0 {
		t.Fatalf("ask in fork: %d %s", code, errOut)
	}
	list = listSessions(t)
	if len(list) != 3 || list[0].ID != forkID || list[0].Parent != first || list[0].ForkAt != 2 || list[0].Turns != 4 {
		t.Fatalf("after fork, list = %+v", list)
	}
	code, out, _ = runCLI(t, "", "sessions", "list")
	if code != 0 || !strings.Contains(out, "(fork of "+first[:8]+" at turn 2)") {
		t.Errorf("text list does not show the fork:\n%s", out)
	}

	for _, bad := range [][]string{
		{"sessions", "show", "zzzz"},
		{"sessions", "export", first, "--format", "pdf"},
		{"sessions", "fork", first, "--at", "99"},
		{"sessions", "fork", first, "--at", "two"},
		{"sessions", "rm", first, "nope"},
		{"--demo", "ask", "--session", "nope", "@gemini hi"},
	} {
		if code, _, _ := runCLI(t, "", bad...); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, cli.ExitUsage)
		}
	}
	if len(listSessions(t)) != 3 {
		t.Fatal("a failed rm deleted something")
	}
	if code, out, _ := runCLI(t, "", "sessions", "rm", first); code != 0 || !strings.Contains(out, "deleted "+first) {
		t.Fatalf("rm: %d %q", code, out)
	}
	if list := listSessions(t); len(list) != 2 || list[0].ID != forkID {
		t.Fatalf("after rm, list = %+v", list)
	}
	// With --json, rm answers in JSON like the other sessions commands.
	code, out, _ = runCLI(t, "", "--json", "sessions", "rm", forkID)
	var rm struct{ Deleted []string }
	if err := json.Unmarshal([]byte(out), &rm); code != 0 || err != nil || len(rm.Deleted) != 1 || rm.Deleted[0] != forkID {
		t.Fatalf("rm --json: exit %d, %v, %q", code, err, out)
	}
}

// --db and PARLEY_DB choose the file.
func TestDatabasePathFlagAndEnv(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	flagDB, envDB := filepath.Join(dir, "flag.db"), filepath.Join(dir, "env.db")
	setenv(t, "PARLEY_DB", envDB)
	if code, _, errOut := runCLI(t, "", "--demo", "--db", flagDB, "ask", "@gemini a"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runCLI(t, "", "--demo", "ask", "@gemini b"); code != 0 {
		t.Fatal(errOut)
	}
	if l := listSessions(t, "--db", flagDB); len(l) != 1 || l[0].Title != "mention · @gemini a" {
		t.Errorf("--db list = %+v", l)
	}
	if l := listSessions(t); len(l) != 1 || l[0].Title != "mention · @gemini b" {
		t.Errorf("PARLEY_DB list = %+v", l)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "parley", "parley.db")); err == nil {
		t.Error("the default database was written despite --db / PARLEY_DB")
	}
}

// PARLEY_DB from ./.env applies to the sessions commands too, not only to
// the commands that talk to agents.
func TestDotEnvDatabaseAppliesToSessionsCommands(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if code, _, errOut := runCLI(t, "", "--demo", "--db", "custom.db", "ask", "@gemini from the env file"); code != 0 {
		t.Fatal(errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("PARLEY_DB=custom.db\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if l := listSessions(t); len(l) != 1 || l[0].Title != "mention · @gemini from the env file" {
		t.Fatalf("sessions list with PARLEY_DB in .env = %+v", l)
	}
}

// A resumed session's agents receive the whole restored history.
func TestResumedAgentSeesTheWholeHistory(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := providertest.OpenAI(t, providertest.Sequence(
		providertest.Reply{Text: "alpha is the first answer", Usage: providers.Usage{InputTokens: 20, OutputTokens: 5}},
		providertest.Reply{Text: "beta follows alpha", Usage: providers.Usage{InputTokens: 40, OutputTokens: 4}},
	))
	setenv(t, "OPENAI_API_KEY", "sk-test-resume")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	if code, _, errOut := runCLI(t, "", "ask", "@chatgpt first question"); code != 0 {
		t.Fatal(errOut)
	}
	id := listSessions(t)[0].ID
	code, out, errOut := runCLI(t, "", "ask", "--session", id, "@chatgpt second question")
	if code != 0 || !strings.Contains(out, "beta follows alpha") {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var seen []string
	for _, m := range reqs[1].Messages {
		seen = append(seen, string(m.Role)+": "+m.Content)
	}
	joined := strings.Join(seen, "\n")
	for _, want := range []string{"first question", "assistant: alpha is the first answer", "second question"} {
		if !strings.Contains(joined, want) {
			t.Errorf("second request lacks %q:\n%s", want, joined)
		}
	}
	l := listSessions(t)
	if len(l) != 1 || l[0].Turns != 4 || l[0].TokensIn != 60 {
		t.Errorf("list = %+v", l)
	}
	// The key sent with every request is in no byte of the database.
	files, _ := filepath.Glob(filepath.Join(getenv(t, "XDG_DATA_HOME"), "parley", "*"))
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "sk-test-resume") {
			t.Errorf("%s holds the API key", f)
		}
	}
}

// The console reaches the store through tui.Sessions.
var _ tui.Sessions = (*store.Browser)(nil)

func TestConsoleStoreAdapter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := st.Record()
	rec.Sink(debate.SessionStarted{Session: debate.SessionInfo{ID: "cafe00000001", Mode: "magi", Title: "t"}})
	for i := 1; i <= 3; i++ {
		rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: i, Kind: transcript.KindNote, Speaker: "user", Text: fmt.Sprint("n", i), Status: "complete"}})
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	c := store.NewBrowser(st, dir)
	fork, entries, err := c.Fork("cafe00000001", 0)
	if err != nil || len(entries) != 3 || fork.Parent != "cafe00000001" || fork.ForkAt != 3 || fork.Mode != "magi" {
		t.Fatalf("fork all: %+v %d %v", fork, len(entries), err)
	}
	if _, entries, err = c.Fork("cafe00000001", 2); err != nil || len(entries) != 2 {
		t.Fatalf("fork at 2: %d %v", len(entries), err)
	}
	list, err := c.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("list: %+v %v", list, err)
	}
	path, err := c.Export("cafe00000001", "json")
	if err != nil || filepath.Dir(path) != dir {
		t.Fatalf("export: %q %v", path, err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"conversation_id": "cafe00000001"`) {
		t.Errorf("export file: %s", b)
	}
	if _, err := c.Export("cafe00000001", "pdf"); err == nil {
		t.Error("pdf export accepted")
	}
	if err := c.Delete(fork.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Load(fork.ID); err == nil {
		t.Error("deleted fork still loads")
	}
}

// The global --json is honoured by every command that prints data, and
// refused where it means nothing.
func TestGlobalJSONFlagEverywhere(t *testing.T) {
	t.Parallel()
	isolate(t)
	if code, _, errOut := runCLI(t, "", "--demo", "ask", "@gemini hello"); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	id := listSessions(t)[0].ID
	code, out, errOut := runCLI(t, "", "--json", "sessions", "export", id)
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc["conversation_id"] != id {
		t.Fatalf("sessions export --json: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "", "--json", "sessions", "export", id, "--format", "md"); code != 2 || !strings.Contains(errOut, "--json and --format md disagree") {
		t.Fatalf("--json with --format md: exit %d, stderr %q", code, errOut)
	}
	code, out, _ = runCLI(t, "", "--json", "version")
	var v map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["version"] == "" || v["go"] == "" {
		t.Fatalf("version --json: exit %d, %q", code, out)
	}
	if code, _, errOut := runCLI(t, "", "--json", "--demo"); code != 2 || !strings.Contains(errOut, "--json has no meaning for the full-screen console") {
		t.Fatalf("console --json: exit %d, stderr %q", code, errOut)
	}
}
