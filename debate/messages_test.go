package debate_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

func TestBuildMessagesRolesPrefixesAndMerging(t *testing.T) {
	t.Parallel()
	entries := []transcript.Entry{
		{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "context: we run on ARM", Status: transcript.StatusComplete},
		{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@all which runtime?", Status: transcript.StatusComplete},
		{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Text: "Go.", Status: transcript.StatusComplete},
		{Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Text: "Rust.", Status: transcript.StatusComplete},
		{Kind: transcript.KindReply, Speaker: "claude", Display: "Claude", Text: "still typing", Status: transcript.StatusStreaming},
		{Kind: transcript.KindReply, Speaker: "claude", Display: "Claude", Status: transcript.StatusError, Error: "boom"},
		{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Text: "Go, but", Status: transcript.StatusCancelled},
		{Kind: transcript.KindModerator, Speaker: "mc", Display: "MC", Text: "Summary.", Status: transcript.StatusComplete, IsModerator: true},
	}
	got := BuildMessages(entries, View{Self: "gemini"})
	want := []providers.Message{
		{Role: providers.RoleUser, Content: "[Host (note)]: context: we run on ARM\n\n[Host]: @all which runtime?"},
		{Role: providers.RoleAssistant, Content: "Go."},
		{Role: providers.RoleUser, Content: "[ChatGPT]: Rust."},
		{Role: providers.RoleAssistant, Content: "Go, but\n[answer cancelled here]"},
		{Role: providers.RoleUser, Content: "[MC]: Summary."},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	// An agent whose first visible entry is its own still starts with user.
	got = BuildMessages(entries[2:3], View{Self: "gemini"})
	if got[0].Role != providers.RoleUser || got[1].Role != providers.RoleAssistant {
		t.Fatalf("must start with user: %+v", got)
	}
}

// The prompt stays bounded however long the session grows.
func TestBudgetWindowIsBounded(t *testing.T) {
	t.Parallel()
	var entries []transcript.Entry
	sizes := map[int]int{}
	for n := 1; n <= 2000; n++ {
		speaker := []string{"gemini", "chatgpt", transcript.SpeakerUser}[n%3]
		kind := transcript.KindReply
		if speaker == transcript.SpeakerUser {
			kind = transcript.KindUser
		}
		entries = append(entries, transcript.Entry{Kind: kind, Speaker: speaker, Display: speaker, Text: strings.Repeat(fmt.Sprintf("turn %d says something. ", n), 20), Status: transcript.StatusComplete})
		if n == 50 || n == 500 || n == 2000 {
			total := 0
			for _, m := range BuildMessages(entries, View{Self: "gemini", BudgetTokens: 4000}) {
				total += transcript.EstimateTokens(m.Content)
			}
			sizes[n] = total
		}
	}
	for n, size := range sizes {
		if size > 4000+200 {
			t.Fatalf("at %d entries the prompt is %d tokens, budget 4000", n, size)
		}
	}
	msgs := BuildMessages(entries, View{Self: "gemini", BudgetTokens: 4000})
	if !strings.HasPrefix(msgs[0].Content, "[Summary of ") || !strings.Contains(msgs[len(msgs)-1].Content, "turn 2000") {
		t.Fatalf("window should start with a summary and end with the newest turn: %q … %q", msgs[0].Content[:40], msgs[len(msgs)-1].Content[:40])
	}
	// With a moderator summary in the history, that summary is what stands for the past.
	entries = append(entries[:10], transcript.Entry{Kind: transcript.KindModerator, Speaker: "mc", IsModerator: true, Text: "MC: both sides agree on X.", Status: transcript.StatusComplete})
	for i := 0; i < 300; i++ {
		entries = append(entries, transcript.Entry{Kind: transcript.KindReply, Speaker: "chatgpt", Text: strings.Repeat("more ", 100), Status: transcript.StatusComplete})
	}
	msgs = BuildMessages(entries, View{Self: "gemini", BudgetTokens: 2000})
	if !strings.Contains(msgs[0].Content, "both sides agree on X") {
		t.Fatalf("moderator summary not used: %q", msgs[0].Content[:120])
	}
}

func TestMarshalEventHasTypeFirst(t *testing.T) {
	t.Parallel()
	b, err := MarshalEvent(TextDelta{Turn: 3, Agent: "gemini", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"type":"text_delta","turn":3,"agent":"gemini","text":"hi"}` {
		t.Fatalf("%s", b)
	}
}

// clip shortens model text for prompts (opinions, summaries, tool results):
// a cut inside a multi-byte character must not leave U+FFFD behind, and the
// result, ellipsis included, stays within the byte limit.
func TestClipCutsOnCharacterBoundaries(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"😀😀😀", "ééé", "abcdef", "a😀b"} {
		for limit := 0; limit < len(s); limit++ {
			got := sanitize.Clip(s, limit)
			if strings.ContainsRune(got, utf8.RuneError) || !utf8.ValidString(got) {
				t.Errorf("clip(%q, %d) = %q: a character was cut in half", s, limit, got)
			}
			if !strings.HasSuffix(got, "…") || !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
				t.Errorf("clip(%q, %d) = %q: not a marked prefix", s, limit, got)
			}
			if len(got) > max(limit, len("…")) {
				t.Errorf("clip(%q, %d) = %q is %d bytes", s, limit, got, len(got))
			}
		}
		if got := sanitize.Clip(s, len(s)); got != s {
			t.Errorf("clip(%q, %d) = %q, want it whole", s, len(s), got)
		}
	}
}
