package openaiapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// sdkClient is the folder of the official openai npm package's client
// (installed from its package-lock.json by testbin.NodeClient).
const sdkClient = "testdata/sdkclient"

// stallOrDemo answers as the demo agents do, except a question with
// STALL: that one streams a word and then holds, until the run is cancelled.
type stallOrDemo struct {
	demo, stall providers.Provider
}

func (p stallOrDemo) Name() string { return p.demo.Name() }

func (p stallOrDemo) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, "STALL:") {
			return p.stall.Stream(ctx, req)
		}
	}
	return p.demo.Stream(ctx, req)
}

// TestOfficialSDK: the official openai npm package, a client nobody here
// wrote, lists the models, asks a council without streaming, streams
// council, magi, all and one agent (with include_usage), gets an error
// for an unknown model and aborts a stream midway; the Go side checks
// what it read against the saved sessions.
func TestOfficialSDK(t *testing.T) {
	t.Parallel()
	node := testbin.NodeClient(t, sdkClient, "openai")
	_, stalled := fakeAgents(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: []string{"STARTED ", "never sent"}, StallAfter: 1}
	})
	agents := func(cfg *config.Config) ([]*debate.Agent, error) {
		stall, err := stalled(cfg)
		if err != nil {
			return nil, err
		}
		demos, err := demoAgents(cfg)
		for i, a := range demos {
			a.Provider = stallOrDemo{demo: a.Provider, stall: stall[i].Provider}
		}
		return demos, err
	}
	f := newFixture(t, agents)
	out := nodeClient(t, node, f.ts.URL+"/v1", f.token)
	var got sdkResult
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %q: %v", out, err)
	}
	var ids []string
	for _, m := range got.Models {
		ids = append(ids, m.ID)
		if m.OwnedBy != "parley" {
			t.Errorf("model %+v", m)
		}
	}
	if want := append([]string{"council", "magi", "all"}, builtin(t).AgentNames()...); !slices.Equal(ids, want) {
		t.Errorf("models %v, want %v", ids, want)
	}
	c := got.Completion
	_, entries := f.load(strings.TrimPrefix(c.ID, "chatcmpl-"))
	if chair := agentReplies(entries, 3); len(chair) != 1 || chair[0].Text != c.Content || c.Reasoning == "" || c.Finish != "stop" ||
		c.Parley.SessionID == "" || c.Parley.Deliberation != c.Reasoning || c.Usage.TotalTokens == 0 {
		t.Errorf("council completion %+v", c)
	}
	for _, s := range got.Streams {
		_, entries := f.load(strings.TrimPrefix(s.ID, "chatcmpl-"))
		checkSaved(t, s.Model, entries, streamed{reasoning: s.Reasoning, content: s.Content})
		if s.Finish != "stop" || s.Parley.SessionID == "" || (s.Model != "claude" && s.Usage == nil) {
			t.Errorf("%s stream: %+v", s.Model, s)
		}
		if s.Model == "council" || s.Model == "magi" {
			if s.FirstReasoningMs == nil || s.FirstContentMs == nil || *s.FirstReasoningMs > *s.FirstContentMs {
				t.Errorf("%s: the deliberation did not come first (%v, %v)", s.Model, s.FirstReasoningMs, s.FirstContentMs)
			}
		}
	}
	if e := got.Error; e == nil || !e.IsAPIError || e.Status != 404 || e.Type != "invalid_request_error" || e.Code != "model_not_found" {
		t.Errorf("unknown model: %+v", got.Error)
	}
	if !got.Abort.Aborted || got.Abort.ID == "" {
		t.Fatalf("abort: %+v", got.Abort)
	}
	abortID := strings.TrimPrefix(got.Abort.ID, "chatcmpl-")
	if !f.events(abortID).until(t, "exchange_finished") {
		t.Fatal("the run went on after the client aborted")
	}
	f.srv.Close() // writes what the recorder holds
	_, entries = f.load(abortID)
	for _, en := range agentReplies(entries, 1) {
		if en.Status != transcript.StatusCancelled {
			t.Errorf("after the abort, turn %d is %s", en.Turn, en.Status)
		}
	}
}

// sdkResult is what client.mjs prints.
type sdkResult struct {
	Models []struct {
		ID      string `json:"id"`
		OwnedBy string `json:"owned_by"`
	}
	Completion struct {
		ID, Content, Reasoning, Finish string
		Usage                          struct {
			TotalTokens int `json:"total_tokens"`
		}
		Parley struct {
			SessionID    string `json:"session_id"`
			Deliberation string
		}
	}
	Streams []struct {
		Model, Reasoning, Content, Finish, ID string
		FirstReasoningMs, FirstContentMs      *float64
		Usage                                 *struct {
			TotalTokens int `json:"total_tokens"`
		}
		Parley struct {
			SessionID string `json:"session_id"`
		}
	}
	Error *struct {
		IsAPIError bool
		Status     int
		Type, Code string
		Message    string
	}
	Abort struct {
		ID      string
		Aborted bool
	}
}

// TestOfficialSDKThrowsOnAFailedRun: through the official openai npm
// package, a run whose provider answers 500 on every try, and one whose
// stream is cut midway, throw an APIError, streaming or not: no client
// saves an error, or half an answer, as the assistant's reply.
func TestOfficialSDKThrowsOnAFailedRun(t *testing.T) {
	t.Parallel()
	node := testbin.NodeClient(t, sdkClient, "openai")
	_, agents := fakeAgents(t, failingReplies)
	f := newFixture(t, agents)
	out := nodeClient(t, node, f.ts.URL+"/v1", f.token, "failed")
	var runs []struct {
		Question      string
		Stream, Threw bool
		Status        *int
		Code, Content string
		Finish        *string
	}
	if err := json.Unmarshal(out, &runs); err != nil || len(runs) != 4 {
		t.Fatalf("client output %q: %v", out, err)
	}
	for _, r := range runs {
		want := "run_failed"
		if strings.HasPrefix(r.Question, "CUT") {
			want = "answer_incomplete"
		}
		if !r.Threw || r.Code != want || r.Finish != nil || !r.Stream && (r.Status == nil || *r.Status != 502) {
			t.Errorf("%q (stream %v): %+v", r.Question, r.Stream, r)
		}
	}
}
