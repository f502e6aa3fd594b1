package mcp_test

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, to break the database under the server

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// The spend windows are rows of the database; when it cannot give them
// (here their table is gone, as a database that stopped answering), no
// call starts: the OpenAI door and the API answer 429 with a sentence that
// says the window could not be read — not a stale "spent $…" — and ask
// the client to come back in seconds, not at the window's reset.
func TestSpendWindowsFailClosedWhenTheDatabaseCannotGiveThem(t *testing.T) {
	t.Parallel()
	env, fakes := fakeVendors(t, func(providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Text: "an answer", Usage: providers.Usage{InputTokens: 100, OutputTokens: 500}}, true
	})
	db := filepath.Join(t.TempDir(), "spend.db")
	clock := &fixedClock{t: time.Date(2026, 11, 25, 21, 10, 0, 0, time.UTC)}
	s := startSpendServer(t, db, env, store.Windows{PerHour: 0.02, ServerPerHour: 0.03}, clock)
	if code, _, body := s.complete(t, "ada"); code != http.StatusOK {
		t.Fatalf("a call with room in the window: %d %s", code, body)
	}

	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`DROP TABLE spend_window`); err != nil {
		t.Fatal(err)
	}
	const want = `spend limit unavailable: user "ada"'s max_cost_per_hour could not be read from the database, so no call starts until it can; try again shortly`
	for door, ask := range map[string]func() (int, string, []byte){
		"OpenAI door": func() (int, string, []byte) { return s.complete(t, "ada") },
		"API": func() (int, string, []byte) {
			return s.post(t, "/api/v1/sessions", "ada", `{"user_id":"ada","mode":"mention","agents":["chatgpt"]}`)
		},
	} {
		code, retryAfter, body := ask()
		var r refusal
		_ = json.Unmarshal(body, &r)
		if code != http.StatusTooManyRequests || retryAfter != "5" || r.Error.Message != want || strings.Contains(string(body), "spent $") {
			t.Errorf("%s with the windows unreadable: %d Retry-After %q %s\nwant 429, Retry-After 5, %q", door, code, retryAfter, body, want)
		}
	}
	if got := len(fakes[0].Requests()); got != 1 {
		t.Fatalf("the provider saw %d calls, want only the first", got)
	}
}
