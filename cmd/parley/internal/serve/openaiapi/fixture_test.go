package openaiapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// deadline bounds every request of these tests (a loaded machine).
const deadline = 2 * time.Minute

// fixture is parley serve on a real SQLite file behind httptest, with a
// go-openai client pointed at its /v1.
type fixture struct {
	t      testing.TB
	srv    *serve.Server
	ts     *httptest.Server
	st     *store.Store
	client *openai.Client
	token  string
}

func newFixture(t testing.TB, agents func(*config.Config) ([]*debate.Agent, error), adjust ...func(*serve.Options)) *fixture {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	opts := serve.Options{Config: builtin(t), Agents: agents, Store: st, Token: "a-token-of-sixteen-chars",
		Rate: serve.Rate{PerMinute: 100000, Burst: 100000}}
	for _, f := range adjust {
		f(&opts)
	}
	srv, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	cfg := openai.DefaultConfig(opts.Token)
	cfg.BaseURL = ts.URL + "/v1"
	f := &fixture{t: t, srv: srv, ts: ts, st: st, client: openai.NewClientWithConfig(cfg), token: opts.Token}
	t.Cleanup(func() {
		srv.Close()
		ts.Close()
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// demoAgents binds every agent to the offline demo provider (parley serve --demo).
func demoAgents(cfg *config.Config) ([]*debate.Agent, error) {
	cfg.Offline = true
	var out []*debate.Agent
	for _, spec := range cfg.Agents {
		out = append(out, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 0)})
	}
	return out, nil
}

// fakeAgents binds every agent to one OpenAI-wire fake server; a retry
// goes out at once.
func fakeAgents(t testing.TB, h func(providertest.Request) providertest.Reply) (*providertest.Server, func(*config.Config) ([]*debate.Agent, error)) {
	fake := providertest.OpenAI(t, h)
	getenv := func(name string) string {
		if name == "PARLEY_TEST_KEY" {
			return "test-key"
		}
		return ""
	}
	return fake, serve.SharedProviders(func(name string, _ providers.Spec) (providers.Provider, error) {
		// Every retry the policy allows, without its waits.
		return open.WithPolicy(name, providers.Spec{Type: "openai", API: "chat", BaseURL: fake.URL, APIKeyEnv: "PARLEY_TEST_KEY"}, getenv,
			providers.RetryPolicy{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	})
}

var labelPattern = regexp.MustCompile(`--- (Response [A-Z]+) ---`)

// councilReplies answers as a council's members, rankers and chairman
// would: each member by its model, a valid ranking, the chairman's synthesis.
func councilReplies(r providertest.Request) providertest.Reply {
	last := ""
	if n := len(r.Messages); n > 0 {
		last = r.Messages[n-1].Content
	}
	switch {
	case strings.Contains(last, "rank them from best to worst"):
		labels := labelPattern.FindAllStringSubmatch(last, -1)
		var quoted []string
		for _, l := range labels {
			quoted = append(quoted, `"`+l[1]+`"`)
		}
		return providertest.Reply{Text: `{"evaluation": "all sound", "ranking": [` + strings.Join(quoted, ", ") + `]}`}
	case strings.Contains(r.System, "chair Parley's council"):
		return providertest.Reply{Text: "CHAIR: the council recommends Go.", Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}}
	}
	return providertest.Reply{Text: "MEMBER " + r.Model + " says Go.", Usage: providers.Usage{InputTokens: 50, OutputTokens: 5}}
}

// ctx is a test request's context with its own deadline.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return c
}

// load reads a saved session.
func (f *fixture) load(id string) (debate.SessionInfo, []transcript.Entry) {
	f.t.Helper()
	info, entries, err := f.st.Load(context.Background(), id)
	if err != nil {
		f.t.Fatalf("session %s: %v", id, err)
	}
	return info, entries
}

// agentReplies are the saved session's agent replies of one kind.
func agentReplies(entries []transcript.Entry, round int) []transcript.Entry {
	var out []transcript.Entry
	for _, en := range entries {
		if en.IsAgentTurn() && en.Round == round {
			out = append(out, en)
		}
	}
	return out
}

// builtin is the embedded configuration, as every command loads it.
func builtin(t testing.TB) *config.Config {
	t.Helper()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return l.Config
}

// sessionEvents is a session's SSE event stream on serve's own API.
type sessionEvents struct {
	sc *bufio.Scanner
}

// events opens session id's event stream from its first event.
func (f *fixture) events(id string) *sessionEvents {
	f.t.Helper()
	req, _ := http.NewRequestWithContext(ctx(f.t), "GET", f.ts.URL+"/api/v1/sessions/"+id+"/events?after=0", nil)
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		f.t.Fatalf("events of %s: %s", id, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	return &sessionEvents{sc: sc}
}

// until reads up to an event of type typ; false when the stream ended
// (or its deadline passed) first.
func (e *sessionEvents) until(_ testing.TB, typ string) bool {
	for e.sc.Scan() {
		if e.sc.Text() == "event: "+typ {
			return true
		}
	}
	return false
}

// listed reports whether serve's API lists session id for the empty user,
// as the web page shows it.
func (f *fixture) listed(id string) bool {
	f.t.Helper()
	req, _ := http.NewRequestWithContext(ctx(f.t), "GET", f.ts.URL+"/api/v1/sessions?limit=500", nil)
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Sessions []struct{ ID string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		f.t.Fatal(err)
	}
	for _, s := range list.Sessions {
		if s.ID == id {
			return true
		}
	}
	return false
}
