package store

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenSession is a small debate with every kind of entry, at fixed times.
func goldenSession() (debate.SessionInfo, []transcript.Entry) {
	t0 := time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	info := debate.SessionInfo{ID: "0123456789ab", Title: "Should we rewrite it in Rust?", Mode: "magi",
		Created: t0, Parent: "ba9876543210", ForkAt: 2, State: map[string]string{"alternate.next": "claude"}}
	entries := []transcript.Entry{
		{Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "mention", Text: "@all Should we rewrite it in Rust?", Status: "complete", Started: at(0), Finished: at(0)},
		{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Provider: "gemini", Model: "gemini-3-flash-preview", Mode: "mention",
			Prompt: "Should we rewrite it in Rust?", Text: "Only the **hot path**.\n\n- parser\n- \x1b[31mcodec\x1b[0m", Status: "complete",
			Usage: providers.Usage{InputTokens: 120, OutputTokens: 40}, Cost: 0.00012, Started: at(1), Finished: at(3.5)},
		{Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Provider: "openai", Model: "gpt-5", Mode: "mention",
			Text: "No: the team knows Go and the", Status: "partial", Error: "stream cut: unexpected EOF",
			Usage: providers.Usage{InputTokens: 118, OutputTokens: 9}, Cost: 0.0002, Started: at(1), Finished: at(2)},
		{Kind: transcript.KindNote, Speaker: "user", Display: "You", Mode: "mention", Text: "remember the deadline", Status: "complete", Started: at(5), Finished: at(5)},
		{Kind: transcript.KindVote, Speaker: "melchior", Display: "MELCHIOR", Provider: "openai", Model: "gpt-5", Mode: "magi", Round: 1, Vote: "approve",
			Text: `{"vote":"approve","reasoning":"Memory safety pays for itself in the codec.","summary":"Rewrite the codec only."}`, Status: "complete",
			Usage: providers.Usage{InputTokens: 300, OutputTokens: 60}, Cost: 0.001, Started: at(6), Finished: at(8)},
		{Kind: transcript.KindVote, Speaker: "casper", Display: "CASPER", Provider: "gemini", Model: "gemini-3-flash-preview", Mode: "magi", Round: 1,
			Text: "I refuse to answer in JSON", Status: "complete", Started: at(6), Finished: at(7)},
		{Kind: transcript.KindVerdict, Speaker: "system", Display: "Parley", Mode: "magi", Round: 1, Vote: "INCOMPLETE", Text: "1 approve, 1 invalid", Status: "complete", Started: at(9), Finished: at(9)},
		{Kind: transcript.KindToolCall, Speaker: "codex", Display: "Codex", Provider: "openai", Model: "gpt-5-codex", Mode: "agent",
			Text: "<read_file><path>main.go</path></read_file>", Status: "complete", Started: at(10), Finished: at(10.25),
			ToolCalls: []transcript.ToolCall{{Tool: "read_file", Parameters: map[string]string{"path": "main.go"}, Result: "package main\n```go\n```\n"}}},
		{Kind: transcript.KindError, Speaker: "claude", Display: "Claude", Mode: "mention", Text: "", Error: "anthropic: 401 invalid x-api-key", Status: "error", Started: at(11), Finished: at(11)},
		{Kind: transcript.KindModerator, Speaker: "mc", Display: "MC", Provider: "openai", Model: "gpt-5", Mode: "talk", IsModerator: true,
			Text: "That closes our debate.", Status: "cancelled", Error: "cancelled", Started: at(12), Finished: at(13)},
		{Kind: transcript.KindSummary, Speaker: "system", Display: "Summary", Mode: "talk", Prompt: "summary of turns 1–3",
			Text: "- You: Should we rewrite it in Rust?\n- Gemini: Only the **hot path**.", Status: "complete", Covers: 3, Started: at(14), Finished: at(14)},
	}
	for i := range entries {
		entries[i].Turn = i + 1
	}
	return info, entries
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// The exports are checked through the database, so they show what a user
// gets from `parley sessions export`.
func storeGolden(t *testing.T) *Store {
	st := openTemp(t)
	info, entries := goldenSession()
	rec := st.Record()
	rec.Sink(debate.SessionStarted{Session: info})
	for _, en := range entries {
		rec.Sink(debate.EntryAdded{Entry: en})
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestExportMarkdownGolden(t *testing.T) {
	t.Parallel()
	st := storeGolden(t)
	var b bytes.Buffer
	if err := st.Export(context.Background(), &b, "0123456789ab", "md"); err != nil {
		t.Fatal(err)
	}
	golden(t, "export.golden.md", b.Bytes())
	if bytes.ContainsRune(b.Bytes(), 0x1b) {
		t.Error("an escape sequence reached the Markdown export")
	}
}

func TestExportJSONGolden(t *testing.T) {
	t.Parallel()
	st := storeGolden(t)
	var b bytes.Buffer
	if err := st.Export(context.Background(), &b, "0123456789ab", "json"); err != nil {
		t.Fatal(err)
	}
	golden(t, "export.golden.json", b.Bytes())
	// The seed's shape is there for tools that only know it.
	var seed struct {
		ConversationID string `json:"conversation_id"`
		Messages       []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			Timestamp string `json:"timestamp"`
			ToolCalls []struct {
				Tool       string            `json:"tool"`
				Parameters map[string]string `json:"parameters"`
				Result     string            `json:"result"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b.Bytes(), &seed); err != nil {
		t.Fatal(err)
	}
	if seed.ConversationID != "0123456789ab" || len(seed.Messages) != 11 || seed.Messages[0].Role != "user" ||
		seed.Messages[1].Role != "assistant" || seed.Messages[7].ToolCalls[0].Parameters["path"] != "main.go" {
		t.Errorf("seed view = %+v", seed)
	}
}

func TestExportRejectsUnknownFormatAndSession(t *testing.T) {
	t.Parallel()
	st := storeGolden(t)
	var b bytes.Buffer
	if err := st.Export(context.Background(), &b, "0123456789ab", "pdf"); err == nil {
		t.Error("pdf accepted")
	}
	if err := st.Export(context.Background(), &b, "nope", "md"); err == nil {
		t.Error("unknown session exported")
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]0;title\x07x", "\x1b]8;;http://x\x1b\\link", "a\x00b\rc\td\ne", "\x1b", "\x1b[", "\u009b31m", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := clean(s)
		for _, r := range out {
			if (unicode.IsControl(r) && r != '\n' && r != '\t') || r == '\uFFFD' {
				t.Fatalf("clean(%q) kept control %U", s, r)
			}
		}
		// Controls, replacement characters, and the emoji joiners, selectors,
		// skin tones and line separators the sanitizer drops for the layout.
		dropped := func(r rune) bool {
			return unicode.IsControl(r) || r == '\uFFFD' || r == '\u200d' || r == '\ufe0f' || r == '\u2028' || r == '\u2029' || (r >= 0x1f3fb && r <= 0x1f3ff)
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, dropped) && out != s {
			t.Fatalf("clean changed harmless text %q to %q", s, out)
		}
	})
}
