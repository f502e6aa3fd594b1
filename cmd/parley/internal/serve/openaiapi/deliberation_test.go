package openaiapi_test

import (
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/providers/providertest"
)

// TestMagiDeliberationReadsInOrder (issue 43): a member whose last chunk
// ends its summary and carries an empty changed_by streams, as
// reasoning_content, the summary whole, no empty field label, and never
// more than one blank line.
func TestMagiDeliberationReadsInOrder(t *testing.T) {
	t.Parallel()
	_, agents := fakeAgents(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{
			`{"vote": "approve", "reasoning": "The change is small.", "summary": "low risk, quick`,
			` rollback", "changed_by": ""}`,
		}}
	})
	f := newFixture(t, agents)
	s, err := f.client.CreateChatCompletionStream(ctx(t), openai.ChatCompletionRequest{
		Model: "magi", Stream: true,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Ship it on Friday?"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := readStream(t, s)
	r := got.reasoning
	if !strings.Contains(r, "low risk, quick rollback") {
		t.Errorf("the summary is cut apart in reasoning_content:\n%s", r)
	}
	if strings.Contains(r, "changed_by") {
		t.Errorf("an empty field is labelled in reasoning_content:\n%s", r)
	}
	if strings.Contains(r, "\n\n\n") {
		t.Errorf("more than one blank line in reasoning_content:\n%q", r)
	}
	if !strings.Contains(r, "*vote: approve*") {
		t.Errorf("the vote is not shown in reasoning_content:\n%s", r)
	}
}
