package demo

import (
	"context"
	"time"

	"github.com/parleyhq/parley/providers"
)

// demoStream streams a demo answer word by word at its pace.
type demoStream struct {
	ctx   context.Context
	words []string
	i     int
	cur   string
	pace  time.Duration
	usage providers.Usage
	calls []providers.ToolCall // asked for once the text is out
	err   error
	done  bool
}

func (s *demoStream) Next() bool {
	if s.done {
		return false
	}
	if s.i >= len(s.words) {
		s.done = true
		return false
	}
	if s.pace > 0 {
		t := time.NewTimer(s.pace)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.err, s.done = &providers.Error{Provider: "demo", Kind: providers.KindCanceled, Err: s.ctx.Err()}, true
			return false
		case <-t.C:
		}
	} else if s.ctx.Err() != nil {
		s.err, s.done = &providers.Error{Provider: "demo", Kind: providers.KindCanceled, Err: s.ctx.Err()}, true
		return false
	}
	s.cur = s.words[s.i]
	s.i++
	return true
}

func (s *demoStream) Delta() string { return s.cur }
func (s *demoStream) Err() error    { return s.err }
func (s *demoStream) Close() error  { return nil }
func (s *demoStream) Result() providers.Result {
	u := s.usage
	if s.i < len(s.words) { // cut short: count what was sent
		sent := 0
		for _, w := range s.words[:s.i] {
			sent += len(w)
		}
		u.OutputTokens = (sent + 3) / 4
		return providers.Result{Usage: u, FinishReason: "stop"}
	}
	if len(s.calls) > 0 {
		return providers.Result{Usage: u, FinishReason: "tool_calls", ToolCalls: s.calls}
	}
	return providers.Result{Usage: u, FinishReason: "stop"}
}

// splitKeepSpace splits text into words that keep their trailing spaces and
// newlines, so joining the pieces gives the text back exactly.
func splitKeepSpace(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' {
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\n') {
				j++
			}
			out = append(out, s[start:j])
			start, i = j, j-1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
