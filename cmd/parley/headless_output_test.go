package main

import (
	"bytes"
	"log"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// Several multi-line answers are set off from each other by a blank line.
func TestAskSeparatesMultilineAnswers(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "ask", "@all what is a monad?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out, "[Gemini]: ") || !strings.Contains(out, "\n\n[ChatGPT]: ") {
		t.Fatalf("answers run together:\n%s", out)
	}
}

// In the REPL's magi mode each vote is one readable line and the verdict
// is printed, not the raw JSON of the ballots.
func TestReplMagiPrintsVotesAndVerdict(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "/mode magi\nship on friday?\n", "--demo", "repl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, `{"vote"`) {
		t.Fatalf("raw ballot JSON printed:\n%s", out)
	}
	for _, want := range []string{"[MELCHIOR] round 1 vote: ", "[CASPER] round 3 vote: ", "MAGI verdict: "} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// One-line votes stay a compact list.
	if strings.Contains(out, "vote: REJECT — MELCHIOR rejects: The downside is hard to reverse and the people affected were not asked\n\n[BALTHASAR]") {
		t.Fatalf("votes are spread out:\n%s", out)
	}
}

// Escape sequences in a server's error messages reach neither the retry
// notice nor the final error line.
func TestServerErrorTextIsSanitized(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := providertest.OpenAI(t, providertest.Sequence(
		providertest.Reply{Status: 429, RetryAfter: "1", Text: "slow \x1b]0;pwned\x07down"},
		providertest.Reply{Status: 401, Text: "bad \x1b[31mkey\x1b[0m"},
	))
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	code, out, stderr := runCLI(t, "", "ask", "@chatgpt hi")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "retrying in 1s") || !strings.Contains(stderr, "slow down") || !strings.Contains(stderr, "bad key") {
		t.Fatalf("stderr lacks the retry or the error: %q", stderr)
	}
	if strings.ContainsAny(out+stderr, "\x1b\x07") {
		t.Fatalf("raw control characters printed:\nout %q\nerr %q", out, stderr)
	}
}

// genai logs a cut stream through the standard logger; headless commands
// report the cut themselves and print no such stray line.
func TestGeminiCutStreamLogsNothing(t *testing.T) {
	isolate(t)
	srv := providertest.Gemini(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Text: "one two three four", CutAfter: 2}
	})
	setenv(t, "GEMINI_API_KEY", "test-key")
	setenv(t, "GOOGLE_GEMINI_BASE_URL", srv.URL)
	var logged bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&logged)
	code, out, stderr := runCLI(t, "", "ask", "@gemini hi")
	if code != cli.ExitRuntime || !strings.Contains(out, "[Gemini]: one two [cut off: ") {
		t.Fatalf("exit %d\nout %q\nerr %q", code, out, stderr)
	}
	if logged.Len() > 0 {
		t.Fatalf("the SDK logged: %q", logged.String())
	}
}

// sessions show prints nothing a model wrote raw, tool call parameters
// included (they come from the model's tool XML).
func TestSessionsShowSanitizesToolCalls(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	rec := st.Record()
	info := debate.SessionInfo{ID: "abc123", Mode: "agent", Created: time.Now()}
	rec.Sink(debate.SessionStarted{Session: info})
	rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindToolCall, Speaker: "claude", Display: "Claude",
		Status: transcript.StatusComplete, Text: "<list_file>", ToolCalls: []transcript.ToolCall{{Tool: "list_file",
			Parameters: map[string]string{"path": "\x1b]0;pwned\x07/etc\x1b[2J"}, Result: "nothing"}}}})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "", "--db", db, "sessions", "show", "abc")
	if code != 0 || !strings.Contains(out, "tool ✓ list_file") || !strings.Contains(out, "/etc") {
		t.Fatalf("exit %d\nout %q\nerr %q", code, out, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("raw control characters printed: %q", out)
	}
}

// An ask without a mention would ask nobody: it is refused, exit 2, with
// the names to use.
func TestAskWithoutMentionExitsTwoWithTheHint(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "ask", "what is a monad?")
	if code != cli.ExitUsage || out != "" || !strings.Contains(stderr, `parley ask "@all what is a monad?"`) || !strings.Contains(stderr, "gemini, chatgpt") {
		t.Fatalf("exit %d\nout %q\nerr %q", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "", "--demo", "ask", "@gemini what is a monad?")
	if code != 0 || strings.Contains(stderr, "names no agent") {
		t.Fatalf("an ask that asked: exit %d %q", code, stderr)
	}
}

// With piped input the REPL echoes each line after its prompt, so the
// output reads as a transcript instead of prompts piled up ("> > ").
func TestReplEchoesPipedInput(t *testing.T) {
	t.Parallel()
	isolate(t)
	code, out, stderr := runCLI(t, "a note\n@gemini hi\nexit\n", "--demo", "repl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(out, "> a note\n> @gemini hi\n[Gemini]: ") || !strings.HasSuffix(out, "> exit\n") {
		t.Fatalf("out:\n%s", out)
	}
}
