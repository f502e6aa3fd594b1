package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers/providertest"
)

// cliGolden reads a golden file of the headless commands (cmd/parley):
// the API must answer what the CLI prints.
func cliGolden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Seed 001's start/step answer exactly the seed's turn object: the same
// lines parley alternate --json prints (its golden file), start then steps.
func TestSeedStartStepGolden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var got bytes.Buffer
	for i, req := range []struct{ path, body string }{
		{"/api/v1/debate/start", `{"user_id":"ada","instruction":"write an LRU cache"}`},
		{"/api/v1/debate/step", `{"user_id":"ada"}`},
		{"/api/v1/debate/step", `{"user_id":"ada","instruction":""}`},
	} {
		code, body := f.do("POST", req.path, req.body)
		if code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, code, body)
		}
		got.Write(body)
	}
	if want := cliGolden(t, "alternate.json"); got.String() != string(want) {
		t.Errorf("seed answers differ from parley alternate --json:\n got: %s\nwant: %s", got.String(), want)
	}
}

// Each user has their own debate; a step without one is a 409 that says
// what to do; one user never sees another's sessions.
func TestSeedPerUserIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	msg := f.errorCode(http.StatusConflict, "no_debate", "POST", "/api/v1/debate/step", `{"user_id":"bob"}`)
	if !strings.Contains(msg, "/api/v1/debate/start") {
		t.Errorf("409 message does not say how to start: %q", msg)
	}
	f.must(http.StatusOK, "POST", "/api/v1/debate/start", map[string]string{"user_id": "ada", "instruction": "pick a queue"})
	f.errorCode(http.StatusConflict, "no_debate", "POST", "/api/v1/debate/step", `{"user_id":"bob"}`)
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/debate/step", `{}`)
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/debate/start", `{"user_id":"ada"}`)

	ada := f.must(http.StatusOK, "GET", "/api/v1/sessions?user_id=ada", nil)["sessions"].([]any)
	if len(ada) != 1 {
		t.Fatalf("ada has %d sessions, want 1", len(ada))
	}
	id := ada[0].(map[string]any)["id"].(string)
	if bob := f.must(http.StatusOK, "GET", "/api/v1/sessions?user_id=bob", nil)["sessions"].([]any); len(bob) != 0 {
		t.Errorf("bob sees %d sessions", len(bob))
	}
	f.errorCode(http.StatusNotFound, "not_found", "GET", "/api/v1/sessions/"+id+"?user_id=bob", nil)
	f.errorCode(http.StatusNotFound, "not_found", "GET", "/api/v1/sessions/"+id, nil)
	f.errorCode(http.StatusNotFound, "not_found", "DELETE", "/api/v1/sessions/"+id+"?user_id=bob", nil)
	got := f.must(http.StatusOK, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	if got["session"].(map[string]any)["mode"] != "alternate" || len(got["entries"].([]any)) != 3 {
		t.Errorf("ada's debate: %v", got)
	}
	// The session is stored like any other (its recorder writes in the
	// background: flush it first).
	f.srv.sessions.mu.Lock()
	ss := f.srv.sessions.live[id]
	f.srv.sessions.mu.Unlock()
	if err := ss.rec.Flush(); err != nil {
		t.Fatal(err)
	}
	_, entries, err := f.st.Load(t.Context(), id)
	if err != nil || len(entries) != 3 {
		t.Fatalf("stored: %d entries, %v", len(entries), err)
	}
}

// POST /api/v1/magi answers the same document as parley magi --json.
func TestMagiMatchesCLI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	code, body := f.do("POST", "/api/v1/magi", `{"question":"ship on friday?"}`)
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	masked := regexp.MustCompile(`"session_id": "[0-9a-f]{12}"`).ReplaceAllString(string(body), `"session_id": "ID"`)
	if want := cliGolden(t, "magi.json"); masked != string(want) {
		t.Errorf("magi answer differs from parley magi --json:\n%s", body)
	}
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/magi", `{"question":"q","preset":"sideways"}`)
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/magi", `{"question":"  "}`)
	f.errorCode(http.StatusBadRequest, "bad_field", "POST", "/api/v1/magi", `{"question":"q","model":"nope/x"}`)
	code, body = f.do("POST", "/api/v1/magi", `{"question":"ship?","single_round":true}`)
	var one struct{ Rounds [][]any }
	if code != 200 || json.Unmarshal(body, &one) != nil || len(one.Rounds) != 1 {
		t.Errorf("single round: %d %s", code, body)
	}
}

