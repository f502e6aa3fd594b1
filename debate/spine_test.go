package debate

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// spineFake is an in-process provider for engine tests: it records requests
// and streams a scripted answer word by word after a fixed delay.
type spineFake struct {
	name       string
	delay      time.Duration // before the first word
	chunkDelay time.Duration // between words
	answer     func(providers.Request) string
	fail       error // returned by the stream after the answer's text
	panicMsg   string
	started    chan<- string   // told the fake's name when it is called, if set
	gate       <-chan struct{} // the first word waits for it to close, if set

	mu   sync.Mutex
	reqs []providers.Request
}

func (f *spineFake) Name() string { return f.name }

func (f *spineFake) Requests() []providers.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]providers.Request(nil), f.reqs...)
}

func (f *spineFake) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.panicMsg != "" {
		panic(f.panicMsg)
	}
	if f.started != nil {
		f.started <- f.name
	}
	text := "ok from " + f.name
	if f.answer != nil {
		text = f.answer(req)
	}
	return &spineStream{ctx: ctx, words: strings.SplitAfter(text, " "), delay: f.delay, chunkDelay: f.chunkDelay, fail: f.fail, gate: f.gate,
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
func (s *spineStream) Err() error    { return s.err }
func (s *spineStream) Close() error  { return nil }
func (s *spineStream) Result() providers.Result {
	return providers.Result{Usage: s.usage, FinishReason: "stop"}
}

// spineConfig is a small configuration with the seed's agent names.
func spineConfig() *Config {
	cfg := &Config{ModeList: testModes(),
		Providers: map[string]providers.Spec{"fake": {Type: "demo"}},
		Agents: []AgentSpec{
			{Name: "gemini", Display: "Gemini", Provider: "fake", Model: "gemini-3-flash-preview"},
			{Name: "chatgpt", Display: "ChatGPT", Provider: "fake", Model: "gpt-5"},
			{Name: "claude", Display: "Claude", Provider: "fake", Model: "claude-sonnet-4-6"},
		},
		Modes: ModesConfig{
			Mention:   MentionConfig{Agents: []string{"gemini", "chatgpt"}},
			Alternate: AlternateConfig{Agents: []string{"chatgpt", "claude"}},
			Talk:      TalkConfig{A: "gemini", B: "chatgpt", Moderator: "claude", Rounds: 1},
			Magi:      MagiConfig{Agents: []string{"gemini", "chatgpt", "claude"}},
			Agent:     AgentModeConfig{Agent: "claude", MaxSteps: 5},
		},
		Pricing: map[string]Price{"gpt-5": {Input: 1.25, Output: 10}},
	}
	return cfg
}

// newSpineEngine builds an engine whose agents use the given fakes (by agent
// name; agents without one get an instant fake) and records every event.
func newSpineEngine(fakes map[string]*spineFake, extra ...ModeSpec) (*Engine, *eventLog) {
	cfg := spineConfig()
	cfg.ModeList = append(cfg.ModeList, extra...)
	var agents []*Agent
	for _, spec := range cfg.Agents {
		f := fakes[spec.Name]
		if f == nil {
			f = &spineFake{name: spec.Name}
			if fakes != nil {
				fakes[spec.Name] = f
			}
		}
		agents = append(agents, &Agent{AgentSpec: spec, Provider: f})
	}
	e, err := NewEngine(cfg, agents, "mention")
	if err != nil {
		panic(err)
	}
	log := &eventLog{}
	e.Subscribe(log.add)
	return e, log
}

// eventLog records every event of an engine, for the tests to inspect.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) add(ev Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// tools lists the tool activity events.
func (l *eventLog) tools() []ToolActivity { return eventsOf[ToolActivity](l) }

// eventsOf lists the events of type T in l, in order. Delivery is
// asynchronous: settle the engine first.
func eventsOf[T Event](l *eventLog) []T {
	var out []T
	for _, ev := range l.all() {
		if x, ok := ev.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// lastOf is the latest event of type T in l, if any.
func lastOf[T Event](t testing.TB, l *eventLog) T {
	t.Helper()
	all := eventsOf[T](l)
	if len(all) == 0 {
		var zero T
		t.Fatalf("no %s event", zero.EventType())
	}
	return all[len(all)-1]
}

// settle waits until no exchange runs on e and every subscriber has
// consumed every event so far (Engine.Wait), failing the test after 10 s.
func settle(t testing.TB, e *Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// on returns a channel that receives the first event of e matching match
// (delivered by a subscriber of its own), for tests to wait on instead of
// sleeping.
func on[T Event](e *Engine, match func(T) bool) <-chan T {
	ch := make(chan T, 1)
	var once sync.Once
	e.Subscribe(func(ev Event) {
		if x, ok := ev.(T); ok && (match == nil || match(x)) {
			once.Do(func() { ch <- x })
		}
	})
	return ch
}

// control sends c to e's current mode, failing the test on an error
// (without stopping it: fakes call control from a provider's goroutine).
func control(t testing.TB, e *Engine, c Control) {
	t.Helper()
	if err := e.Control(context.Background(), c); err != nil {
		t.Errorf("Control(%+v): %v", c, err)
	}
}

// testModes is the built-in modes, for the engines these tests build (the
// program's list is package debate/modes, which imports this one).
func testModes() ModeList {
	return ModeList{MentionSpec{}, AlternateSpec{}, TalkSpec{}, MagiSpec{}, AgentModeSpec{}, CouncilSpec{}}
}

// testMode is a test's own mode, for an engine that lists it after the
// real ones (newSpineEngine's extra).
func testMode(info ModeInfo, build func(*Engine) (Mode, error)) ModeSpec {
	if info.Key == "" {
		info.Key = "zz-test-" + info.Name
	}
	return testSpec{info, build}
}

// testSpec is a test mode's descriptor: its info and constructor, no
// configuration section.
type testSpec struct {
	info  ModeInfo
	build func(*Engine) (Mode, error)
}

func (s testSpec) Info() ModeInfo              { return s.info }
func (s testSpec) New(e *Engine) (Mode, error) { return s.build(e) }
func (testSpec) Check(*ConfigCheck) error      { return nil }
func (testSpec) Budget(*Config) float64        { return 0 }
func (testSpec) Context(*Config) ContextBudget { return ContextBudget{} }
func (testSpec) Seat(*Config, []string)        {}

var errCut = &providers.Error{Provider: "fake", Kind: providers.KindNetwork, Message: "unexpected EOF"}
