package debate_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// oneOpenAIAgent is a mention engine whose agent talks to a fake OpenAI.
func oneOpenAIAgent(t *testing.T, reply providertest.Reply, cfg func(*config.Config)) (*Engine, *providertest.Server, *EventLog) {
	t.Helper()
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply { return reply })
	zero := 0
	spec := providers.Spec{Type: "openai", BaseURL: srv.URL, APIKeyEnv: "K", MaxRetries: &zero}
	p, err := open.Open("openai", spec, func(string) string { return "key" })
	if err != nil {
		t.Fatal(err)
	}
	c := &config.Config{ModeList: known,
		Providers: map[string]providers.Spec{"openai": spec},
		Agents:    []config.AgentSpec{{Name: "chatgpt", Display: "ChatGPT", Provider: "openai", Model: "gpt-6.1-sol", MaxTokens: 64}},
		Modes:     config.ModesConfig{Mention: config.MentionConfig{Agents: []string{"chatgpt"}}},
	}
	if cfg != nil {
		cfg(c)
	}
	e, err := NewEngine(c, []*Agent{{AgentSpec: c.Agents[0], Provider: p}}, "mention")
	if err != nil {
		t.Fatal(err)
	}
	events := &EventLog{}
	e.Subscribe(events.Add)
	return e, srv, events
}

func lastReply(e *Engine) transcript.Entry {
	var en transcript.Entry
	for _, x := range e.History().Entries() {
		if x.Kind == transcript.KindReply {
			en = x
		}
	}
	return en
}

func TestTurnCutAtTheLimitIsPartialWithAHint(t *testing.T) {
	t.Parallel()
	e, _, _ := oneOpenAIAgent(t, providertest.Reply{Text: "The first half of", FinishReason: "max_output_tokens",
		Usage: providers.Usage{InputTokens: 10, OutputTokens: 64}}, nil)
	_ = e.Submit(context.Background(), "@chatgpt explain")
	Settle(t, e)
	en := lastReply(e)
	if en.Status != transcript.StatusPartial || en.Error != "(cut at 64 output tokens — raise max_tokens)" || en.Text != "The first half of" {
		t.Fatalf("entry %s %q %q", en.Status, en.Error, en.Text)
	}
}

func TestTurnRefusedOrEmptyIsAnError(t *testing.T) {
	t.Parallel()
	for name, reply := range map[string]providertest.Reply{
		"refusal":  {Refusal: "I can't help with that."},
		"filtered": {Text: "partly", FinishReason: "content_filter"},
		"empty":    {Usage: providers.Usage{InputTokens: 5, OutputTokens: 64, ReasoningTokens: 64}},
	} {
		t.Run(name, func(t *testing.T) {
			e, _, events := oneOpenAIAgent(t, reply, nil)
			_ = e.Submit(context.Background(), "@chatgpt do it")
			Settle(t, e)
			en := lastReply(e)
			if en.Status != transcript.StatusError || en.Error == "" {
				t.Fatalf("entry %s %q", en.Status, en.Error)
			}
			if name == "refusal" && !strings.Contains(en.Error, "I can't help with that.") {
				t.Errorf("the provider's reason is lost: %q", en.Error)
			}
			seen := false
			for _, ev := range events.All() {
				if eo, ok := ev.(ErrorOccurred); ok && eo.Turn == en.Turn {
					seen = true
				}
			}
			if !seen {
				t.Error("no ErrorOccurred for the failed turn")
			}
		})
	}
}

func TestTurnSendsMetaAndDropsUnacceptedTemperature(t *testing.T) {
	t.Parallel()
	temp := 0.0
	e, srv, events := oneOpenAIAgent(t, providertest.Reply{Text: "ok", Usage: providers.Usage{InputTokens: 1, OutputTokens: 1}}, func(c *config.Config) {
		c.Agents[0].Temperature = &temp
		c.Agents[0].Model = "gpt-9-unlisted" // family rules: reasons, no price
	})
	_ = e.Submit(context.Background(), "@chatgpt hi")
	Settle(t, e)
	body := srv.Requests()[0].JSON
	if _, sent := body["temperature"]; sent {
		t.Errorf("a reasoning model got a temperature: %v", body)
	}
	en := lastReply(e)
	if !en.Usage.PriceUnknown || en.Cost != 0 {
		t.Errorf("unpriced model: usage %+v cost %v", en.Usage, en.Cost)
	}
	_ = e.Submit(context.Background(), "@chatgpt again")
	Settle(t, e)
	hints := 0
	for _, ev := range events.All() {
		if eo, ok := ev.(ErrorOccurred); ok && eo.Kind == "price_unknown" {
			hints++
		}
	}
	if hints != 1 {
		t.Errorf("price hints = %d, want exactly one", hints)
	}
}

func TestMagiCountsARefusedVoteInvalidWithTheReason(t *testing.T) {
	t.Parallel()
	fc := NewFakeCouncil(t, known, func(agent string, round int, _ providertest.Request) providertest.Reply {
		if agent == "casper" {
			return providertest.Reply{BlockReason: "PROHIBITED_CONTENT"}
		}
		return MagiReply(MagiVoteJSON(agent, round, verdict.VoteApprove))
	})
	if err := fc.Engine.Submit(context.Background(), "q?"); err != nil {
		t.Fatal(err)
	}
	Settle(t, fc.Engine)
	found := false
	for _, ev := range fc.Events.All() {
		if v, ok := ev.(verdict.VoteCast); ok && v.Agent == "casper" {
			found = true
			if v.Valid || v.Vote != string(verdict.VoteInvalid) || !strings.Contains(v.Error, "prompt was blocked (PROHIBITED_CONTENT)") {
				t.Errorf("casper's vote: %+v", v)
			}
		}
	}
	if !found {
		t.Fatal("no vote from casper")
	}
}
