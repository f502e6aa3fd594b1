package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/providers/providertest"
)

// A model answering with bidi overrides and hidden characters (Trojan
// Source) reaches no person with them: not the terminal while it streams,
// not `sessions show`, not the Markdown export. The text around them stays.
func TestBidiControlsReachNoTerminalOrExport(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"access = \"user\u202e \u2066// admin\u2069\u2066\"", " ok\u200b\U000E0041", " \u061cdone"}}
	})
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
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

// A provider whose error echoes the key (as proxies and compatible servers
// do) never gets it shown, stored, exported or streamed: not in the retry
// notice, the error line, the JSONL events, the SQLite file or either
// export. The message around the key is kept.
func TestProviderErrorEchoingTheKeyIsScrubbed(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	const key = "zq7Fh2LmP9xK4vB8nR3tWc"
	srv := providertest.OpenAI(t, providertest.Sequence(
		providertest.Reply{Status: 429, RetryAfter: "0", Text: "quota exceeded for key " + key},
		providertest.Reply{Status: 401, Text: "API key not valid: " + key + " was rejected (Authorization: Bearer " + key + ")"},
		providertest.Reply{Status: 429, RetryAfter: "0", Text: "quota exceeded for key " + key},
		providertest.Reply{Status: 401, Text: "API key not valid: " + key + " was rejected (Authorization: Bearer " + key + ")"},
	))
	setenv(t, "OPENAI_API_KEY", key)
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	_, human, humanErr := runCLI(t, "", "ask", "@chatgpt hi")
	code, jsonl, jsonlErr := runCLI(t, "", "ask", "--jsonl", "@chatgpt hi again")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want 1; stderr %q", code, jsonlErr)
	}
	if len(srv.Requests()) != 4 {
		t.Fatalf("%d requests, want 4", len(srv.Requests()))
	}
	id := listSessions(t)[0].ID
	_, md, _ := runCLI(t, "", "sessions", "export", id, "--format", "md")
	_, js, _ := runCLI(t, "", "sessions", "export", id, "--format", "json")
	_, shown, _ := runCLI(t, "", "sessions", "show", id)
	outputs := map[string]string{"stdout": human, "stderr": humanErr, "jsonl": jsonl, "jsonl stderr": jsonlErr,
		"markdown export": md, "json export": js, "sessions show": shown}
	for name, text := range outputs {
		if strings.Contains(text, key) {
			t.Errorf("%s holds the key:\n%s", name, text)
		}
	}
	for _, name := range []string{"stderr", "jsonl", "markdown export", "json export", "sessions show"} {
		if !strings.Contains(outputs[name], "API key not valid: [redacted] was rejected") {
			t.Errorf("%s lacks the scrubbed error:\n%s", name, outputs[name])
		}
	}
	if !strings.Contains(jsonl, `"type":"retrying"`) || !strings.Contains(jsonl, "quota exceeded for key [redacted]") {
		t.Errorf("the retry notice is missing or unscrubbed:\n%s", jsonl)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "data", "parley", "*"))
	if len(files) == 0 {
		t.Fatal("no database files found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(key)) {
			t.Errorf("%s holds the key", f)
		}
	}
}

// Every JSON a command writes escapes C1 controls and bidi characters as
// \u escapes, as `ask --json` does (issue 42, break 9): `sessions list
// --json`, `sessions show --json`, `sessions export --format json` and
// `models --json` carried U+009B and U+202E as raw bytes. The escaped text
// decodes to what was said.
func TestJSONOfEveryCommandEscapesC1AndBidi(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"csi \u009b31m and \u202eflip"}}
	})
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	if code, _, stderr := runCLI(t, "", "ask", "@chatgpt a \u009b title \u202e here"); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, stderr)
	}
	id := listSessions(t)[0].ID
	outputs := map[string][]string{
		"sessions list --json":          {"sessions", "list", "--json"},
		"sessions show --json":          {"sessions", "show", id, "--json"},
		"sessions export --format json": {"sessions", "export", id, "--format", "json"},
		"sessions rename --json":        {"sessions", "rename", id, "re\u009bnamed \u202e", "--json"},
		"models --json":                 {"models", "--json"},
	}
	for name, args := range outputs {
		code, out, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if i := strings.IndexAny(out, "\u009b\u202e"); i >= 0 {
			t.Errorf("%s carries a raw C1 or bidi character at byte %d: %q", name, i, out)
		}
		if name != "models --json" && !strings.Contains(out, `\u009b`) {
			t.Errorf("%s: want the C1 control kept as an escape: %q", name, out)
		}
	}
}

// `parley ask "@all"` asks no question: refused with exit 2 before any
// call, and nothing is saved (it was a paid call to every agent).
func TestBareMentionsAreRefusedBeforeAnyCall(t *testing.T) {
	t.Parallel()
	isolate(t)
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"an answer to nothing"}}
	})
	setenv(t, "OPENAI_API_KEY", "sk-test")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	for _, line := range []string{"@all", "@chatgpt"} {
		code, out, stderr := runCLI(t, "", "ask", line)
		if code != cli.ExitUsage || !strings.Contains(stderr, "asks no question") {
			t.Fatalf("ask %q: exit %d %q %q; want exit %d and the refusal", line, code, out, stderr, cli.ExitUsage)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider, want 0", n)
	}
	if list := listSessions(t); len(list) != 0 {
		t.Fatalf("refused lines saved %d sessions", len(list))
	}
}
