package debatetest

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// MagiMembers are the council in order, each on its own vendor's fake.
var MagiMembers = []struct{ Name, Display, Vendor, Model, Persona string }{
	{"melchior", "MELCHIOR", "openai", "gpt-5", "You are the scientist: logic and data."},
	{"balthasar", "BALTHASAR", "anthropic", "claude-sonnet-4-6", "You are the guardian: ethics and safety."},
	{"casper", "CASPER", "gemini", "gemini-3-flash-preview", "You are the maverick: intuition and risk."},
}

// MagiTestConfig seats MagiMembers on MAGI, one vendor each, with prices.
func MagiTestConfig(known config.ModeList) *config.Config {
	cfg := &config.Config{ModeList: known, DefaultMode: "magi", Providers: map[string]providers.Spec{},
		Pricing: map[string]config.Price{"gpt-5": {Input: 1, Output: 10}, "claude-sonnet-4-6": {Input: 3, Output: 15}, "gemini-3-flash-preview": {Input: 0.5, Output: 3}}}
	for _, m := range MagiMembers {
		cfg.Agents = append(cfg.Agents, config.AgentSpec{Name: m.Name, Display: m.Display, Provider: m.Vendor, Model: m.Model, Persona: m.Persona})
		cfg.Modes.Magi.Agents = append(cfg.Modes.Magi.Agents, m.Name)
	}
	return cfg
}

// MagiRoundOf tells which round a request belongs to from its last message.
func MagiRoundOf(msgs []providers.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	last := msgs[len(msgs)-1].Content
	switch {
	case strings.Contains(last, "Round 3 of 3"):
		return 3
	case strings.Contains(last, "Round 2 of 3"):
		return 2
	}
	return 1
}

// MagiVoteJSON is a well-formed answer whose reasoning marks who said it when.
func MagiVoteJSON(agent string, round int, vote verdict.Vote) string {
	return fmt.Sprintf(`{"vote":%q,"reasoning":"MARK-%s-R%d","summary":"%s says %s"}`, vote, agent, round, agent, vote)
}

// FakeCouncil starts one fake per vendor, each answering with handler(agent,
// round, request), and an engine whose members use them through the real adapters.
type FakeCouncil struct {
	Engine  *debate.Engine
	Servers map[string]*providertest.Server // by agent name
	Events  *EventLog
}

// NewFakeCouncil builds the MAGI council of MagiTestConfig(known) over the
// vendors' fakes; answer writes each reply.
func NewFakeCouncil(t *testing.T, known config.ModeList, answer func(agent string, round int, req providertest.Request) providertest.Reply, adjust ...func(*config.Config)) *FakeCouncil {
	t.Helper()
	fc := &FakeCouncil{Servers: map[string]*providertest.Server{}}
	cfg := MagiTestConfig(known)
	for _, f := range adjust {
		f(cfg)
	}
	getenv := func(k string) string {
		if k == "TEST_KEY" {
			return "test-key"
		}
		return ""
	}
	fakes := map[string]func(testing.TB, func(providertest.Request) providertest.Reply) *providertest.Server{
		"openai": providertest.OpenAI, "anthropic": providertest.Anthropic, "gemini": providertest.Gemini,
	}
	noRetry := 0
	var agents []*debate.Agent
	for _, m := range MagiMembers {
		srv := fakes[m.Vendor](t, func(r providertest.Request) providertest.Reply { return answer(m.Name, MagiRoundOf(r.Messages), r) })
		fc.Servers[m.Name] = srv
		spec := providers.Spec{Type: m.Vendor, BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &noRetry}
		cfg.Providers[m.Vendor] = spec
		p, err := open.Open(m.Vendor, spec, getenv)
		if err != nil {
			t.Fatal(err)
		}
		spec2, _ := cfg.Agent(m.Name)
		agents = append(agents, &debate.Agent{AgentSpec: spec2, Provider: p})
	}
	// An agent an adjust function added beside the members (a spare a
	// checkpoint's swap seats) gets its own fake of its vendor.
	for _, spec := range cfg.Agents {
		if _, seated := fc.Servers[spec.Name]; seated || fakes[spec.Provider] == nil {
			continue
		}
		name := spec.Name
		srv := fakes[spec.Provider](t, func(r providertest.Request) providertest.Reply { return answer(name, MagiRoundOf(r.Messages), r) })
		fc.Servers[name] = srv
		p, err := open.Open(spec.Provider, providers.Spec{Type: spec.Provider, BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &noRetry}, getenv)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: p})
	}
	e, err := debate.NewEngine(cfg, agents, "magi")
	if err != nil {
		t.Fatal(err)
	}
	fc.Engine, fc.Events = e, &EventLog{}
	e.Subscribe(fc.Events.Add)
	return fc
}

// Decided is the latest council's MagiDecided event.
func (fc *FakeCouncil) Decided(t *testing.T) verdict.MagiDecided {
	t.Helper()
	Settle(t, fc.Engine)
	return LastOf[verdict.MagiDecided](t, fc.Events)
}

// SingleRound makes the next council stop after round 1 (the command's -1).
func (fc *FakeCouncil) SingleRound(t *testing.T) {
	t.Helper()
	SendControl(t, fc.Engine, debate.Control{Kind: config.ControlRounds, N: 1})
}

// MagiReply is a reply of text with a fixed usage (some of it cached).
func MagiReply(text string) providertest.Reply {
	return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 100, OutputTokens: 20, CachedTokens: 40}}
}

// Requests returns what the agent's fake received, in order.
func (fc *FakeCouncil) Requests(agent string) []providertest.Request {
	return fc.Servers[agent].Requests()
}

// MagiAllText joins every message's text.
func MagiAllText(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role) + ": " + m.Content + "\n")
	}
	return b.String()
}

// SplitMagiOpenAI is an OpenAI fake for a MAGI council whose members all
// sit on it: of every three requests two approve and the third rejects,
// a split council in every round (the checkpoint tests' fake).
func SplitMagiOpenAI(t testing.TB) *providertest.Server {
	var n atomic.Int64
	return providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		v := verdict.VoteApprove
		if n.Add(1)%3 == 0 {
			v = verdict.VoteReject
		}
		return MagiReply(MagiVoteJSON("m", MagiRoundOf(r.Messages), v))
	})
}
