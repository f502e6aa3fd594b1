package mcp_test

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

var toolNames = []string{"ask", "checkpoint", "council", "debate_start", "debate_step", "magi", "session_get", "sessions_list"}

// transports connects one client per transport: parley --demo mcp as a
// process, and /mcp of serve's handler over HTTP.
func demoClients(t *testing.T) map[string]*client {
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true)
	return map[string]*client{
		"stdio": stdioClient(t, filepath.Join(t.TempDir(), "s.db"), []string{fastDemo}, "--demo"),
		"http":  httpClient(t, ts),
	}
}

func TestToolsListNamesEveryToolWithValidSchemas(t *testing.T) {
	t.Parallel()
	for name, c := range demoClients(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := c.session.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				if tool.Description == "" {
					t.Errorf("%s: no description", tool.Name)
				}
				for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
					checkSchema(t, tool.Name+" "+kind, schema)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, toolNames) {
				t.Fatalf("tools %v, want %v", names, toolNames)
			}
		})
	}
}

// checkSchema resolves a tool's schema: an object schema that compiles.
func checkSchema(t *testing.T, what string, raw any) {
	t.Helper()
	b, err := json.Marshal(raw)
	if err != nil || raw == nil {
		t.Fatalf("%s schema missing (%v)", what, err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s schema %s: %v", what, b, err)
	}
	if s.Type != "object" || len(s.Properties) == 0 {
		t.Fatalf("%s schema is not an object with properties: %s", what, b)
	}
	if _, err := s.Resolve(nil); err != nil {
		t.Fatalf("%s schema does not resolve: %v", what, err)
	}
}

func TestEveryToolWithDemoAgents(t *testing.T) {
	t.Parallel()
	for name, c := range demoClients(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each client its own process or server and database
			exercise(t, c, false)
		})
	}
}

func TestEveryToolWithFakeProviders(t *testing.T) {
	t.Parallel()
	env, fakes := fakeVendors(t)
	agents := fakeAgents(env)
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), agents, false)
	clients := map[string]*client{
		"stdio": stdioClient(t, filepath.Join(t.TempDir(), "s.db"), env),
		"http":  httpClient(t, ts),
	}
	t.Run("clients", func(t *testing.T) { // returns when both are done
		for name, c := range clients {
			t.Run(name, func(t *testing.T) {
				t.Parallel() // each client its own process or server and database
				exercise(t, c, true)
			})
		}
	})
	// What Parley sent: every vendor was asked, and the questions reached
	// the models as the last user message.
	asked := map[string]bool{}
	for _, f := range fakes {
		if len(f.Requests()) == 0 {
			t.Errorf("fake %s was never called", f.URL)
		}
		for _, r := range f.Requests() {
			if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "user" {
				for _, q := range []string{"what is a monad?", "Ship on Friday?", "Kafka or NATS?", "Write a haiku about Go"} {
					asked[q] = asked[q] || strings.Contains(r.Messages[n-1].Content, q)
				}
			}
		}
	}
	if len(asked) != 4 || slices.Contains(slices.Collect(maps.Values(asked)), false) {
		t.Fatalf("questions the models saw: %v", asked)
	}
}

