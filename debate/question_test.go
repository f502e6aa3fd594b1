package debate_test

import (
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

// Older long answers are clipped to fit the prompt; the question being
// asked, however long, is not.
func TestBuildPromptNeverCutsTheQuestion(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("log line\n", 12000) // ~105 KB
	question := long + "What is the real question?"
	h := transcript.NewHistory(nil)
	h.Append(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "first: " + long, Status: transcript.StatusComplete})
	h.Append(transcript.Entry{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Text: "old answer " + long, Status: transcript.StatusComplete})
	h.Append(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: question, Status: transcript.StatusComplete})
	b := (&config.Config{ModeList: known}).ContextBudget("mention")
	msgs := BuildPrompt(h, Prompt{Mode: "mention", Self: "chatgpt"}, b)
	all := ""
	for _, m := range msgs {
		all += m.Content
	}
	if !strings.Contains(msgs[len(msgs)-1].Content, question) {
		t.Fatalf("the question was cut: last message %d bytes", len(msgs[len(msgs)-1].Content))
	}
	if strings.Contains(all, "old answer "+long) {
		t.Fatal("an older entry went whole past the per-entry bound")
	}
}

// A prompt over the model's window is refused with the question's size
// and the limit; a model without a known window is never refused.
func TestOverWindow(t *testing.T) {
	t.Parallel()
	req := providers.Request{Model: "m", Messages: []providers.Message{{Role: providers.RoleUser, Content: strings.Repeat("x", 40000)}},
		Info: providers.ModelInfo{Context: 8000}}
	err := OverWindow("openai", req, strings.Repeat("x", 40000))
	if providers.KindOf(err) != providers.KindTooLong || !strings.Contains(err.Error(), "40000 bytes") || !strings.Contains(err.Error(), "window of 8000 tokens") {
		t.Fatalf("got %v", err)
	}
	req.Info.Context = 20000
	if err := OverWindow("openai", req, ""); err != nil {
		t.Fatalf("within the window: %v", err)
	}
	req.Info.Context = 0
	if err := OverWindow("openai", req, ""); err != nil {
		t.Fatalf("unknown window: %v", err)
	}
}
