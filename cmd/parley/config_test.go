package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	"github.com/parleyhq/parley/cmd/parley/internal/factory"
)

// config show prints every value with its source: default, file:line,
// env, flag; keys are never shown.
func TestConfigShowSaysWhereEveryValueComesFrom(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte("agents:\n  - name: claude\n    model: claude-opus-4-1\nmodes:\n  talk:\n    rounds: 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setenv(t, "PARLEY_CONTEXT_BUDGET_TOKENS", "9000")
	setenv(t, "OPENAI_API_KEY", "sk-very-secret")
	bin := buildParley(t) // the real binary in its folder: the file named as the user named it
	code, out, errOut := runBinary(t, bin, "", nil, "--mode", "magi", "config", "show")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lineOf := func(key string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, key+": ") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no %s line in:\n%s", key, out)
		return ""
	}
	for key, want := range map[string]string{
		"modes.talk.rounds":           "modes.talk.rounds: 5 # parley.yaml:6",
		"agents[2].model":             "agents[2].model: claude-opus-4-1 # parley.yaml:3",
		"agents[2].provider":          "agents[2].provider: anthropic # default",
		"context.budget_tokens":       "context.budget_tokens: 9000 # env PARLEY_CONTEXT_BUDGET_TOKENS",
		"default_mode":                "default_mode: magi # flag --mode",
		"providers.openai.api_key":    "providers.openai.api_key: [redacted] # env OPENAI_API_KEY",
		"providers.anthropic.api_key": "providers.anthropic.api_key: [not set] # env ANTHROPIC_API_KEY",
	} {
		if got := lineOf(key); got != want {
			t.Errorf("%s\n got %q\nwant %q", key, got, want)
		}
	}
	if strings.Contains(out, "sk-very-secret") {
		t.Fatal("config show printed a key")
	}
	code, out, _ = runBinary(t, bin, "", nil, "--json", "config", "show")
	var doc struct {
		File   string
		Values []struct{ Key, Source string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !strings.HasPrefix(doc.File, "parley.yaml") || len(doc.Values) < 50 {
		t.Fatalf("config show --json: exit %d\n%s", code, out)
	}
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	code, out, errOut := runCLI(t, "", "config", "check")
	if code != 0 || !strings.HasPrefix(out, "ok: config.yaml (embedded): 9 agents") {
		t.Fatalf("built-in config: exit %d, %q %q", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte("modes:\n  magi:\n    agents: [melchior, casper]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", "config", "check")
	if code != cli.ExitUsage || out != "" || !strings.Contains(errOut, "parley.yaml:3: modes.magi.agents: needs exactly 3 agents, has 2") {
		t.Fatalf("bad config: exit %d, %q %q", code, out, errOut)
	}
}

// The console's first screen says which configuration is in use, or where
// the user's own would go.
func TestConfigWhereForTheWelcome(t *testing.T) {
	t.Parallel()
	getenv := factory.NewMap(map[string]string{"XDG_CONFIG_HOME": "/home/ada/.config"}).Getenv
	if got := configWhere("parley.yaml", getenv); got != "parley.yaml" {
		t.Errorf("a file: %q", got)
	}
	if got, want := configWhere(configload.EmbeddedSource, getenv), "built-in (yours: ./parley.yaml or /home/ada/.config/parley/config.yaml)"; got != want {
		t.Errorf("built-in: %q, want %q", got, want)
	}
}