// exercise calls every tool once and checks each result's documented
// structure; fake providers also pin the answers' text and prices.
func exercise(t *testing.T, c *client, fake bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var ask struct {
		SessionID string `json:"session_id"`
		Answers   []struct {
			Agent, Model, Text, Status string
			TokensIn                   int     `json:"tokens_in"`
			Cost                       float64 `json:"cost_usd"`
		} `json:"answers"`
		Cost float64 `json:"cost_usd"`
	}
	res := c.call(t, ctx, "ask", map[string]any{"question": "what is a monad?"}, &ask, nil)
	if len(ask.Answers) != 2 || ask.Answers[0].Agent != "gemini" || ask.Answers[1].Agent != "chatgpt" {
		t.Fatalf("ask @all: answers %+v", ask.Answers)
	}
	for _, a := range ask.Answers {
		if a.Status != "complete" || a.Text == "" || a.Model == "" || a.TokensIn == 0 {
			t.Fatalf("ask: answer %+v", a)
		}
		if fake && (!strings.HasPrefix(a.Text, "FAKE-ANSWER to "+a.Model) || a.Cost <= 0) {
			t.Fatalf("ask over fakes: answer %+v", a)
		}
	}
	if !strings.Contains(textOf(res), "[Gemini]") {
		t.Fatalf("ask's text is not the conversation:\n%s", textOf(res))
	}
	var one struct{ Answers []struct{ Agent string } }
	c.call(t, ctx, "ask", map[string]any{"question": "hello", "agents": []string{"claude"}}, &one, nil)
	if len(one.Answers) != 1 || one.Answers[0].Agent != "claude" {
		t.Fatalf("ask agents [claude]: %+v", one.Answers)
	}

	var magi struct {
		SessionID string `json:"session_id"`
		Question  string
		Verdict   string
		Rounds    [][]struct{ Agent, Vote string }
		Flips     []any
		Usage     struct {
			Cost float64 `json:"cost_usd"`
		}
	}
	res = c.call(t, ctx, "magi", map[string]any{"question": "Ship on Friday?"}, &magi, nil)
	if magi.Question != "Ship on Friday?" || len(magi.Rounds) != 3 || len(magi.Rounds[2]) != 3 || magi.Flips == nil {
		t.Fatalf("magi: %+v", magi)
	}
	if !slices.Contains([]string{"APPROVED", "REJECTED", "NO CONSENSUS"}, magi.Verdict) || (fake && magi.Verdict != "APPROVED") {
		t.Fatalf("magi verdict %q", magi.Verdict)
	}
	if !strings.Contains(textOf(res), "MAGI VERDICT: "+magi.Verdict) {
		t.Fatalf("magi's text has no verdict:\n%s", textOf(res))
	}
	c.call(t, ctx, "magi", map[string]any{"question": "Tabs?", "single_round": true}, &magi, nil)
	if len(magi.Rounds) != 1 {
		t.Fatalf("magi single_round ran %d rounds", len(magi.Rounds))
	}

	var council struct {
		SessionID string `json:"session_id"`
		Answers   []struct{ Member, Text, Status string }
		Rankings  []struct {
			Ranker string
			Valid  bool
		}
		Aggregate []struct{ Member string }
		Chairman  struct{ Member, Text, Status string }
	}
	c.call(t, ctx, "council", map[string]any{"question": "Kafka or NATS?"}, &council, nil)
	if len(council.Answers) < 2 || len(council.Rankings) != len(council.Answers) || len(council.Aggregate) != len(council.Answers) ||
		council.Chairman.Status != "complete" || council.Chairman.Text == "" {
		t.Fatalf("council: %+v", council)
	}
	if fake && !strings.HasPrefix(council.Chairman.Text, "FAKE-ANSWER") {
		t.Fatalf("council chairman over fakes: %q", council.Chairman.Text)
	}

	var start, step struct {
		SessionID string `json:"session_id"`
		Status    string
		Step      int
		Turn      map[string]any
		Sentence  string
	}
	c.call(t, ctx, "debate_start", map[string]any{"instruction": "Write a haiku about Go"}, &start, nil)
	if start.Status != "ok" || start.Step != 0 || start.Turn["user_instruction"] != "Write a haiku about Go" ||
		start.Turn["codex_output"] == nil || start.Turn["claude_output"] == nil || start.Turn["next_responder"] != "codex" {
		t.Fatalf("debate_start: %+v", start)
	}
	c.call(t, ctx, "debate_step", map[string]any{}, &step, nil)
	if step.SessionID != start.SessionID || step.Step != 1 || step.Turn["responder"] != "codex" || step.Turn["claude_output"] != nil {
		t.Fatalf("debate_step: %+v", step)
	}
	// The steps' outcomes, as dialogue.StepSentence wrote them.
	if start.Sentence != "START: Codex and Claude answered · next: Codex" || step.Sentence != "STEP 1: Codex answered · next: Claude" {
		t.Fatalf("sentences %q, %q", start.Sentence, step.Sentence)
	}

	var list struct {
		Sessions []struct {
			ID, Mode string
		}
		NextCursor string `json:"next_cursor"`
	}
	c.call(t, ctx, "sessions_list", map[string]any{}, &list, nil)
	var ids []string
	for _, s := range list.Sessions {
		ids = append(ids, s.ID)
	}
	for _, id := range []string{ask.SessionID, magi.SessionID, council.SessionID, start.SessionID} {
		if !slices.Contains(ids, id) {
			t.Fatalf("sessions_list %v lacks %s", ids, id)
		}
	}
	c.call(t, ctx, "sessions_list", map[string]any{"limit": 2}, &list, nil)
	if len(list.Sessions) != 2 || list.NextCursor == "" {
		t.Fatalf("sessions_list limit 2: %+v", list)
	}
	first := list.Sessions[0].ID
	c.call(t, ctx, "sessions_list", map[string]any{"limit": 2, "cursor": list.NextCursor}, &list, nil)
	if len(list.Sessions) == 0 || list.Sessions[0].ID == first {
		t.Fatalf("sessions_list second page: %+v", list)
	}

	var got struct {
		Session   struct{ ID, Mode string }
		Entries   []struct{ Turn int }
		NextAfter int `json:"next_after"`
		Resource  string
	}
	c.call(t, ctx, "session_get", map[string]any{"id": magi.SessionID[:8], "limit": 2}, &got, nil)
	if got.Session.ID != magi.SessionID || got.Session.Mode != "magi" || len(got.Entries) != 2 || got.NextAfter != 2 ||
		got.Resource != "parley://sessions/"+magi.SessionID {
		t.Fatalf("session_get page 1: %+v", got)
	}
	c.call(t, ctx, "session_get", map[string]any{"id": magi.SessionID, "after": 2}, &got, nil)
	if len(got.Entries) == 0 || got.Entries[0].Turn != 3 || got.NextAfter != 0 {
		t.Fatalf("session_get after 2: %+v", got)
	}
	checkResource(t, ctx, c, council.SessionID, "Kafka or NATS?")
}

