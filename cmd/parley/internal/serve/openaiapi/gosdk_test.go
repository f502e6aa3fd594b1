package openaiapi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/parleyhq/parley/cmd/parley/internal/serve"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// TestModelsThroughGoOpenAI: go-openai lists council, magi, all and every
// configured agent, owned by parley, and reads one of them.
func TestModelsThroughGoOpenAI(t *testing.T) {
	t.Parallel()
	f := newFixture(t, demoAgents)
	list, err := f.client.ListModels(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list.Models {
		if m.OwnedBy != "parley" || m.Object != "model" || m.CreatedAt == 0 {
			t.Errorf("model %+v", m)
		}
		ids = append(ids, m.ID)
	}
	want := append([]string{"council", "magi", "all"}, builtin(t).AgentNames()...)
	if !slices.Equal(ids, want) {
		t.Fatalf("models %v, want %v", ids, want)
	}
	m, err := f.client.GetModel(ctx(t), "claude")
	if err != nil || m.ID != "claude" || m.OwnedBy != "parley" {
		t.Fatalf("GetModel claude: %+v %v", m, err)
	}
	_, err = f.client.GetModel(ctx(t), "gpt-4o")
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusNotFound || apiErr.Code != "model_not_found" || apiErr.Type != "invalid_request_error" {
		t.Fatalf("unknown model: %v", err)
	}
}

// TestCouncilCompletionCarriesTheHistory: a non-streaming council over
// go-openai. The fake providers receive the client's instructions, its
// earlier turns and its question; the answer is the chairman's, the
// deliberation the members' answers and rankings; the usage sums every
// call; the saved session matches.
func TestCouncilCompletionCarriesTheHistory(t *testing.T) {
	t.Parallel()
	fake, agents := fakeAgents(t, councilReplies)
	f := newFixture(t, agents)
	resp, err := f.client.CreateChatCompletion(ctx(t), openai.ChatCompletionRequest{
		Model: "council",
		Messages: []openai.ChatCompletionMessage{
			{Role: "system", Content: "Answer for a Go shop."},
			{Role: "user", Content: "Which language for the CLI?"},
			{Role: "assistant", Content: "Earlier we said Rust."},
			{Role: "user", Content: "Should we rewrite the CLI in Go?"},
		},
		User: "alice",
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	if msg.Content != "CHAIR: the council recommends Go." || resp.Choices[0].FinishReason != "stop" {
		t.Fatalf("answer %q (%s)", msg.Content, resp.Choices[0].FinishReason)
	}
	for _, want := range []string{"MEMBER ", "Peer ranking", "all sound"} {
		if !strings.Contains(msg.ReasoningContent, want) {
			t.Errorf("deliberation lacks %q:\n%s", want, msg.ReasoningContent)
		}
	}
	if strings.Contains(msg.ReasoningContent, "CHAIR:") {
		t.Errorf("the answer leaked into the deliberation:\n%s", msg.ReasoningContent)
	}
	reqs := fake.Requests()
	if len(reqs) != 7 { // 3 members, 3 rankings, the chairman
		t.Fatalf("%d provider calls, want 7", len(reqs))
	}
	for _, r := range reqs {
		all := r.System
		for _, m := range r.Messages {
			all += "\n" + m.Content
		}
		wants := []string{"Answer for a Go shop.", "Should we rewrite the CLI in Go?"}
		if strings.Contains(all, "rank them from best to worst") {
			wants = wants[1:] // an anonymous judge reads the question and the answers only
		}
		for _, want := range wants {
			if !strings.Contains(all, want) {
				t.Errorf("a provider call lacks %q", want)
			}
		}
	}
	member := reqs[0].Messages
	joined := ""
	for _, m := range member {
		joined += m.Content + "\n"
	}
	if !strings.Contains(joined, "Which language for the CLI?") || !strings.Contains(joined, "Earlier we said Rust.") {
		t.Errorf("a member did not get the earlier turns: %q", joined)
	}
	id := resp.ID[len("chatcmpl-"):]
	info, entries := f.load(id)
	if info.Title != debate.TitleFor("council", "Should we rewrite the CLI in Go?") {
		t.Errorf("title %q", info.Title)
	}
	if owner, _ := f.st.Owner(ctx(t), id); owner != "alice" {
		t.Errorf("owner %q, want the request's user", owner)
	}
	// The usage sums every call: the saved turns' (the providers reported
	// 3×(50+5) for the members and 100+10 for the chairman at least).
	var in, out int
	for _, en := range entries {
		in, out = in+en.Usage.InputTokens, out+en.Usage.OutputTokens
	}
	if resp.Usage.PromptTokens != in || resp.Usage.CompletionTokens != out || resp.Usage.TotalTokens != in+out || in < 250 || out < 25 {
		t.Errorf("usage %+v, the saved turns hold %d in, %d out", resp.Usage, in, out)
	}
	chair := agentReplies(entries, 3)
	if len(chair) != 1 || chair[0].Text != msg.Content || chair[0].Status != transcript.StatusComplete {
		t.Fatalf("saved chairman %+v", chair)
	}
	for _, en := range agentReplies(entries, 1) {
		if !strings.Contains(msg.ReasoningContent, en.Text) {
			t.Errorf("saved answer %q is not in the deliberation", en.Text)
		}
	}
}

// streamed is what a go-openai stream brought.
type streamed struct {
	reasoning, content         string
	firstContentAfterReasoning bool
	usage                      *openai.Usage
	finish                     openai.FinishReason
	id                         string
	chunks                     int
}

func readStream(t *testing.T, s *openai.ChatCompletionStream) streamed {
	t.Helper()
	var out streamed
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		out.chunks++
		out.id = c.ID
		if c.Usage != nil {
			out.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != "" && out.content == "" {
				out.firstContentAfterReasoning = out.reasoning != ""
			}
			out.reasoning += ch.Delta.ReasoningContent
			out.content += ch.Delta.Content
			if ch.FinishReason != "" {
				out.finish = ch.FinishReason
			}
		}
	}
}

// TestStreamingEveryModel: council, magi, all and one agent stream over
// go-openai: the deliberation first as reasoning_content, then the
// answer as content, the usage chunk when asked, and a session that holds
// what was streamed.
func TestStreamingEveryModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, demoAgents)
	for _, tc := range []struct {
		model       string
		deliberates bool
	}{{"council", true}, {"magi", true}, {"all", false}, {"claude", false}} {
		t.Run(tc.model, func(t *testing.T) {
			s, err := f.client.CreateChatCompletionStream(ctx(t), openai.ChatCompletionRequest{
				Model: tc.model, Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true},
				Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Should we adopt Go?"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got := readStream(t, s)
			if got.content == "" || got.finish != "stop" || got.usage == nil || got.usage.TotalTokens == 0 {
				t.Fatalf("stream: %+v", got)
			}
			if tc.deliberates && (got.reasoning == "" || !got.firstContentAfterReasoning) {
				t.Fatalf("the deliberation did not stream first: %+v", got)
			}
			id := strings.TrimPrefix(got.id, "chatcmpl-")
			info, entries := f.load(id)
			if want := debate.TitleFor(tc.model, "Should we adopt Go?"); info.Title != want {
				t.Errorf("title %q, want %q", info.Title, want)
			}
			checkSaved(t, tc.model, entries, got)
			if !f.listed(id) {
				t.Errorf("the web page's list (GET /api/v1/sessions) lacks %s", id)
			}
		})
	}
}

// checkSaved compares the saved session with the stream.
func checkSaved(t *testing.T, model string, entries []transcript.Entry, got streamed) {
	t.Helper()
	var replies []transcript.Entry
	for _, en := range entries {
		if en.IsAgentTurn() {
			replies = append(replies, en)
			if en.Status != transcript.StatusComplete {
				t.Errorf("saved turn %d is %s", en.Turn, en.Status)
			}
		}
	}
	switch model {
	case "council":
		if chair := agentReplies(entries, 3); len(chair) != 1 || chair[0].Text != got.content {
			t.Errorf("content %q is not the saved chairman's answer", got.content)
		}
	case "magi":
		var verdict string
		for _, en := range entries {
			if en.Kind == transcript.KindVerdict {
				verdict = en.Vote
			}
		}
		if verdict == "" || !strings.Contains(got.content, "MAGI verdict: "+verdict) {
			t.Errorf("content %q lacks the saved verdict %q", got.content, verdict)
		}
	case "all":
		if len(replies) < 2 {
			t.Fatalf("@all saved %d replies", len(replies))
		}
		for _, en := range replies {
			if !strings.Contains(got.content, "### "+en.Display+"\n\n"+en.Text) {
				t.Errorf("content lacks %s's saved answer", en.Display)
			}
		}
	default:
		if len(replies) != 1 || replies[0].Speaker != model || replies[0].Text != got.content {
			t.Errorf("saved %+v, streamed %q", replies, got.content)
		}
	}
}

// TestCapStopsTheRunWithAnOpenAIError: under a spending cap no call may
// pass, the run stops before the first one and the client reads an
// OpenAI-shaped insufficient_quota error, streaming or not.
func TestCapStopsTheRunWithAnOpenAIError(t *testing.T) {
	t.Parallel()
	fake, agents := fakeAgents(t, councilReplies)
	f := newFixture(t, agents, func(o *serve.Options) { o.MaxCost = 0.000001 })
	req := openai.ChatCompletionRequest{Model: "council", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Go or Rust?"}}}
	_, err := f.client.CreateChatCompletion(ctx(t), req)
	checkCapError(t, err)
	req.Stream = true
	s, err := f.client.CreateChatCompletionStream(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for err == nil {
		_, err = s.Recv()
	}
	checkCapError(t, err)
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d calls went out past the cap", n)
	}
}

func checkCapError(t *testing.T, err error) {
	t.Helper()
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != "insufficient_quota" || apiErr.Code != "cost_cap_reached" || !strings.Contains(apiErr.Message, "cap") {
		t.Fatalf("want an insufficient_quota error, got %v", err)
	}
}

// TestBadRequestsGetOpenAIErrors: bad messages and parameters are refused
// with 400 and the field named, before anything runs or is saved.
func TestBadRequestsGetOpenAIErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, demoAgents)
	for name, req := range map[string]openai.ChatCompletionRequest{
		"no messages":    {Model: "council"},
		"last assistant": {Model: "council", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}}},
		"tool role":      {Model: "council", Messages: []openai.ChatCompletionMessage{{Role: "tool", Content: "x", ToolCallID: "1"}, {Role: "user", Content: "a"}}},
		"n of 2":         {Model: "magi", N: 2, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "a"}}},
		"image":          {Model: "all", Messages: []openai.ChatCompletionMessage{{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "image_url", ImageURL: &openai.ChatMessageImageURL{URL: "https://x/y.png"}}}}}},
	} {
		_, err := f.client.CreateChatCompletion(ctx(t), req)
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || apiErr.Type != "invalid_request_error" || apiErr.Param == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	list, err := f.st.List(ctx(t))
	if err != nil || len(list) != 0 {
		t.Fatalf("refused requests left sessions: %v %v", list, err)
	}
}