// A session's life over the API: create, list (paged), post, follow the
// events, read the entries, switch mode, delete.
func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "mention", "title": "queues", "user_id": "ada"})
	second := f.createSession(map[string]any{"mode": "magi", "user_id": "ada"})

	page := f.must(200, "GET", "/api/v1/sessions?user_id=ada&limit=1", nil)
	list, next := page["sessions"].([]any), page["next_cursor"].(string)
	if len(list) != 1 || next == "" {
		t.Fatalf("first page: %v", page)
	}
	page = f.must(200, "GET", "/api/v1/sessions?user_id=ada&limit=1&cursor="+next, nil)
	if rest := page["sessions"].([]any); len(rest) != 1 || page["next_cursor"] != "" ||
		rest[0].(map[string]any)["id"] == list[0].(map[string]any)["id"] {
		t.Fatalf("second page: %v", page)
	}

	detail := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	panels := detail["panels"].([]any)
	if len(panels) != 2 || panels[0].(map[string]any)["name"] != "gemini" || detail["busy"] != false {
		t.Fatalf("detail: %v", detail)
	}
	stream := f.events(id, "", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@all kafka or nats?"})
	evs := stream.until(t, "exchange_finished")
	text := map[string]string{}
	for _, ev := range evs {
		if ev.id == 0 {
			t.Errorf("event without id: %+v", ev)
		}
		if ev.typ == "text_delta" {
			var d struct{ Agent, Text string }
			_ = json.Unmarshal([]byte(ev.data), &d)
			text[d.Agent] += d.Text
		}
		if !strings.HasPrefix(ev.data, `{"type":"`+ev.typ+`"`) {
			t.Errorf("data is not the event's JSON: %s", ev.data)
		}
	}
	if text["gemini"] == "" || text["chatgpt"] == "" {
		t.Errorf("deltas of both agents expected: %v", text)
	}
	f.waitIdle(id)
	detail = f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada&after=1&limit=1", nil)
	entries := detail["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["turn"].(float64) != 2 || detail["next_cursor"] != "2" {
		t.Fatalf("entries page: %v", detail)
	}
	if en := entries[0].(map[string]any); en["text"] != text[en["speaker"].(string)] {
		t.Errorf("entry text %q is not the streamed text %q", en["text"], text[en["speaker"].(string)])
	}

	f.errorCode(400, "bad_control", "POST", "/api/v1/sessions/"+id+"/control?user_id=ada", `{"kind":"pause"}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions/"+id+"/control?user_id=ada", `{"kind":"jump"}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions/"+id+"/control?user_id=ada", `{"kind":"rounds"}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions/"+id+"/mode?user_id=ada", `{"mode":"chess"}`)
	out := f.must(200, "POST", "/api/v1/sessions/"+id+"/mode?user_id=ada", map[string]string{"mode": "talk"})
	if out["session"].(map[string]any)["mode"] != "talk" {
		t.Errorf("mode: %v", out)
	}
	f.errorCode(409, "not_running", "POST", "/api/v1/sessions/"+id+"/control?user_id=ada", `{"kind":"pause"}`)
	f.must(200, "POST", "/api/v1/sessions/"+id+"/control?user_id=ada", map[string]any{"kind": "rounds", "n": 1})

	f.must(200, "DELETE", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	f.errorCode(404, "not_found", "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	f.errorCode(404, "not_found", "DELETE", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	if _, _, err := f.st.Load(t.Context(), id); err == nil {
		t.Error("deleted session still stored")
	}
	f.must(200, "GET", "/api/v1/sessions/"+second+"?user_id=ada", nil)
}

// A session created over the API is saved and comes back after a restart.
func TestSessionLoadedOnDemand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.createSession(map[string]any{"mode": "mention", "user_id": "ada"})
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@gemini hello"})
	f.waitIdle(id)
	f.srv.sessions.closeAll() // as a restart would leave it: nothing live
	detail := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)
	if n := len(detail["entries"].([]any)); n != 2 {
		t.Fatalf("reloaded session has %d entries, want 2", n)
	}
}

