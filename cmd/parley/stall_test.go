package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers/providertest"
)

// Three agents asked at once: the first in order never sends a byte, the
// third stalls mid-answer. The second's answer prints as soon as it is
// finished and the stalled one's as soon as idle_timeout ends it (its text
// kept as partial); the silent one ends after its first_byte_timeout with
// the reason, and the exit is 1.
func TestStalledAgentEndsAndHoldsNothingBack(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	gemini := providertest.Gemini(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "never sent", Delay: time.Minute}
	})
	openai := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Here is my whole answer."}
	})
	anthropic := providertest.Anthropic(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "I began to answer and then went quiet", StallAfter: 3}
	})
	yaml := "providers:\n  gemini:\n    type: gemini\n    base_url: " + gemini.URL + "\n    first_byte_timeout: 1s\n" +
		"  openai:\n    type: openai\n    base_url: " + openai.URL + "\n" +
		"  anthropic:\n    type: anthropic\n    base_url: " + anthropic.URL + "\n    idle_timeout: 200ms\n"
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	setenv(t, "GEMINI_API_KEY", "k1")
	setenv(t, "OPENAI_API_KEY", "k2")
	setenv(t, "ANTHROPIC_API_KEY", "k3")
	code, out, stderr := runCLI(t, "", "ask", "@gemini @chatgpt @claude status?")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want 1\nout %q\nerr %q", code, out, stderr)
	}
	chat, claude, gem := strings.Index(out, "[ChatGPT]: Here is my whole answer."), strings.Index(out, "[Claude]: I began to ["), strings.Index(out, "[Gemini]:")
	if chat < 0 || claude < 0 || gem < 0 || chat > gem || claude > gem {
		t.Fatalf("the answers that ended were not printed before the silent one ended:\n%s", out)
	}
	for _, want := range []string{"no first byte for 1s", "providers.gemini.first_byte_timeout", "no bytes for 200ms", "providers.anthropic.idle_timeout"} {
		if !strings.Contains(out+stderr, want) {
			t.Errorf("output lacks %q:\nout %q\nerr %q", want, out, stderr)
		}
	}
	_, shown, _ := runCLI(t, "", "sessions", "show", listSessions(t)[0].ID)
	if !strings.Contains(shown, "I began to [cut off: anthropic: timeout: no bytes") {
		t.Fatalf("the stalled answer's text was not kept as partial:\n%s", shown)
	}
}