// TestTokenIsTheAPIKey: without the token the door answers 401 in
// OpenAI's shape; with it as the API key it answers.
func TestTokenIsTheAPIKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t, demoAgents)
	cfg := openai.DefaultConfig("wrong-token")
	cfg.BaseURL = f.ts.URL + "/v1"
	_, err := openai.NewClientWithConfig(cfg).ListModels(ctx(t))
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 401 || apiErr.Type != "authentication_error" {
		t.Fatalf("wrong token: %v", err)
	}
}

// TestClientAbortCancelsTheRun: a client that goes away mid-stream
// cancels the council; the turns that were streaming are saved cancelled
// with what had arrived.
func TestClientAbortCancelsTheRun(t *testing.T) {
	t.Parallel()
	_, agents := fakeAgents(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"STARTED ", "never sent"}, StallAfter: 1}
	})
	f := newFixture(t, agents)
	c, cancel := context.WithCancel(ctx(t))
	defer cancel()
	s, err := f.client.CreateChatCompletionStream(c, openai.ChatCompletionRequest{Model: "council", Stream: true,
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "Go or Rust?"}}})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for {
		chunk, err := s.Recv()
		if err != nil {
			t.Fatalf("the stream ended before any deliberation: %v", err)
		}
		id = strings.TrimPrefix(chunk.ID, "chatcmpl-")
		if len(chunk.Choices) > 0 && strings.Contains(chunk.Choices[0].Delta.ReasoningContent, "STARTED") {
			break
		}
	}
	events := f.events(id) // the session's own event stream, from its start
	cancel()
	s.Close()
	if !events.until(t, "exchange_finished") {
		t.Fatal("the run went on after the client left")
	}
	f.srv.Close() // writes what the recorder holds
	_, entries := f.load(id)
	members := agentReplies(entries, 1)
	if len(members) != 3 {
		t.Fatalf("%d member turns saved", len(members))
	}
	kept := 0
	for _, en := range members {
		if en.Status != transcript.StatusCancelled {
			t.Errorf("saved member turn %d is %s, want cancelled", en.Turn, en.Status)
		}
		if strings.Contains(en.Text, "STARTED") {
			kept++
		}
	}
	if kept == 0 { // the client read one member's first words: they are kept
		t.Error("no saved member turn kept what had arrived")
	}
}

