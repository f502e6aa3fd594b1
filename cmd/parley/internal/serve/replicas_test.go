package serve

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/parleyhq/parley/debate/store/pgtest"
)

// Two replicas on one Postgres (each its own store and pool, as two
// processes on two machines): a session created through A is listed and
// read through B, followed live on B's event stream while A runs its
// exchange (LISTEN/NOTIFY wakes B, the database gives it the turns), and
// continued through B; both see one history numbered 1 to 6.
func TestReplicasShareSessionsOnPostgres(t *testing.T) {
	c := pgtest.Require(t)
	url := c.Schema(t)
	a, b := newFixtureOn(t, url), newFixtureOn(t, url)
	id := a.createSession(map[string]any{"mode": "mention", "title": "replicas", "user_id": "ada"})

	page := b.must(200, "GET", "/api/v1/sessions?user_id=ada", nil)
	listed := page["sessions"].([]any)
	if len(listed) != 1 || listed[0].(map[string]any)["id"] != id {
		t.Fatalf("B lists %v, want the session A created", listed)
	}
	b.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil) // B loads it: now live there
	stream := b.events(id, "", "?user_id=ada")
	a.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@all kafka or nats?"})
	completes(t, stream, 2, 3)
	a.waitIdle(id)

	back := a.events(id, "", "?user_id=ada")
	b.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@all and now?"})
	b.waitIdle(id)
	completes(t, back, 5, 6) // A followed B's exchange to its end
	for name, f := range map[string]*fixture{"A": a, "B": b} {
		detail := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
		var turns []int
		for _, en := range detail["entries"].([]any) {
			e := en.(map[string]any)
			if e["status"] != "complete" {
				t.Errorf("%s: turn %v is %v", name, e["turn"], e["status"])
			}
			turns = append(turns, int(e["turn"].(float64)))
		}
		if !slices.Equal(turns, []int{1, 2, 3, 4, 5, 6}) {
			t.Errorf("%s reads turns %v, want 1 to 6", name, turns)
		}
	}
}

// /healthz answers while the process serves; /readyz while the database
// answers at this binary's schema, by address with no token (a load
// balancer's probe) — and 503 once the database is gone, saying no more.
func TestHealthAndReadiness(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Token = "secret-token" })
	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		code, body := f.do("GET", path, nil, "Authorization", "")
		if code != 200 || string(body) != want {
			t.Errorf("%s: %d %q, want 200 %q", path, code, body, want)
		}
	}
	if code, _ := f.do("POST", "/readyz", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz: %d", code)
	}
	if err := f.st.Close(); err != nil {
		t.Fatal(err)
	}
	code, body := f.do("GET", "/readyz", nil)
	if code != http.StatusServiceUnavailable || string(body) != "database not ready\n" {
		t.Errorf("/readyz with the database closed: %d %q", code, body)
	}
	if code, _ := f.do("GET", "/healthz", nil); code != 200 {
		t.Errorf("/healthz with the database closed: %d (the process still serves)", code)
	}
}

// completes reads a session's events until each of turns is seen complete.
func completes(t *testing.T, stream *sseStream, turns ...float64) {
	t.Helper()
	seen := map[float64]string{}
	for slices.ContainsFunc(turns, func(n float64) bool { return seen[n] != "complete" }) {
		ev := stream.next(t)
		var d struct {
			Entry *struct {
				Turn   float64 `json:"turn"`
				Status string  `json:"status"`
			} `json:"entry"`
		}
		if err := json.Unmarshal([]byte(ev.data), &d); err == nil && d.Entry != nil {
			seen[d.Entry.Turn] = d.Entry.Status
		}
	}
}
