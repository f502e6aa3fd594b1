package doctor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

func TestDoctorAgainstFakeServers(t *testing.T) {
	t.Parallel()
	oai := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Models: []string{"gpt-6.1-sol", "gpt-6.1-terra"}, Text: "OK", Usage: providers.Usage{InputTokens: 12, OutputTokens: 3}}
	})
	ant := providertest.Anthropic(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Models: []string{"claude-sonnet-5-5"}, Refusal: "no"}
	})
	gem := providertest.Gemini(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Models: []string{"gemini-2.5-flash", "gemini-3.8-flash"}, Text: "OK", Usage: providers.Usage{InputTokens: 5, OutputTokens: 1}}
	})
	shutdown := "2026-06-17"
	cfg := &config.Config{ModeList: modes.All(),
		Providers: map[string]providers.Spec{
			"openai":    {Type: "openai", BaseURL: oai.URL, APIKeyEnv: "OAI"},
			"anthropic": {Type: "anthropic", BaseURL: ant.URL, APIKeyEnv: "ANT"},
			"gemini":    {Type: "gemini", BaseURL: gem.URL, APIKeyEnv: "GEM"},
			"nokey":     {Type: "anthropic", BaseURL: ant.URL, APIKeyEnv: "UNSET"},
			"demo":      {Type: "demo"},
		},
		Agents: []config.AgentSpec{
			{Name: "chatgpt", Provider: "openai", Model: "gpt-6.1-sol"},
			{Name: "codex", Provider: "openai", Model: "gpt-5.3-codex"},
			{Name: "claude", Provider: "anthropic", Model: "claude-sonnet-5-5"},
			{Name: "casper", Provider: "gemini", Model: "gemini-2.5-flash"},
			{Name: "mc", Provider: "nokey", Model: "claude-sonnet-5-5"},
			{Name: "toy", Provider: "demo"},
		},
		Models: providers.Catalogue{"gemini-2.5-flash": {Shutdown: shutdown, Replacement: "gemini-3.8-flash"}},
		Modes:  config.ModesConfig{Mention: config.MentionConfig{Agents: []string{"chatgpt", "codex", "claude", "casper", "mc", "toy"}}},
	}
	env := map[string]string{"OAI": "k", "ANT": "k", "GEM": "k"}
	rows := Run(context.Background(), cfg, Options{Live: true, Getenv: func(k string) string { return env[k] },
		Now: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)})
	byAgent := map[string]Row{}
	for _, r := range rows {
		byAgent[r.Agent] = r
	}
	check := func(agent string, failed bool, want ...string) {
		t.Helper()
		r := byAgent[agent]
		line := strings.Join([]string{r.Key, r.Endpoint, r.Listed, r.Lifecycle, r.Live}, " | ")
		if r.Failed != failed {
			t.Errorf("%s failed = %v: %s", agent, r.Failed, line)
		}
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("%s: %q lacks %q", agent, line, w)
			}
		}
	}
	check("chatgpt", false, "ok (2 models)", "ok | ", "ok (12→3 tok)")
	check("codex", true, "not served here")
	check("claude", true, "ok (1 models)", "refused")
	check("casper", true, "was shut down on 2026-06-17; switch to gemini-3.8-flash")
	check("mc", true, "missing: set UNSET")
	check("toy", false, "offline demo")

	// Each endpoint's model list was asked once, with the key.
	lists := 0
	for _, r := range oai.Requests() {
		if strings.HasSuffix(r.Path, "/models") {
			lists++
			if r.Header.Get("Authorization") != "Bearer k" {
				t.Errorf("models request without the key: %v", r.Header)
			}
		}
	}
	if lists != 1 {
		t.Errorf("openai model list fetched %d times", lists)
	}

	var out strings.Builder
	if Print(&out, rows) || !strings.Contains(out.String(), "4 of 6 agents have a problem") || !strings.Contains(out.String(), "✗ codex") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestDoctorWithoutLiveMakesNoCall(t *testing.T) {
	t.Parallel()
	oai := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Models: []string{"gpt-6.1-sol"}}
	})
	cfg := &config.Config{ModeList: modes.All(),
		Providers: map[string]providers.Spec{"openai": {Type: "openai", BaseURL: oai.URL, APIKeyEnv: "OAI"}},
		Agents:    []config.AgentSpec{{Name: "chatgpt", Provider: "openai", Model: "gpt-6.1-sol"}},
	}
	rows := Run(context.Background(), cfg, Options{Getenv: func(string) string { return "k" }, Now: time.Now()})
	var out strings.Builder
	if !Print(&out, rows) {
		t.Fatalf("table:\n%s", out.String())
	}
	for _, r := range oai.Requests() {
		if r.Path != "/v1/models" {
			t.Errorf("unexpected request %s", r.Path)
		}
	}
}

func TestCleanStripsTerminalEscapes(t *testing.T) {
	t.Parallel()
	if got := clean("bad\x1b[31m red\x1b[0m\nline\x07"); got != "bad red line" {
		t.Fatalf("clean = %q", got)
	}
}