// TestAgentReadsItsEarlierAnswersAsItsOwn: for one agent's model (one
// without tools: its reply streams as the content, nothing as reasoning), the
// client's earlier assistant messages reach that agent as its own
// (assistant) turns, the instructions and the question as the host's.
func TestAgentReadsItsEarlierAnswersAsItsOwn(t *testing.T) {
	t.Parallel()
	fake, agents := fakeAgents(t, func(providertest.Request) providertest.Reply { return providertest.Reply{Text: "Spaces."} })
	f := newFixture(t, agents)
	resp, err := f.client.CreateChatCompletion(ctx(t), openai.ChatCompletionRequest{Model: "gemini", Messages: []openai.ChatCompletionMessage{
		{Role: "developer", Content: "Answer in one word."}, {Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello there."}, {Role: "user", Content: "Tabs or spaces?"},
	}})
	if err != nil || resp.Choices[0].Message.Content != "Spaces." || resp.Choices[0].Message.ReasoningContent != "" {
		t.Fatalf("%+v %v", resp, err)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d calls", len(reqs))
	}
	var own, host []string
	for _, m := range reqs[0].Messages {
		if m.Role == providers.RoleAssistant {
			own = append(own, m.Content)
		} else {
			host = append(host, m.Content)
		}
	}
	joined := strings.Join(host, "\n")
	if !slices.Equal(own, []string{"Hello there."}) || !strings.Contains(joined, "Answer in one word.") || !strings.Contains(joined, "Tabs or spaces?") {
		t.Fatalf("the agent read: own %q, host %q", own, host)
	}
}