// checkResource reads a session as a resource: listed, Markdown, its question.
func checkResource(t *testing.T, ctx context.Context, c *client, id, question string) {
	t.Helper()
	uri := "parley://sessions/" + id
	listed := false
	for r, err := range c.session.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = listed || r.URI == uri
	}
	if !listed {
		t.Fatalf("resources/list lacks %s", uri)
	}
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" || !strings.Contains(res.Contents[0].Text, question) {
		t.Fatalf("resource %s: %+v", uri, res.Contents)
	}
	if _, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "parley://sessions/ffffffffffff"}); err == nil {
		t.Fatal("reading an unknown session succeeded")
	}
}

func TestResourceIsTheSessionsExport(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "h.db")
	ts, st := httpServer(t, db, demoAgents, true)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var magi struct {
		SessionID string `json:"session_id"`
	}
	c.call(t, ctx, "magi", map[string]any{"question": "Export me?", "single_round": true}, &magi, nil)
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "parley://sessions/" + magi.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	if err := st.Export(ctx, &want, magi.SessionID, "md"); err != nil {
		t.Fatal(err)
	}
	if res.Contents[0].Text != want.String() || !strings.Contains(want.String(), "Export me?") {
		t.Fatalf("resource is not the export:\n%s\n--- export:\n%s", res.Contents[0].Text, want.String())
	}
}

func TestBadArgumentsAreToolErrors(t *testing.T) {
	t.Parallel()
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"ask", map[string]any{"question": "  "}, "question: required"},
		{"ask", map[string]any{"question": "hi", "agents": []string{"nobody"}}, `agents: unknown value "nobody"; allowed values: gemini, chatgpt, claude`},
		{"ask", map[string]any{"question": "hi", "agents": []string{"../../etc/passwd"}}, `unknown value "../../etc/passwd"`},
		{"ask", map[string]any{"question": "hi", "agents": 7}, "agents must be a list of names, each one of "},
		{"ask", map[string]any{"question": "hi", "color": "red"}, `"color" is not an argument of this tool; its arguments are agents, max_cost, question, session_id.`},
		{"ask", map[string]any{}, "question is required"},
		{"ask", map[string]any{"question": "@ghost hi"}, "question: unknown agent @ghost"},
		{"magi", map[string]any{"question": "q", "preset": "sideways"}, `preset: unknown value "sideways"; allowed values: default, rotate, rotate2.`},
		{"magi", map[string]any{"question": "q", "max_cost": -1}, "max_cost"},
		{"council", map[string]any{"question": "q", "members": []string{"claude"}}, "members needs at least two agents"},
		{"debate_step", map[string]any{}, "call debate_start first"},
		{"session_get", map[string]any{"id": "nosuch"}, "see sessions_list"},
		{"session_get", map[string]any{"id": strings.Repeat("a", 1<<20)}, "a session ID has at most 64 characters"},
		{"sessions_list", map[string]any{"cursor": "!!"}, "not a cursor"},
	} {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: protocol error %v", tc.tool, tc.args, err)
		}
		if !res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("%s %v: error %v %q, want one saying %q", tc.tool, tc.args, res.IsError, textOf(res), tc.want)
		}
	}
	var sessions struct{ Sessions []any }
	c.call(t, ctx, "sessions_list", nil, &sessions, nil)
	if len(sessions.Sessions) != 0 {
		t.Fatalf("refused calls left sessions behind: %v", sessions.Sessions)
	}
}

