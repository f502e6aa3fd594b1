package main

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers/providertest"
)

// A model answering with bidi overrides and hidden characters (Trojan
// Source) reaches no person with them: not the terminal while it streams,
// not `sessions show`, not the Markdown export. The text around them stays.
func TestBidiControlsReachNoTerminalOrExport(t *testing.T) {
	isolate(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"access = \"user\u202e \u2066// admin\u2069\u2066\"", " ok\u200b\U000E0041", " \u061cdone"}}
	})
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	code, out, stderr := runCLI(t, "", "ask", "@chatgpt is \u202ethis safe?")
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, stderr)
	}
	id := listSessions(t)[0].ID
	_, shown, _ := runCLI(t, "", "sessions", "show", id)
	_, exported, _ := runCLI(t, "", "sessions", "export", id, "--format", "md")
	for name, text := range map[string]string{"ask stdout": out, "ask stderr": stderr, "sessions show": shown, "markdown export": exported} {
		if i := strings.IndexFunc(text, sanitize.Invisible); i >= 0 {
			t.Errorf("%s carries an invisible control at byte %d: %q", name, i, text)
		}
		if !strings.Contains(text, `access = "user // admin" ok done`) && name != "ask stderr" {
			t.Errorf("%s lost the text around the controls: %q", name, text)
		}
	}
}
