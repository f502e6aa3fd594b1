package debate_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// The requests each vendor receives, over real HTTP through the real SDKs,
// for a history holding a note and another agent's reply.
func TestEachVendorReceivesTheSharedHistory(t *testing.T) {
	t.Parallel()
	oai := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Use Go.", Usage: providers.Usage{InputTokens: 50, OutputTokens: 3}}
	})
	ant := providertest.Anthropic(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Agreed.", Usage: providers.Usage{InputTokens: 60, OutputTokens: 2}}
	})
	gem := providertest.Gemini(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Mostly.", Usage: providers.Usage{InputTokens: 70, OutputTokens: 2}}
	})
	getenv := func(string) string { return "test-key" }
	open := func(typ, url string) providers.Provider {
		p, err := open.Open(typ, providers.Spec{Type: typ, BaseURL: url, APIKeyEnv: "TEST_KEY"}, getenv)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := SpineConfig(known)
	byName := map[string]providers.Provider{"chatgpt": open("openai", oai.URL), "claude": open("anthropic", ant.URL), "gemini": open("gemini", gem.URL)}
	var agents []*Agent
	for _, spec := range cfg.Agents {
		spec.Persona = "Persona of " + spec.Display + "."
		agents = append(agents, &Agent{AgentSpec: spec, Provider: byName[spec.Name]})
	}
	e, err := NewEngine(cfg, agents, "mention")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, line := range []string{"we run on ARM", "@chatgpt which runtime?", "@claude @gemini do you agree?"} {
		if err := e.Submit(ctx, line); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	shared := "[Host (note)]: we run on ARM\n\n[Host]: @chatgpt which runtime?\n\n[ChatGPT]: Use Go.\n\n[Host]: @claude @gemini do you agree?"
	want := fmt.Sprintf("%+v", []providers.Message{{Role: providers.RoleUser, Content: shared}})
	for name, srv := range map[string]*providertest.Server{"claude": ant, "gemini": gem} {
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%s got %d requests", name, len(reqs))
		}
		if got := fmt.Sprintf("%+v", reqs[0].Messages); got != want {
			t.Errorf("%s messages:\n got %s\nwant %s", name, got, want)
		}
		if !strings.Contains(reqs[0].System, "Persona of ") || !strings.Contains(reqs[0].System, "The host addressed you by name. Answer the host's latest message directly and concisely, in Markdown.") {
			t.Errorf("%s system prompt lacks persona or instruction: %q", name, reqs[0].System)
		}
	}
	if m := ant.Requests()[0].Model; m != "claude-sonnet-4-6" {
		t.Errorf("anthropic model %q", m)
	}
	if p := gem.Requests()[0].Path; !strings.Contains(p, "gemini-3-flash-preview:streamGenerateContent") {
		t.Errorf("gemini path %q", p)
	}
	first := oai.Requests()[0]
	if got := fmt.Sprintf("%+v", first.Messages); got != fmt.Sprintf("%+v", []providers.Message{{Role: providers.RoleUser, Content: "[Host (note)]: we run on ARM\n\n[Host]: @chatgpt which runtime?"}}) {
		t.Errorf("openai messages %s", got)
	}
	if !strings.HasSuffix(first.Path, "/responses") || first.JSON["stream"] != true || first.JSON["store"] != false {
		t.Errorf("openai request is not a streamed, unstored Responses request: %s %v", first.Path, first.JSON)
	}
	if _, has := first.JSON["temperature"]; has {
		t.Errorf("gpt-5 request carries a temperature")
	}
	// Usage from each vendor's own format lands on the entries.
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindReply && (en.Usage.InputTokens == 0 || en.Usage.OutputTokens == 0) {
			t.Errorf("%s reply without usage: %+v", en.Speaker, en.Usage)
		}
	}
}

// @all over real HTTP: both vendors are asked before either answers.
func TestAllIsParallelOverHTTP(t *testing.T) {
	t.Parallel()
	// Each fake holds its answer until both have been asked: a serial engine
	// would wait for the first answer forever and never ask the second.
	var asked sync.WaitGroup
	asked.Add(2)
	bothAsked := make(chan struct{})
	go func() { asked.Wait(); close(bothAsked) }()
	slow := func(text string) func(providertest.Request) providertest.Reply {
		return func(providertest.Request) providertest.Reply {
			asked.Done()
			select {
			case <-bothAsked:
			case <-time.After(20 * time.Second):
				return providertest.Reply{Status: 400, Text: "the other vendor was never asked: @all is not parallel"}
			}
			return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 10, OutputTokens: 2}}
		}
	}
	gem := providertest.Gemini(t, slow("from gemini"))
	oai := providertest.OpenAI(t, slow("from chatgpt"))
	getenv := func(string) string { return "test-key" }
	byName := map[string]providers.Spec{
		"gemini":  {Type: "gemini", BaseURL: gem.URL, APIKeyEnv: "K"},
		"chatgpt": {Type: "openai", BaseURL: oai.URL, APIKeyEnv: "K"},
		"claude":  {Type: "demo"},
	}
	cfg := SpineConfig(known)
	var agents []*Agent
	for _, spec := range cfg.Agents {
		p, err := open.Open(spec.Name, byName[spec.Name], getenv)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, &Agent{AgentSpec: spec, Provider: p})
	}
	e, err := NewEngine(cfg, agents, "mention")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "@all hello"); err != nil {
		t.Fatal(err)
	}
	entries := e.History().Entries()
	if entries[1].Text != "from gemini" || entries[2].Text != "from chatgpt" {
		t.Fatalf("replies: %q, %q", entries[1].Text, entries[2].Text)
	}
}
