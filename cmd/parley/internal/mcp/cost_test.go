package mcp_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

func TestCostCapStopsCallsBeforeTheyStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		serverCap float64
		maxCost   any
	}{
		{"the call's max_cost", 0, 0.000001},
		{"the server's cap is the ceiling", 0.000001, 100.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, fakes := fakeVendors(t)
			ts, _ := httpServerWithToken(t, filepath.Join(t.TempDir(), "h.db"), fakeAgents(env), false, "",
				func(o *parleymcp.Options) { o.MaxCost = tc.serverCap })
			c := httpClient(t, ts)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var ask struct {
				Answers []struct{ Status, Error string }
			}
			res := c.call(t, ctx, "ask", map[string]any{"question": "hi", "max_cost": tc.maxCost}, &ask, "cap")
			if len(ask.Answers) == 0 {
				t.Fatalf("no answers: %s", textOf(res))
			}
			for _, a := range ask.Answers {
				if a.Status != "cancelled" || !strings.Contains(a.Error, "cost cap") {
					t.Fatalf("answer %+v, want cancelled by the cost cap", a)
				}
			}
			if !strings.Contains(textOf(res), "stopped: cost cap reached") {
				t.Fatalf("text does not say the cap stopped it:\n%s", textOf(res))
			}
			for _, f := range fakes {
				if n := len(f.Requests()); n != 0 {
					t.Fatalf("%d calls started past the cap", n)
				}
			}
			if !strings.Contains(strings.Join(c.wire.progressOnWire("cap"), "\n"), "cost cap reached") {
				t.Fatal("no progress notification says the cap was reached")
			}
		})
	}
}

func TestDemoRunsUnderTheDefaultCap(t *testing.T) {
	t.Parallel()
	// The demo agents cost nothing: the default cap never stops them.
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ask struct{ Answers []struct{ Status string } }
	c.call(t, ctx, "ask", map[string]any{"question": "hi", "max_cost": 0.01}, &ask, nil)
	if len(ask.Answers) != 2 || ask.Answers[0].Status != "complete" {
		t.Fatalf("demo under a cap: %+v", ask.Answers)
	}
	if parleymcp.DefaultMaxCost <= 0 {
		t.Fatal("no default cap")
	}
}

func TestAskFollowsTheSeats(t *testing.T) {
	t.Parallel()
	ts := openAIOnlyServer(t)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ask struct {
		Answers []struct{ Agent, Status string }
		Notes   []string
	}
	c.call(t, ctx, "ask", map[string]any{"question": "hi"}, &ask, nil)
	if len(ask.Answers) != 1 || ask.Answers[0].Agent != "chatgpt" || ask.Answers[0].Status != "complete" {
		t.Fatalf("@all with only an OpenAI key: %+v", ask.Answers)
	}
	if len(ask.Notes) != 1 || !strings.Contains(ask.Notes[0], "skipped") || !strings.Contains(ask.Notes[0], "GEMINI_API_KEY") {
		t.Fatalf("notes %q do not name the skipped agent", ask.Notes)
	}
}

func TestMagiSaysWhoStandsIn(t *testing.T) {
	t.Parallel()
	ts := openAIOnlyServer(t)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var magi struct {
		Verdict string
		Rounds  [][]struct{ Agent, Provider string }
	}
	res := c.call(t, ctx, "magi", map[string]any{"question": "Ship?", "single_round": true}, &magi, nil)
	for _, v := range magi.Rounds[0] {
		if v.Provider != "openai" {
			t.Fatalf("%s sat on %s without its key", v.Agent, v.Provider)
		}
	}
	first, _, _ := strings.Cut(textOf(res), "\n")
	if !strings.Contains(first, "BALTHASAR") {
		t.Fatalf("the text does not begin by saying who stands in:\n%s", textOf(res))
	}
}

// openAIOnlyServer serves the fakes with only the OpenAI key set, the
// agents seated as the commands seat them.
func openAIOnlyServer(t *testing.T) *httptest.Server {
	env, _ := fakeVendors(t)
	var openaiOnly []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENAI_") {
			openaiOnly = append(openaiOnly, kv)
		}
	}
	ts, _ := httpServerWithToken(t, filepath.Join(t.TempDir(), "h.db"), fakeAgents(openaiOnly), false, "",
		func(o *parleymcp.Options) { o.Config.Seat(envLookup(openaiOnly)) })
	return ts
}

// Over stdio one client is one session: budget_usd bounds what all its
// tool calls spend together, each still under its own cap. A first ask
// that costs $0.06 leaves no room under a $0.10 budget for a second, whose
// worst case (8,192 output tokens at $10 per 1M) would pass it: the second
// is refused with the cap's words and never reaches the provider.
func TestStdioHonoursTheBudgetAcrossToolCalls(t *testing.T) {
	t.Parallel()
	env, fakes := fakeVendors(t, func(providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Text: "A priced answer.", Usage: providers.Usage{OutputTokens: 6000}}, true
	})
	c := stdioClient(t, filepath.Join(t.TempDir(), "s.db"), append(env, "PARLEY_BUDGET_USD=0.10"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type asked struct {
		Answers []struct{ Status, Error string }
	}
	var first, second asked
	c.call(t, ctx, "ask", map[string]any{"question": "first", "agents": []string{"chatgpt"}}, &first, nil)
	if len(first.Answers) != 1 || first.Answers[0].Status != "complete" {
		t.Fatalf("first ask: %+v", first)
	}
	res := c.call(t, ctx, "ask", map[string]any{"question": "second", "agents": []string{"chatgpt"}}, &second, nil)
	if len(second.Answers) != 1 || !strings.Contains(second.Answers[0].Error, "cost cap reached") ||
		!strings.Contains(second.Answers[0].Error, "cap of $0.10") {
		t.Fatalf("second ask: %+v\n%s", second, textOf(res))
	}
	calls := 0
	for _, f := range fakes {
		calls += len(f.Requests())
	}
	if calls != 1 {
		t.Fatalf("%d provider calls, want the first ask's only", calls)
	}
}
