package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 43, item 7: with one key (OpenAI, on a fake), `parley ask` says
// whom @all skips only when @all is asked, and a refusal's hint names only
// agents that can answer now: not Local, whose Ollama nothing says is
// running. Through the real binary.
func TestAskHintsNameOnlyWhatWasAskedAndWhoCanAnswer(t *testing.T) {
	t.Parallel()
	bin := buildParley(t) // before isolate leaves the module
	srv := onlyOpenAI(t, func(string) string { return "Hello." })
	dir := t.TempDir()
	ask := func(db, line string) (int, string, string) {
		return runBinary(t, bin, "", nil, "--db", filepath.Join(dir, db), "ask", line)
	}
	const skipped = "@all asks ChatGPT, Codex; skipped Gemini, Claude and Local: no GEMINI_API_KEY"

	code, out, stderr := ask("named.db", "@chatgpt hi")
	if code != 0 || !strings.Contains(out, "[ChatGPT]") {
		t.Fatalf("@chatgpt hi: exit %d\n%s\n%s", code, out, stderr)
	}
	if strings.Contains(stderr, "@all") {
		t.Errorf("@chatgpt hi speaks of @all, which nobody asked:\n%s", stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("@chatgpt hi made %d requests, want 1", n)
	}

	code, _, stderr = ask("refused.db", "@claude hi")
	if code == 0 {
		t.Fatalf("@claude hi without ANTHROPIC_API_KEY succeeded:\n%s", stderr)
	}
	if strings.Contains(stderr, "@all") {
		t.Errorf("the refusal of @claude speaks of @all:\n%s", stderr)
	}
	if want := "Claude has no key: set ANTHROPIC_API_KEY (or ask @chatgpt, @codex, @melchior)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "@local") {
		t.Errorf("the hint sends the user to @local, which has no known-live server:\n%s", stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("a refused @claude made %d requests", n-1)
	}

	code, out, stderr = ask("all.db", "@all hi")
	if code != 0 {
		t.Fatalf("@all hi: exit %d\n%s\n%s", code, out, stderr)
	}
	if strings.Count(stderr, "@all asks ") != 1 || !strings.Contains(stderr, "@all asks ChatGPT") {
		t.Errorf("@all hi does not say once whom it asked and skipped (%q…):\n%s", skipped, stderr)
	}
}
