package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Issue 43, item 7, in the console: the real binary at 100×30 with one key
// (OpenAI's, on a fake). A refused @gemini stays in the input, and its
// hint names the agents that can answer now, not @local (no Ollama runs);
// the corrected line is sent and answered, and the input is empty again.
func TestARefusedLineStaysInTheConsoleInput(t *testing.T) {
	t.Parallel()
	dir, bin := tmuxBinary(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Hello from the fake.", Usage: providers.Usage{InputTokens: 10, OutputTokens: 5}}
	})
	tm := startTmux(t, [2]int{100, 30}, consoleCmd(dir, bin, fmt.Sprintf("OPENAI_API_KEY=k1 OPENAI_BASE_URL=%s", srv.URL), "refused.db"))
	tm.wait("the first screen", func(s string) bool { return strings.Contains(s, "Try") })
	tm.text("@gemini hi")
	tm.keys("Enter")
	s := tm.wait("the refusal", func(s string) bool { return strings.Contains(s, "Gemini has no key") })
	if !strings.Contains(s, "› @gemini hi") {
		t.Errorf("the refused line is not in the input:\n%s", s)
	}
	if flat := flatten(s); !strings.Contains(flat, "Gemini has no key: set GEMINI_API_KEY (or ask @chatgpt, @codex, @melchior)") || strings.Contains(flat, "@local") {
		t.Errorf("the refusal's hint is not the agents that can answer now:\n%s", s)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the refused line made %d requests", n)
	}
	// Correct the name in place: the line was kept, so only it changes.
	tm.keys("Home")
	for range len("@gemini") {
		tm.keys("Delete")
	}
	tm.text("@chatgpt")
	tm.keys("Enter")
	s = tm.wait("the answer", func(s string) bool {
		return strings.Contains(s, "Hello from the fake.") && strings.Contains(s, "✓ done")
	})
	if strings.Contains(s, "› @chatgpt hi") || strings.Contains(s, "› @gemini") {
		t.Errorf("the sent line is still in the input:\n%s", s)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the corrected line made %d requests, want 1", n)
	}
}
