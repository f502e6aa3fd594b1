package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// fixedClock is the spend windows' clock: the test says what time it is.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// spendServer is parley serve with /mcp on the SQLite file db, every agent
// priced at $0 input and $9 per 1M output tokens with max_tokens 1000 (a
// call's worst case is $0.0090 whatever its prompt), under windows w.
type spendServer struct {
	url   string
	close func()
}

func startSpendServer(t *testing.T, db string, env []string, w store.Windows, clock *fixedClock) *spendServer {
	t.Helper()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	cfg.Pricing = map[string]config.Price{}
	for i := range cfg.Agents {
		cfg.Agents[i].MaxTokens = 1000
		cfg.Pricing[cfg.Agents[i].Model] = config.Price{Input: 0, Output: 9}
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	limits, err := st.SpendLimits(ctx, w, clock.now)
	if err != nil {
		t.Fatal(err)
	}
	agents := fakeAgents(env)
	m, err := parleymcp.New(ctx, parleymcp.Options{Config: cfg, Agents: agents, Store: st, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	m.SetLimits(limits)
	srv, err := serve.New(serve.Options{Config: cfg, Agents: agents, Store: st, MCP: m.Handler(), Limits: limits,
		Rate: serve.Rate{PerMinute: 10000, Burst: 10000}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ts.Close()
			srv.Close()
			m.Close()
			if err := st.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return &spendServer{url: ts.URL, close: stop}
}

// post sends JSON as user and returns the status, the Retry-After header
// and the body.
func (s *spendServer) post(t *testing.T, path, user, body string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Parley-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), data
}

// complete asks chatgpt through the OpenAI door as user.
func (s *spendServer) complete(t *testing.T, user string) (int, string, []byte) {
	t.Helper()
	return s.post(t, "/v1/chat/completions", user,
		`{"model":"chatgpt","messages":[{"role":"user","content":"hello"}],"user":"`+user+`"}`)
}

// ask runs MCP's ask tool on chatgpt as user over /mcp.
func (s *spendServer) ask(t *testing.T, user string) *mcp.CallToolResult {
	t.Helper()
	c := connect(t, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: asUser{user}}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "hello", "agents": []string{"chatgpt"}}})
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	return res
}

// asUser names the MCP client's user, as the API's clients do.
type asUser struct{ user string }

func (u asUser) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Parley-User", u.user)
	return http.DefaultTransport.RoundTrip(r)
}

type refusal struct {
	Error struct {
		Code     string  `json:"code"`
		Message  string  `json:"message"`
		SpentUSD float64 `json:"spent_usd"`
		LimitUSD float64 `json:"limit_usd"`
		ResetsAt string  `json:"resets_at"`
	} `json:"error"`
}

