package debatetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// Fake is an in-process provider for engine tests: it records requests
// and streams a scripted answer word by word after a fixed delay.
type Fake struct {
	Agent      string
	Delay      time.Duration // before the first word
	ChunkDelay time.Duration // between words
	Answer     func(providers.Request) string
	Fail       error // returned by the stream after the answer's text
	PanicMsg   string
	Started    chan<- string   // told the fake's name when it is called, if set
	Gate       <-chan struct{} // the first word waits for it to close, if set

	mu   sync.Mutex
	reqs []providers.Request
}

func (f *Fake) Name() string { return f.Agent }

func (f *Fake) Requests() []providers.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]providers.Request(nil), f.reqs...)
}

func (f *Fake) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.PanicMsg != "" {
		panic(f.PanicMsg)
	}
	if f.Started != nil {
		f.Started <- f.Agent
	}
	text := "ok from " + f.Agent
	if f.Answer != nil {
		text = f.Answer(req)
	}
	return &spineStream{ctx: ctx, words: strings.SplitAfter(text, " "), delay: f.Delay, chunkDelay: f.ChunkDelay, fail: f.Fail, gate: f.Gate,
		usage: providers.Usage{InputTokens: demo.EstimateRequestTokens(req), OutputTokens: len(text) / 4}}, nil
}

type spineStream struct {
	ctx               context.Context
	words             []string
	i                 int
	delay, chunkDelay time.Duration
	fail              error
	gate              <-chan struct{}
	err               error
	usage             providers.Usage
}

func (s *spineStream) wait(d time.Duration) bool {
	if d <= 0 {
		return s.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (s *spineStream) Next() bool {
	if s.err != nil || s.i >= len(s.words) {
		if s.err == nil && s.fail != nil {
			s.err = s.fail
		}
		return false
	}
	d := s.chunkDelay
	if s.i == 0 {
		d = s.delay
		if s.gate != nil {
			select {
			case <-s.gate:
			case <-s.ctx.Done():
				s.err = s.ctx.Err()
				return false
			}
		}
	}
	if !s.wait(d) {
		s.err = s.ctx.Err()
		return false
	}
	s.i++
	return true
}

func (s *spineStream) Delta() string { return s.words[s.i-1] }

func (s *spineStream) Err() error { return s.err }

func (s *spineStream) Close() error { return nil }

func (s *spineStream) Result() providers.Result {
	return providers.Result{Usage: s.usage, FinishReason: "stop"}
}

// CallLog records which agent was called, in call order, across fakes.
type CallLog struct {
	mu    sync.Mutex
	calls []ModeCall
}

// ModeCall is one call a CallLog saw: whose, and what was sent.
type ModeCall struct {
	Agent string
	Req   providers.Request
}

func (l *CallLog) Add(agent string, req providers.Request) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, ModeCall{agent, req})
	return len(l.calls)
}

func (l *CallLog) All() []ModeCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]ModeCall(nil), l.calls...)
}

func (l *CallLog) Order() []string {
	var out []string
	for _, c := range l.All() {
		out = append(out, c.Agent)
	}
	return out
}

// ModeFake is an in-process provider for mode tests: it answers "<agent>
// answer <n>" (n counts all calls of the log) unless answer is set, reports
// the estimated prompt as input tokens and a fixed output count, and can fail.
type ModeFake struct {
	Agent  string
	Log    *CallLog
	Answer func(n int, req providers.Request) string
	Output int   // output tokens reported (0: len/4)
	Fail   error // every call fails with it, nothing streamed
}

func (f *ModeFake) Name() string { return "fake" }

func (f *ModeFake) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	n := f.Log.Add(f.Agent, req)
	if f.Fail != nil {
		return nil, f.Fail
	}
	text := fmt.Sprintf("%s answer %d", f.Agent, n)
	if f.Answer != nil {
		text = f.Answer(n, req)
	}
	out := f.Output
	if out == 0 {
		out = (len(text) + 3) / 4
	}
	return &fakeStream{ctx: ctx, text: text, usage: providers.Usage{InputTokens: demo.EstimateRequestTokens(req), OutputTokens: out}}, nil
}

type fakeStream struct {
	ctx   context.Context
	text  string
	sent  bool
	err   error
	usage providers.Usage
}

func (s *fakeStream) Next() bool {
	if s.sent || s.err != nil {
		return false
	}
	if s.ctx.Err() != nil {
		s.err = s.ctx.Err()
		return false
	}
	s.sent = true
	return true
}

func (s *fakeStream) Delta() string { return s.text }

func (s *fakeStream) Err() error { return s.err }

func (s *fakeStream) Close() error { return nil }

func (s *fakeStream) Result() providers.Result {
	return providers.Result{Usage: s.usage, FinishReason: "stop"}
}

// RealisticAnswer is a long answer shaped like a real one (prose, a list,
// code), marked with its agent and call number.
func RealisticAnswer(agent string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s answer %d: the retry loop needs a bound on attempts and on the total wait, or a flaky dependency keeps a request open far longer than the caller's own deadline allows.\n\n", agent, n)
	for i := range 8 {
		fmt.Fprintf(&b, "- point %d of answer %d: back off exponentially, cap the wait, and give up after the last attempt.\n", i, n)
	}
	b.WriteString("\n```go\nfor attempt := 0; attempt < max; attempt++ {\n\tif err := call(); err == nil {\n\t\treturn nil\n\t}\n\ttime.Sleep(backoff(attempt))\n}\n```\n\n")
	b.WriteString(strings.Repeat("Keep the state explicit and the errors typed. ", 20))
	return b.String()
}

// RealisticFakes make every ModeFake answer RealisticAnswer.
func RealisticFakes(f map[string]*ModeFake) {
	for name, fake := range f {
		fake.Answer = func(n int, _ providers.Request) string { return RealisticAnswer(name, n) }
	}
}
