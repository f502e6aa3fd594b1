package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers/providertest"
)

// longQuestion is a pasted log of about 100 KB with the real question at
// its very end, as a user asks one.
func longQuestion() string {
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		b.WriteString("2026-11-25T04:00:00Z worker-7 INFO handled request id=")
		b.WriteString(strings.Repeat("x", 20))
		b.WriteString(" status=200\n")
	}
	b.WriteString("Why does worker-7 log every request twice? Answer in one line.")
	return b.String()
}

// A 100 KB question reaches the model whole, its last line included: the
// prompt builder never cuts the question being asked.
func TestLongQuestionIsSentWhole(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "Two handlers are registered."}
	})
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	q := longQuestion()
	code, out, stderr := runCLI(t, "@chatgpt "+q, "ask", "-")
	if code != 0 || !strings.Contains(out, "Two handlers are registered.") {
		t.Fatalf("exit %d\nout %q\nerr %q", code, out, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[0].Messages
	last := msgs[len(msgs)-1].Content
	if !strings.Contains(last, q) {
		t.Fatalf("the question was not sent whole: last message is %d bytes, ends %q", len(last), last[max(len(last)-120, 0):])
	}
}

// A question over the model's context window is refused before any call,
// with its size and the limit; the question is saved, nothing is lost.
func TestQuestionOverTheContextWindowIsRefusedBeforeTheCall(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	cfg := "models:\n  tiny-window: {provider: openai, context: 8000, max_output: 1000}\n" +
		"agents:\n  - name: chatgpt\n    model: tiny-window\n"
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "should not be asked"}
	})
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	q := longQuestion()
	code, out, stderr := runCLI(t, "@chatgpt "+q, "ask", "-")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want %d\nout %q\nerr %q", code, cli.ExitRuntime, out, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
	for _, want := range []string{"context window of 8000 tokens", "tiny-window", "the question is 102"} {
		if !strings.Contains(out+stderr, want) {
			t.Errorf("output lacks %q:\nout %q\nerr %q", want, out, stderr)
		}
	}
	_, shown, _ := runCLI(t, "", "sessions", "show", listSessions(t)[0].ID)
	if !strings.Contains(shown, "Why does worker-7 log every request twice?") {
		t.Fatalf("the question was not saved:\n%.300s", shown)
	}
}