// Every call answers 500 output tokens ($0.0045) against a worst case of
// $0.0090; ada's window is $0.02 an hour, the server's $0.03. Ada's calls
// through the OpenAI door, /mcp and the OpenAI door again are admitted
// (spent $0.0135: a fourth's worst case would pass $0.02); her fourth,
// through the API, the OpenAI door or /mcp, is refused before any provider
// call with the same sentence, and a restart of the server keeps the hour.
// Bob has his own window, but the server's covers both: his third call
// would pass the server's $0.03 ($0.0135 + 2 × $0.0045 spent).
func TestSpendWindowsHoldOnEveryDoorAndAcrossARestart(t *testing.T) {
	t.Parallel()
	env, fakes := fakeVendors(t, func(providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Text: "an answer", Usage: providers.Usage{InputTokens: 100, OutputTokens: 500}}, true
	})
	calls := func() int { return len(fakes[0].Requests()) }
	db := filepath.Join(t.TempDir(), "spend.db")
	clock := &fixedClock{t: time.Date(2026, 11, 25, 21, 10, 0, 0, time.UTC)}
	windows := store.Windows{PerHour: 0.02, ServerPerHour: 0.03}
	s := startSpendServer(t, db, env, windows, clock)

	if code, _, body := s.complete(t, "ada"); code != http.StatusOK {
		t.Fatalf("ada's first call (OpenAI door): %d %s", code, body)
	}
	if res := s.ask(t, "ada"); res.IsError {
		t.Fatalf("ada's second call (/mcp): tool error %s", textOf(res))
	}
	if code, _, body := s.complete(t, "ada"); code != http.StatusOK {
		t.Fatalf("ada's third call (OpenAI door): %d %s", code, body)
	}
	if got := calls(); got != 3 {
		t.Fatalf("the provider saw %d calls, want 3", got)
	}

	const adaRefusal = `spend limit reached: user "ada" spent $0.0135 this hour of its max_cost_per_hour of $0.02, and the next call (up to $0.0090) could pass it; it resets at 2026-11-25T22:00:00Z`
	code, _, body := s.post(t, "/api/v1/sessions", "ada", `{"user_id":"ada","mode":"mention","agents":["chatgpt"]}`)
	if code != http.StatusCreated {
		t.Fatalf("creating ada's session with room left in her window: %d %s", code, body)
	}
	var created struct{ Session struct{ ID string } }
	if err := json.Unmarshal(body, &created); err != nil {
		t.Fatal(err)
	}
	checkRefusal := func(door string, code int, retryAfter string, body []byte, want, limit string, spent, cap float64) {
		t.Helper()
		var r refusal
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("%s: %v: %s", door, err, body)
		}
		// The OpenAI door keeps OpenAI's error shape: the figures are in the sentence.
		figures := strings.HasPrefix(door, "OpenAI") || (r.Error.SpentUSD == spent && r.Error.LimitUSD == cap && r.Error.ResetsAt == "2026-11-25T22:00:00Z")
		if code != http.StatusTooManyRequests || retryAfter != "3000" || r.Error.Code != limit || r.Error.Message != want || !figures {
			t.Fatalf("%s: got %d Retry-After %q %s\nwant 429, Retry-After 3000 (50 minutes to 22:00), code %s, %s", door, code, retryAfter, body, limit, want)
		}
	}
	code, ra, body := s.post(t, "/api/v1/sessions/"+created.Session.ID+"/messages", "ada", `{"text":"@chatgpt hello"}`)
	checkRefusal("API message", code, ra, body, adaRefusal, "max_cost_per_hour", 0.0135, 0.02)
	code, ra, body = s.complete(t, "ada")
	checkRefusal("OpenAI door", code, ra, body, adaRefusal, "max_cost_per_hour", 0.0135, 0.02)
	if res := s.ask(t, "ada"); !res.IsError || textOf(res) != adaRefusal {
		t.Fatalf("/mcp: want the tool error %q, got isError=%v %q", adaRefusal, res.IsError, textOf(res))
	}
	// A MAGI council refused by the same window is the documented 429 too
	// (it answered 502 no_decision), with the window's own sentence.
	code, ra, body = s.post(t, "/api/v1/magi", "ada", `{"user_id":"ada","question":"ship it?"}`)
	var magiRefusal refusal
	_ = json.Unmarshal(body, &magiRefusal)
	if code != http.StatusTooManyRequests || ra != "3000" || magiRefusal.Error.Code != "max_cost_per_hour" ||
		!strings.HasPrefix(magiRefusal.Error.Message, `spend limit reached: user "ada" spent $0.0135 this hour of its max_cost_per_hour of $0.02`) {
		t.Fatalf("/api/v1/magi past ada's window: %d Retry-After %q %s; want 429 max_cost_per_hour", code, ra, body)
	}
	if got := calls(); got != 3 {
		t.Fatalf("refused calls reached the provider: %d calls, want 3", got)
	}

	// A restart: the hour's spend comes back from the database.
	s.close()
	s = startSpendServer(t, db, env, windows, clock)
	code, ra, body = s.complete(t, "ada")
	checkRefusal("OpenAI door after a restart", code, ra, body, adaRefusal, "max_cost_per_hour", 0.0135, 0.02)

	for i := range 2 {
		if code, _, body := s.complete(t, "bob"); code != http.StatusOK {
			t.Fatalf("bob's call %d in his own window: %d %s", i+1, code, body)
		}
	}
	const serverRefusal = `spend limit reached: this server spent $0.0225 this hour of its server_max_cost_per_hour of $0.03, and the next call (up to $0.0090) could pass it; it resets at 2026-11-25T22:00:00Z`
	code, ra, body = s.complete(t, "bob")
	checkRefusal("OpenAI door: bob past the server's window", code, ra, body, serverRefusal, "server_max_cost_per_hour", 0.0225, 0.03)
	if got := calls(); got != 5 {
		t.Fatalf("the provider saw %d calls, want 5 (3 of ada's, 2 of bob's)", got)
	}

	// The next hour starts afresh.
	clock.mu.Lock()
	clock.t = clock.t.Add(50 * time.Minute)
	clock.mu.Unlock()
	if code, _, body := s.complete(t, "ada"); code != http.StatusOK {
		t.Fatalf("ada in the next hour: %d %s", code, body)
	}
}