// savedEntries loads a session's entries from the database file.
func savedEntries(t *testing.T, st *store.Store, id string) []transcript.Entry {
	t.Helper()
	_, entries, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func TestCouncilFallsBackWhenTheChairmanFails(t *testing.T) {
	t.Parallel()
	env, _ := fakeVendors(t, func(r providertest.Request) (providertest.Reply, bool) {
		if strings.HasPrefix(r.System, "You are Chairman") {
			return providertest.Reply{Status: 400, Text: "the chairman is out"}, true
		}
		return providertest.Reply{}, false
	})
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), fakeAgents(env), false)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var council struct {
		Answers  []struct{ Member, Text string }
		Chairman struct{ Status, Fallback, Error, Text string }
	}
	res := c.call(t, ctx, "council", map[string]any{"question": "Kafka or NATS?"}, &council, nil)
	ch := council.Chairman
	if ch.Status == "complete" || ch.Fallback == "" || !strings.Contains(ch.Error, "the chairman is out") {
		t.Fatalf("chairman %+v, want failed with a fallback", ch)
	}
	if !strings.Contains(textOf(res), "FALLBACK (not the chairman's answer)") {
		t.Fatalf("the text does not mark the fallback:\n%s", textOf(res))
	}
}

func TestReadableTextCarriesNoEscapes(t *testing.T) {
	t.Parallel()
	hostile := "\x1b]0;pwned\x07\x1b[31mred\u202e text"
	env, _ := fakeVendors(t, func(r providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Text: hostile}, true
	})
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), fakeAgents(env), false)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ask struct{ Answers []struct{ Text string } }
	res := c.call(t, ctx, "ask", map[string]any{"question": "hi \x1b[2J"}, &ask, "esc")
	if len(ask.Answers) != 2 || ask.Answers[0].Text != hostile {
		t.Fatalf("structured content is not the answer as saved: %+v", ask.Answers)
	}
	text := textOf(res) + strings.Join(c.wire.progressOnWire("esc"), "\n")
	if strings.ContainsAny(text, "\x1b\x07\u202e") || !strings.Contains(text, "red") {
		t.Fatalf("readable text or progress carries escapes: %q", text)
	}
}

// When every agent fails, ask and magi are tool errors (isError), and their
// text states the failure without the retries that led to it (those went
// out as progress).
func TestEveryAgentFailingIsAToolError(t *testing.T) {
	t.Parallel()
	env, _ := fakeVendors(t, func(providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Status: 503, Text: "overloaded"}, true
	})
	// One retry, not the default three: one is enough to show that retry
	// lines stay out of the result (three spent ~3.5 s of backoff a call).
	one := 1
	agents := serve.SharedProviders(func(name string, spec providers.Spec) (providers.Provider, error) {
		spec.MaxRetries = &one
		return open.Open(name, spec, envLookup(env))
	})
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), agents, false)
	c := httpClient(t, ts)
	for tool, args := range map[string]map[string]any{
		"ask":  {"question": "@all kafka or nats?"},
		"magi": {"question": "should we ship on Friday?", "single_round": true},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		text := textOf(res)
		if !res.IsError || !strings.Contains(text, "overloaded") {
			t.Errorf("%s: isError %v, want true, with the failure in the text:\n%s", tool, res.IsError, text)
		}
		if strings.Contains(text, "retrying") {
			t.Errorf("%s: the result text carries retry lines:\n%s", tool, text)
		}
	}
}
