package configload

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "parley.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A user's agents merge with the built-in ones by name: a named field
// changes, the rest stays, a new name is added after the built-in agents.
func TestAgentsMergeByName(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "agents:\n  - name: claude\n    model: claude-opus-4-1\n  - name: mistral\n    display: Mistral\n    provider: ollama\n    model: mistral\n")
	l, err := Load(modes.All(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := l.Config
	claude, ok := cfg.Agent("claude")
	if !ok || claude.Model != "claude-opus-4-1" || claude.Provider != "anthropic" || claude.Display != "Claude" || !claude.Tools.Files() {
		t.Fatalf("claude = %+v", claude)
	}
	if _, ok := cfg.Agent("gemini"); !ok {
		t.Fatal("the built-in gemini is gone")
	}
	names := cfg.AgentNames()
	if names[len(names)-1] != "mistral" || len(names) != 10 {
		t.Fatalf("agents %v, want the nine built-in ones then mistral", names)
	}
	if got := l.SourceOf("agents[2].model").String(); got != path+":3" {
		t.Errorf("claude's model from %s", got)
	}
	if got := l.SourceOf("agents[2].provider").String(); got != "default" {
		t.Errorf("claude's provider from %s", got)
	}
	if got := l.SourceOf("agents[9].model").String(); got != path+":7" {
		t.Errorf("mistral's model from %s", got)
	}
}

func TestSourcesOfEveryKind(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "modes:\n  talk:\n    rounds: 5\n")
	l, err := Load(modes.All(), path, []string{"PARLEY_CONTEXT_BUDGET_TOKENS=9000", "PARLEY_DB=/x.db", "PARLEY_TEST_KEY=k", "PARLEY_MODES_TLK_ROUNDS=2", "HOME=/root"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.Modes.Talk.Rounds != 5 || l.Config.Context.BudgetTokens != 9000 {
		t.Fatalf("rounds %d budget %d", l.Config.Modes.Talk.Rounds, l.Config.Context.BudgetTokens)
	}
	for path, want := range map[string]string{"modes.talk.rounds": path + ":3", "context.budget_tokens": "env PARLEY_CONTEXT_BUDGET_TOKENS", "default_mode": "default"} {
		if got := l.SourceOf(path).String(); got != want {
			t.Errorf("%s from %s, want %s", path, got, want)
		}
	}
	// PARLEY_DB is known; PARLEY_TEST_KEY is not named by any api_key_env here.
	want := []string{"PARLEY_MODES_TLK_ROUNDS is not a Parley setting (did you mean PARLEY_MODES_TALK_ROUNDS?); ignored",
		"PARLEY_TEST_KEY is not a Parley setting; ignored"}
	if len(l.Warnings) != 2 || l.Warnings[0] != want[0] || l.Warnings[1] != want[1] {
		t.Fatalf("warnings %q", l.Warnings)
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	for word, want := range map[string]string{"agnets": "agents", "modle": "model", "zzzzzz": "", "base_urll": "base_url"} {
		if got := Closest(word, []string{"agents", "model", "modes", "base_url"}); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}

// The README's webhook secret_env: PARLEY_WEBHOOK_SECRET is a secret a
// webhook reads, not a stray setting; a variable no webhook names still is.
func TestWebhookSecretVarIsNoStraySetting(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "webhooks:\n  - url: https://example.org/hook\n    events: [magi_decided]\n    secret_env: PARLEY_WEBHOOK_SECRET\n")
	l, err := Load(modes.All(), path, []string{"PARLEY_WEBHOOK_SECRET=whsec", "PARLEY_OTHER_SECRET=x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || l.Warnings[0] != "PARLEY_OTHER_SECRET is not a Parley setting; ignored" {
		t.Fatalf("warnings %q", l.Warnings)
	}
}

// config show redacts a webhook URL's user info and secret query values
// as it does a base_url's.
func TestShowRedactsURLs(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "webhooks:\n  - url: https://hook:hunter2@example.org/in?token=tok-SECRET-1&event=x\n    events: [magi_decided]\n"+
		"providers:\n  openai:\n    base_url: https://u:pw-SECRET@proxy.example/v1?key=SECRET-k\n")
	l, err := Load(modes.All(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"webhooks[0].url":           "https://redacted@example.org/in?token=[redacted]&event=x",
		"providers.openai.base_url": "https://redacted@proxy.example/v1?key=[redacted]",
	}
	for _, v := range l.Values(func(string) string { return "" }) {
		if w, ok := want[v.Key]; ok {
			if v.Value != w {
				t.Errorf("%s shown as %v, want %s", v.Key, v.Value, w)
			}
			delete(want, v.Key)
		}
	}
	if len(want) != 0 {
		t.Errorf("not shown: %v", want)
	}
}
