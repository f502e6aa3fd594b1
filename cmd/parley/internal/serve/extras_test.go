package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/providers/providertest"
)

// hookReceiver is a webhook endpoint that fails the first `fail` deliveries
// of each event type with a 500 and records every request.
type hookReceiver struct {
	mu    sync.Mutex
	fail  int
	seen  map[string]int
	calls []hookCall
}

type hookCall struct {
	header http.Header
	body   []byte
	status int
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	typ := r.Header.Get(HeaderEvent)
	h.seen[typ]++
	status := http.StatusNoContent
	if h.seen[typ] <= h.fail {
		status = http.StatusInternalServerError
	}
	h.calls = append(h.calls, hookCall{header: r.Header.Clone(), body: body, status: status})
	w.WriteHeader(status)
}

// Webhooks: each matching event is POSTed with an HMAC-SHA256 signature over
// "timestamp.body", retried after a failure, and logged with its outcome.
func TestWebhookSignatureRetryAndLog(t *testing.T) {
	t.Parallel()
	recv := &hookReceiver{fail: 2, seen: map[string]int{}}
	hook := httptest.NewServer(recv)
	defer hook.Close()
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer dead.Close()
	f := newFixture(t, func(o *Options) {
		o.Config.Webhooks = []config.WebhookSpec{
			{URL: hook.URL, Events: []string{"magi_decided", "session_finished"}, SecretEnv: "HOOK_SECRET", AllowPrivate: true},
			{URL: dead.URL, Events: []string{"magi_decided"}, AllowPrivate: true},
		}
		o.Getenv = func(name string) string {
			if name == "HOOK_SECRET" {
				return "whsec"
			}
			return ""
		}
		o.WebhookBackoff = time.Millisecond
		o.WebhookAttempts = 3
	})
	code, body := f.do("POST", "/api/v1/magi", `{"question":"ship on friday?","single_round":true}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.srv.hooks.idle(ctx); err != nil {
		t.Fatal(err)
	}
	recv.mu.Lock()
	calls := append([]hookCall(nil), recv.calls...)
	recv.mu.Unlock()
	byType := map[string][]hookCall{}
	for _, c := range calls {
		byType[c.header.Get(HeaderEvent)] = append(byType[c.header.Get(HeaderEvent)], c)
		ts := c.header.Get(HeaderTimestamp)
		if want := "sha256=" + hmacHex("whsec", ts+"."+string(c.body)); c.header.Get(HeaderSignature) != want || ts == "" {
			t.Errorf("signature %q, want %q", c.header.Get(HeaderSignature), want)
		}
	}
	decided := byType["magi_decided"]
	if len(decided) != 3 || decided[2].status != http.StatusNoContent {
		t.Fatalf("magi_decided: %d attempts", len(decided))
	}
	if !bytes.Equal(decided[0].body, decided[2].body) {
		t.Error("a retry sent another body")
	}
	var payload struct {
		Session string          `json:"session_id"`
		Event   json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(decided[2].body, &payload); err != nil || payload.Session == "" ||
		!strings.HasPrefix(string(payload.Event), `{"type":"magi_decided"`) {
		t.Fatalf("payload %s: %v", decided[2].body, err)
	}
	if len(byType["session_finished"]) != 3 {
		t.Errorf("session_finished: %d attempts", len(byType["session_finished"]))
	}
	log, err := f.st.Deliveries(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var delivered, failed int
	for _, d := range log {
		switch {
		case d.Delivered && d.Attempts == 3 && d.URL == hook.URL:
			delivered++
		case !d.Delivered && d.URL == dead.URL && d.Attempts == 3 && d.Status == 502 && d.Error == "HTTP 502":
			failed++
		default:
			t.Errorf("unexpected delivery %+v", d)
		}
	}
	if delivered != 2 || failed != 1 {
		t.Errorf("log: %d delivered, %d failed: %+v", delivered, failed, log)
	}
	var buf bytes.Buffer
	if err := WriteDeliveries(&buf, log, false); err != nil || !strings.Contains(buf.String(), "failed: HTTP 502") || !strings.Contains(buf.String(), "delivered (HTTP 204)") {
		t.Errorf("log table:\n%s", buf.String())
	}
}

// Custom agents are stored, listed, usable by name in a new session, and deleted.
func TestCustomAgents(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var system []string
	f := newFixture(t, func(o *Options) {
		o.Agents = fakeAgents(t, func(r providertest.Request) providertest.Reply {
			mu.Lock()
			system = append(system, r.System)
			mu.Unlock()
			return providertest.Reply{Text: "ahoy"}
		})
	})
	out := f.must(201, "POST", "/api/v1/agents", map[string]string{"name": "pirate", "display": "Pirate", "persona": "You speak like a pirate.",
		"provider": "openai", "model": "gpt-5-mini", "color": "#aa3300"})
	if out["agent"].(map[string]any)["name"] != "pirate" {
		t.Fatalf("created: %v", out)
	}
	f.errorCode(400, "bad_field", "POST", "/api/v1/agents", `{"name":"Bad Name","provider":"openai","model":"m"}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/agents", `{"name":"x","provider":"nowhere","model":"m"}`)
	f.errorCode(400, "bad_field", "POST", "/api/v1/agents", `{"name":"x","provider":"openai","model":"m","color":"<script>"}`)
	f.errorCode(409, "exists", "POST", "/api/v1/agents", `{"name":"claude","provider":"openai","model":"m"}`)
	list := f.must(200, "GET", "/api/v1/agents", nil)
	if agents := list["agents"].([]any); len(agents) != 1 || len(list["configured"].([]any)) == 0 {
		t.Fatalf("list: %v", list)
	}
	id := f.createSession(map[string]any{"mode": "mention", "agents": []string{"pirate", "claude"}})
	detail := f.must(200, "GET", "/api/v1/sessions/"+id, nil)
	panels := detail["panels"].([]any)
	if len(panels) != 2 || panels[0].(map[string]any)["display"] != "Pirate" || panels[1].(map[string]any)["display"] != "Claude" {
		t.Fatalf("panels: %v", panels)
	}
	f.must(202, "POST", "/api/v1/sessions/"+id+"/messages", map[string]string{"text": "@pirate hello"})
	f.waitIdle(id)
	mu.Lock()
	sawPersona := len(system) == 1 && strings.Contains(system[0], "You speak like a pirate.")
	mu.Unlock()
	if !sawPersona {
		t.Errorf("the custom agent's persona was not sent: %q", system)
	}
	// The session keeps its agents after a restart.
	f.srv.sessions.closeAll()
	if p := f.must(200, "GET", "/api/v1/sessions/"+id, nil)["panels"].([]any); len(p) != 2 {
		t.Errorf("reloaded panels: %v", p)
	}
	f.must(200, "DELETE", "/api/v1/agents/pirate", nil)
	f.errorCode(404, "not_found", "DELETE", "/api/v1/agents/pirate", nil)
	f.errorCode(400, "unknown_agent", "POST", "/api/v1/sessions", `{"mode":"mention","agents":["pirate"]}`)
}

// The OpenAPI document describes exactly the routes the server answers:
// every documented path and method reaches its handler (not the mux's
// 404/405), every API route is documented, and the document is 3.1.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
		Comp    struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	code, body := f.do("GET", "/api/v1/openapi.json", nil)
	if code != 200 || json.Unmarshal(body, &doc) != nil {
		t.Fatalf("%d %s", code, body)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for path, methods := range doc.Paths {
		for method := range methods {
			documented[strings.ToUpper(method)+" "+path] = true
			concrete := strings.NewReplacer("{id}", "ffffffffffff", "{name}", "nobody").Replace(path)
			req := httptest.NewRequest(strings.ToUpper(method), concrete, nil)
			_, pattern := f.srv.mux.Handler(req)
			if pattern != strings.ToUpper(method)+" "+path {
				t.Errorf("%s %s is routed to %q", method, path, pattern)
			}
		}
	}
	for _, rt := range f.srv.routes {
		if !documented[rt.method+" "+rt.path] {
			t.Errorf("route %s %s is not documented", rt.method, rt.path)
		}
	}
	if len(documented) != len(f.srv.routes) {
		t.Errorf("%d documented operations, %d routes", len(documented), len(f.srv.routes))
	}
	refs := regexpRefs.FindAllStringSubmatch(string(body), -1)
	for _, m := range refs {
		if _, ok := doc.Comp.Schemas[m[1]]; !ok {
			t.Errorf("$ref to a missing schema %s", m[1])
		}
	}
	// Each documented error status is one this API answers with its error shape.
	if !strings.Contains(string(body), `"$ref":"#/components/schemas/Error"`) {
		t.Error("no error schema referenced")
	}
}

var regexpRefs = regexp.MustCompile(`"#/components/schemas/([A-Za-z]+)"`)

// The handlers' real answers carry every field their documented schema
// requires.
func TestOpenAPISchemasMatchAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	check := func(schema string, body []byte) {
		t.Helper()
		var got map[string]any
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: %v: %s", schema, err, body)
		}
		s := schemas()[schema].(obj)
		req, _ := s["required"].([]string)
		for _, key := range req {
			if _, ok := got[key]; !ok {
				t.Errorf("%s: answer lacks %q: %s", schema, key, body)
			}
		}
		props, _ := s["properties"].(obj)
		for key := range got {
			if _, ok := props[key]; !ok && props != nil {
				t.Errorf("%s: answer has undocumented %q", schema, key)
			}
		}
	}
	_, body := f.do("POST", "/api/v1/debate/start", `{"user_id":"u","instruction":"go"}`)
	check("SeedTurn", body)
	_, body = f.do("POST", "/api/v1/magi", `{"question":"q?","single_round":true}`)
	check("MagiResult", body)
	_, body = f.do("POST", "/api/v1/sessions", `{"mode":"talk"}`)
	check("SessionCreated", body)
	var created struct{ Session debate.SessionInfo }
	_ = json.Unmarshal(body, &created)
	_, body = f.do("GET", "/api/v1/sessions/"+created.Session.ID, nil)
	check("SessionDetail", body)
	_, body = f.do("GET", "/api/v1/sessions", nil)
	check("SessionList", body)
	_, body = f.do("GET", "/api/v1/agents", nil)
	check("AgentList", body)
	_, body = f.do("GET", "/api/v1/modes", nil)
	check("ModeList", body)
	code, body := f.do("POST", "/api/v1/sessions/"+created.Session.ID+"/messages", `{"text":""}`)
	if code != http.StatusBadRequest {
		t.Errorf("an empty talk topic: %d %s, want 400 refused", code, body)
	}
	check("Error", body)
	_, body = f.do("POST", "/api/v1/sessions/"+created.Session.ID+"/messages", `{"text":"four-day weeks"}`)
	check("Accepted", body)
	f.waitIdle(created.Session.ID)
	_, body = f.do("POST", "/api/v1/sessions/"+created.Session.ID+"/fork", `{"at":1}`)
	check("SessionCreated", body)
	_, body = f.do("GET", "/api/v1/sessions/nothere", nil)
	check("Error", body)
	_, body = f.do("DELETE", "/api/v1/sessions/"+created.Session.ID, nil)
	check("Deleted", body)
}

// Past MaxLive, idle sessions leave memory (saved, they load again on the
// next request); one with an open event stream stays.
func TestIdleSessionsAreUnloaded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.MaxLive, o.IdleAfter = 2, time.Nanosecond })
	watched := f.createSession(map[string]any{"mode": "mention"})
	stream := f.events(watched, "", "")
	var ids []string
	for range 4 {
		ids = append(ids, f.createSession(map[string]any{"mode": "mention"}))
	}
	f.srv.sessions.evict()
	f.srv.sessions.mu.Lock()
	n, kept := len(f.srv.sessions.live), f.srv.sessions.live[watched] != nil
	f.srv.sessions.mu.Unlock()
	if n > 2 || !kept {
		t.Fatalf("%d sessions live (want ≤ 2), the watched one kept: %v", n, kept)
	}
	for _, id := range ids {
		f.must(200, "GET", "/api/v1/sessions/"+id, nil)
	}
	f.must(202, "POST", "/api/v1/sessions/"+watched+"/messages", map[string]string{"text": "@gemini still there?"})
	stream.until(t, "exchange_finished")
}
