package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// fixture is a server on a real SQLite file behind httptest.
type fixture struct {
	t      testing.TB
	srv    *Server
	ts     *httptest.Server
	st     *store.Store
	dbPath string
	token  string
}

// apiClient keeps connections for many concurrent requests, as many
// clients would each keep theirs.
var apiClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

// builtinConfig is the embedded configuration, as every command loads it.
func builtinConfig(t testing.TB) *config.Config {
	t.Helper()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return l.Config
}

// demoAgents binds every agent to the offline demo provider, as --demo
// does (no pace: the tests need no visible streaming).
func demoAgents(cfg *config.Config) ([]*debate.Agent, error) {
	var out []*debate.Agent
	for _, spec := range cfg.Agents {
		out = append(out, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 0)})
	}
	return out, nil
}

// fakeAgents binds every agent to an OpenAI-wire fake server (the agent's
// model travels in each request, so the handler can answer per agent).
func fakeAgents(t testing.TB, handler func(providertest.Request) providertest.Reply) func(*config.Config) ([]*debate.Agent, error) {
	fake := providertest.OpenAI(t, handler)
	return openAIAt(fake.URL)
}

// openAIAt binds every agent to the OpenAI adapter at baseURL, on Chat
// Completions (the shutdown test's handler speaks that wire format).
func openAIAt(baseURL string) func(*config.Config) ([]*debate.Agent, error) {
	return openAIWithKey(baseURL, "test-key")
}

// openAIWithKey is openAIAt with the key the adapter sends (and scrubs).
func openAIWithKey(baseURL, key string) func(*config.Config) ([]*debate.Agent, error) {
	getenv := func(name string) string {
		if name == "PARLEY_TEST_KEY" {
			return key
		}
		return ""
	}
	return SharedProviders(func(name string, _ providers.Spec) (providers.Provider, error) {
		return open.Open(name, providers.Spec{Type: "openai", API: "chat", BaseURL: baseURL, APIKeyEnv: "PARLEY_TEST_KEY"}, getenv)
	})
}

func newFixture(t testing.TB, adjust ...func(*Options)) *fixture {
	t.Helper()
	return newFixtureOn(t, filepath.Join(t.TempDir(), "parley.db"), adjust...)
}

// newFixtureOn is newFixture on the database at path (a file or a
// postgres:// URL): two fixtures on one database are two replicas.
func newFixtureOn(t testing.TB, path string, adjust ...func(*Options)) *fixture {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := builtinConfig(t)
	cfg.Offline = true // as parley serve --demo: demo answers cost nothing
	opts := Options{Config: cfg, Agents: demoAgents, Store: st, Rate: Rate{PerMinute: 100000, Burst: 100000}}
	for _, f := range adjust {
		f(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	f := &fixture{t: t, srv: srv, ts: ts, st: st, dbPath: path, token: opts.Token}
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// do sends a request (body: a string is sent as is, anything else as
// JSON) and returns the status and body.
func (f *fixture) do(method, path string, body any, header ...string) (int, []byte) {
	f.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			f.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, f.ts.URL+path, r)
	if err != nil {
		f.t.Fatal(err)
	}
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" { // Go sends req.Host, not a Host header
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := apiClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// must sends a request that must answer want, and decodes the JSON answer.
func (f *fixture) must(want int, method, path string, body any) map[string]any {
	f.t.Helper()
	code, data := f.do(method, path, body)
	if code != want {
		f.t.Fatalf("%s %s: status %d, want %d: %s", method, path, code, want, data)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		f.t.Fatalf("%s %s: %v: %s", method, path, err, data)
	}
	return out
}

// errorCode checks an error answer's status and code.
func (f *fixture) errorCode(wantStatus int, wantCode, method, path string, body any, header ...string) string {
	f.t.Helper()
	code, data := f.do(method, path, body, header...)
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(data, &e); err != nil || code != wantStatus || e.Error.Code != wantCode || e.Error.Message == "" {
		f.t.Fatalf("%s %s: got %d %s, want %d with code %q", method, path, code, data, wantStatus, wantCode)
	}
	return e.Error.Message
}

// createSession makes a session and returns its id.
func (f *fixture) createSession(body map[string]any) string {
	f.t.Helper()
	out := f.must(http.StatusCreated, "POST", "/api/v1/sessions", body)
	return out["session"].(map[string]any)["id"].(string)
}

// sseEvent is one SSE message as a client reads it.
type sseEvent struct {
	id   uint64
	typ  string
	data string
}

// sseStream is an open event stream.
type sseStream struct {
	resp   *http.Response
	sc     *bufio.Scanner
	cancel context.CancelFunc
}

// streamDeadline bounds every wait on an event stream in these tests.
const streamDeadline = 30 * time.Second

// events opens a session's event stream; lastID "" starts at the newest event.
func (f *fixture) events(id, lastID, query string) *sseStream {
	f.t.Helper()
	// Its own deadline: a broken resume or a stream that never ends fails
	// the test in seconds, not after go test's 10 minutes.
	ctx, cancel := context.WithTimeout(context.Background(), streamDeadline)
	req, _ := http.NewRequestWithContext(ctx, "GET", f.ts.URL+"/api/v1/sessions/"+id+"/events"+query, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		f.t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		f.t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	s := &sseStream{resp: resp, sc: sc, cancel: cancel}
	f.t.Cleanup(s.close)
	return s
}

func (s *sseStream) close() { s.cancel(); s.resp.Body.Close() }

// next reads the next SSE message (comments and retry lines skipped).
func (s *sseStream) next(t testing.TB) sseEvent {
	t.Helper()
	var ev sseEvent
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if ev.typ != "" {
				return ev
			}
		case strings.HasPrefix(line, "id: "):
			ev.id, _ = strconv.ParseUint(strings.TrimPrefix(line, "id: "), 10, 64)
		case strings.HasPrefix(line, "event: "):
			ev.typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		}
	}
	t.Fatalf("event stream ended (its deadline is %v): %v", streamDeadline, s.sc.Err())
	return ev
}

// until reads events up to and including the first of type typ.
func (s *sseStream) until(t testing.TB, typ string) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		ev := s.next(t)
		out = append(out, ev)
		if ev.typ == typ {
			return out
		}
	}
}

// waitIdle waits until the session's exchange is over and its events are out.
func (f *fixture) waitIdle(id string) {
	f.t.Helper()
	f.srv.sessions.mu.Lock()
	ss := f.srv.sessions.live[id]
	f.srv.sessions.mu.Unlock()
	if ss == nil {
		return
	}
	ss.exchange.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ss.eng.Wait(ctx); err != nil {
		f.t.Fatal(err)
	}
}
