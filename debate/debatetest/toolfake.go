package debatetest

import (
	"context"
	"sync"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// ToolReply is one scripted step of a ToolFake: text streamed, then the
// tool calls the step ends with (none: the step is the answer).
type ToolReply struct {
	Text  string
	Calls []providers.ToolCall
	// Sources are what a server-side search of the step returned.
	Sources []providers.Source
}

// ToolFake is an in-process provider for the engine's native tool loop:
// Script says what step n (1-based, per fake) of a request answers, from
// what it was sent (the tool results are in req.Messages).
type ToolFake struct {
	Agent  string
	Script func(n int, req providers.Request) ToolReply

	mu   sync.Mutex
	reqs []providers.Request
}

func (f *ToolFake) Name() string { return "fake" }

// Requests are the requests received, in order.
func (f *ToolFake) Requests() []providers.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]providers.Request(nil), f.reqs...)
}

func (f *ToolFake) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	n := len(f.reqs)
	f.mu.Unlock()
	r := f.Script(n, req)
	res := providers.Result{FinishReason: "stop", ToolCalls: r.Calls, Sources: r.Sources,
		Usage: providers.Usage{InputTokens: demo.EstimateRequestTokens(req), OutputTokens: (len(r.Text) + 3) / 4}}
	if len(r.Calls) > 0 {
		res.FinishReason = "tool_calls"
	}
	return &toolStream{fakeStream: fakeStream{ctx: ctx, text: r.Text, sent: r.Text == "", usage: res.Usage}, res: res}, nil
}

type toolStream struct {
	fakeStream
	res providers.Result
}

func (s *toolStream) Result() providers.Result { return s.res }