// Each error status, with the one error shape.
func TestErrorStatuses(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newFixture(t, func(o *Options) {
		o.MaxBody = 256
		o.Agents = fakeAgents(t, func(providertest.Request) providertest.Reply {
			<-release
			return providertest.Reply{Text: "done"}
		})
	})
	id := f.createSession(map[string]any{"mode": "mention"})
	f.errorCode(400, "bad_json", "POST", "/api/v1/sessions", `{"mode":`)
	f.errorCode(400, "bad_json", "POST", "/api/v1/sessions", ``)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"mood":"x"}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"mode":3}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"mode":"chess"}`)
	f.errorCode(400, "unknown_agent", "POST", "/api/v1/sessions", `{"mode":"mention","agents":["hal"]}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"mode":"alternate","agents":["claude"]}`)
	f.errorCode(413, "too_large", "POST", "/api/v1/sessions/"+id+"/messages", `{"text":"`+strings.Repeat("x", 300)+`"}`)
	f.errorCode(404, "not_found", "GET", "/api/v1/sessions/ffffffffffff", nil)
	f.errorCode(404, "not_found", "POST", "/api/v1/sessions/ffffffffffff/messages", `{"text":"hi"}`)
	f.errorCode(404, "not_found", "GET", "/api/v1/nothing", nil)
	f.errorCode(400, "bad_query", "GET", "/api/v1/sessions?limit=many", nil)
	f.errorCode(400, "bad_query", "GET", "/api/v1/sessions?cursor=%21", nil)

	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@gemini slow one"})
	f.errorCode(409, "busy", "POST", "/api/v1/sessions/"+id+"/messages", `{"text":"@gemini again"}`)
	f.errorCode(409, "busy", "POST", "/api/v1/sessions/"+id+"/mode", `{"mode":"magi"}`)
	if d := f.must(200, "GET", "/api/v1/sessions/"+id, nil); d["busy"] != true {
		t.Errorf("busy = %v while an answer runs", d["busy"])
	}
	close(release)
	f.waitIdle(id)
	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@gemini now"})
	f.waitIdle(id)
}

// A user's requests past the rate are refused with 429 and Retry-After.
// The same budget holds per client address and per token, so naming a
// new user_id for every request runs out too; another user from another
// address is not affected.
func TestRateLimitPerUserAddressAndToken(t *testing.T) {
	t.Parallel()
	limited := func(token string) func(addr, user string) *httptest.ResponseRecorder {
		f := newFixture(t, func(o *Options) { o.Rate = Rate{PerMinute: 1, Burst: 2}; o.Token = token })
		return func(addr, user string) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "http://127.0.0.1/api/v1/sessions", strings.NewReader(`{"user_id":"`+user+`"}`))
			req.RemoteAddr = addr + ":5000"
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			f.srv.Handler().ServeHTTP(rec, req)
			return rec
		}
	}
	wantCreated := func(rec *httptest.ResponseRecorder) {
		t.Helper()
		if rec.Code != 201 {
			t.Fatalf("want 201, got %d %s", rec.Code, rec.Body)
		}
	}
	wantLimited := func(rec *httptest.ResponseRecorder, who string) {
		t.Helper()
		if rec.Code != 429 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), who) {
			t.Fatalf("want 429 naming %s with Retry-After, got %d %q %s", who, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	from := limited("")
	wantCreated(from("192.0.2.1", "ada"))
	wantCreated(from("192.0.2.1", "ada"))
	wantLimited(from("192.0.2.2", "ada"), `user \"ada\"`)
	wantCreated(from("192.0.2.3", "bob"))
	// One address, a new user_id each time: the address runs out.
	wantLimited(from("192.0.2.1", "carol"), "this client address (192.0.2.1)")
	wantLimited(from("192.0.2.1", "dave"), "this client address (192.0.2.1)")
	// A new address and a new user_id each time: the token runs out.
	from = limited(testToken)
	wantCreated(from("192.0.2.1", "ada"))
	wantCreated(from("192.0.2.2", "bob"))
	wantLimited(from("192.0.2.3", "carol"), "this token")
}

// A session's max_cost caps it the way --max-cost caps a command: the call
// that could pass it is not started, cap_reached is streamed, and the cap
// and the spend survive the session being unloaded and loaded again.
func TestSessionMaxCost(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) {
		o.Config.Offline = false // the demo agents' calls cost what their models charge
		o.MaxCost = 0.50
	})
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"user_id":"ada","max_cost":2}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"user_id":"ada","max_cost":0}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/sessions", `{"user_id":"ada","max_cost":-1}`)

	// gemini-3.8-flash's worst case is about $0.031 (its 8,192 max_tokens
	// at $3.75/M): under $0.20 a call fits.
	id := f.createSession(map[string]any{"mode": "mention", "user_id": "ada", "max_cost": 0.2})
	stream := f.events(id, "", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+id+"/messages?user_id=ada", map[string]string{"text": "@gemini hello"})
	stream.until(t, "exchange_finished")
	f.waitIdle(id)
	before := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)["spend"].(map[string]any)
	f.srv.sessions.closeAll() // unloaded: the next request loads it from the store
	after := f.must(200, "GET", "/api/v1/sessions/"+id+"?user_id=ada", nil)["spend"].(map[string]any)
	if after["cap_usd"] != 0.2 || after["spent_usd"].(float64) <= 0 || after["spent_usd"] != before["spent_usd"] {
		t.Fatalf("spend before unloading %v, after loading %v: want the cap and the spend kept", before, after)
	}

	// Under $0.02 not even one call fits: refused, nothing streamed.
	low := f.createSession(map[string]any{"mode": "mention", "user_id": "ada", "max_cost": 0.02})
	stream = f.events(low, "", "?user_id=ada")
	f.must(http.StatusAccepted, "POST", "/api/v1/sessions/"+low+"/messages?user_id=ada", map[string]string{"text": "@gemini again"})
	evs := stream.until(t, "exchange_finished")
	var reached string
	for _, ev := range evs {
		if ev.typ == "cap_reached" {
			reached = ev.data
		}
		if ev.typ == "text_delta" {
			t.Errorf("a call ran past the cap: %s", ev.data)
		}
	}
	if !strings.Contains(reached, `"cap_usd":0.02`) || !strings.Contains(reached, "cost cap reached") {
		t.Fatalf("cap_reached %q", reached)
	}

	// Without max_cost a session gets the server's ceiling.
	other := f.createSession(map[string]any{"mode": "mention", "user_id": "ada"})
	if got := f.must(200, "GET", "/api/v1/sessions/"+other+"?user_id=ada", nil)["spend"].(map[string]any)["cap_usd"]; got != 0.5 {
		t.Fatalf("default cap %v, want the ceiling 0.5", got)
	}
}
