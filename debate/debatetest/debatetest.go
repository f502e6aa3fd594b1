// Package debatetest holds what the tests of the engine and of every mode
// share: in-process and HTTP fake providers, an event log, configurations
// and engines built over a list of modes the caller gives (a mode's own
// tests list only it; the core's list debate/modes.All).
package debatetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
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

// SpineConfig is a small configuration with the seed's agent names.
func SpineConfig(known debate.ModeList) *debate.Config {
	cfg := &debate.Config{ModeList: known,
		Providers: map[string]providers.Spec{"fake": {Type: "demo"}},
		Agents: []debate.AgentSpec{
			{Name: "gemini", Display: "Gemini", Provider: "fake", Model: "gemini-3-flash-preview"},
			{Name: "chatgpt", Display: "ChatGPT", Provider: "fake", Model: "gpt-5"},
			{Name: "claude", Display: "Claude", Provider: "fake", Model: "claude-sonnet-4-6"},
		},
		Modes: debate.ModesConfig{
			Mention:   debate.MentionConfig{Agents: []string{"gemini", "chatgpt"}},
			Alternate: debate.AlternateConfig{Agents: []string{"chatgpt", "claude"}},
			Talk:      debate.TalkConfig{A: "gemini", B: "chatgpt", Moderator: "claude", Rounds: 1},
			Magi:      debate.MagiConfig{Agents: []string{"gemini", "chatgpt", "claude"}},
			Agent:     debate.AgentModeConfig{Agent: "claude", MaxSteps: 5},
		},
		Pricing: map[string]debate.Price{"gpt-5": {Input: 1.25, Output: 10}},
	}
	return cfg
}

// NewSpineEngine builds an engine whose agents use the given fakes (by agent
// name; agents without one get an instant fake) and records every event.
func NewSpineEngine(known debate.ModeList, fakes map[string]*Fake) (*debate.Engine, *EventLog) {
	cfg := SpineConfig(known)
	var agents []*debate.Agent
	for _, spec := range cfg.Agents {
		f := fakes[spec.Name]
		if f == nil {
			f = &Fake{Agent: spec.Name}
			if fakes != nil {
				fakes[spec.Name] = f
			}
		}
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: f})
	}
	e, err := debate.NewEngine(cfg, agents, "mention")
	if err != nil {
		panic(err)
	}
	log := &EventLog{}
	e.Subscribe(log.Add)
	return e, log
}

// EventLog records every event of an engine, for the tests to inspect.
type EventLog struct {
	mu     sync.Mutex
	events []debate.Event
}

func (l *EventLog) Add(ev debate.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *EventLog) All() []debate.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]debate.Event(nil), l.events...)
}

// Tools lists the tool activity events.
func (l *EventLog) Tools() []debate.ToolActivity { return EventsOf[debate.ToolActivity](l) }

// EventsOf lists the events of type T in l, in order. Delivery is
// asynchronous: settle the engine first.
func EventsOf[T debate.Event](l *EventLog) []T {
	var out []T
	for _, ev := range l.All() {
		if x, ok := ev.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// LastOf is the latest event of type T in l, if any.
func LastOf[T debate.Event](t testing.TB, l *EventLog) T {
	t.Helper()
	all := EventsOf[T](l)
	if len(all) == 0 {
		var zero T
		t.Fatalf("no %s event", zero.EventType())
	}
	return all[len(all)-1]
}

// Settle waits until no exchange runs on e and every subscriber has
// consumed every event so far (Engine.Wait), failing the test after a minute.
func Settle(t testing.TB, e *debate.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := e.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

// On returns a channel that receives the first event of e matching match
// (delivered by a subscriber of its own), for tests to wait on instead of
// sleeping.
func On[T debate.Event](e *debate.Engine, match func(T) bool) <-chan T {
	ch := make(chan T, 1)
	var once sync.Once
	e.Subscribe(func(ev debate.Event) {
		if x, ok := ev.(T); ok && (match == nil || match(x)) {
			once.Do(func() { ch <- x })
		}
	})
	return ch
}

// SendControl sends c to e's current mode, failing the test on an error
// (without stopping it: fakes call control from a provider's goroutine).
func SendControl(t testing.TB, e *debate.Engine, c debate.Control) {
	t.Helper()
	if err := e.Control(context.Background(), c); err != nil {
		t.Errorf("Control(%+v): %v", c, err)
	}
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

// ModeConfig has the default pairings of alternate and talk, for the
// modes known.
func ModeConfig(known debate.ModeList) *debate.Config {
	return &debate.Config{ModeList: known,
		Providers: map[string]providers.Spec{"fake": {Type: "demo"}},
		Agents: []debate.AgentSpec{
			{Name: "gemini", Display: "Gemini", Provider: "fake", Model: "gemini-3-flash-preview", Persona: "You are Gemini. Be clear."},
			{Name: "chatgpt", Display: "ChatGPT", Provider: "fake", Model: "gpt-5", Persona: "You are ChatGPT. Be precise."},
			{Name: "claude", Display: "Claude", Provider: "fake", Model: "claude-sonnet-4-6", Persona: "You are Claude. Be candid."},
			{Name: "codex", Display: "Codex", Provider: "fake", Model: "gpt-5-codex", Persona: "You are Codex. Prefer code."},
			{Name: "mc", Display: "MC", Provider: "fake", Model: "claude-sonnet-4-6", Persona: mcPersona},
		},
		Modes: debate.ModesConfig{
			Mention:   debate.MentionConfig{Agents: []string{"gemini", "chatgpt"}},
			Alternate: debate.AlternateConfig{Agents: []string{"codex", "claude"}},
			Talk:      debate.TalkConfig{A: "chatgpt", B: "gemini", Moderator: "mc", Rounds: 2},
			Magi:      debate.MagiConfig{Agents: []string{"gemini", "chatgpt", "claude"}},
			Agent:     debate.AgentModeConfig{Agent: "claude"},
		},
	}
}

// mcPersona is config.yaml's MC persona: it names every phase, which the
// talk's instructions must outweigh for the demo provider.
const mcPersona = "You are the MC of a moderated talk. You open by introducing the topic and the two guests, summarise each round fairly in a few sentences (points made, agreements, open questions), and close with a balanced wrap-up. You never take sides."

// NewModeEngine builds an engine in mode whose agents use fakes sharing one
// call log; adjust may change the fakes (by agent name) before use.
func NewModeEngine(t testing.TB, cfg *debate.Config, mode string, adjust func(map[string]*ModeFake)) (*debate.Engine, *CallLog, *EventLog) {
	t.Helper()
	log := &CallLog{}
	fakes := map[string]*ModeFake{}
	for _, s := range cfg.Agents {
		fakes[s.Name] = &ModeFake{Agent: s.Name, Log: log}
	}
	if adjust != nil {
		adjust(fakes)
	}
	var agents []*debate.Agent
	for _, s := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: s, Provider: fakes[s.Name]})
	}
	e, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	events := &EventLog{}
	e.Subscribe(events.Add)
	return e, log, events
}

// LastContent is the text of the request's last message.
func LastContent(req providers.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// AllContent is every message of the request, one "<role> text" line each.
func AllContent(req providers.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "<%s> %s\n", m.Role, m.Content)
	}
	return b.String()
}

// MagiMembers are the council in order, each on its own vendor's fake.
var MagiMembers = []struct{ Name, Display, Vendor, Model, Persona string }{
	{"melchior", "MELCHIOR", "openai", "gpt-5", "You are the scientist: logic and data."},
	{"balthasar", "BALTHASAR", "anthropic", "claude-sonnet-4-6", "You are the guardian: ethics and safety."},
	{"casper", "CASPER", "gemini", "gemini-3-flash-preview", "You are the maverick: intuition and risk."},
}

// MagiTestConfig seats MagiMembers on MAGI, one vendor each, with prices.
func MagiTestConfig(known debate.ModeList) *debate.Config {
	cfg := &debate.Config{ModeList: known, DefaultMode: "magi", Providers: map[string]providers.Spec{},
		Pricing: map[string]debate.Price{"gpt-5": {Input: 1, Output: 10}, "claude-sonnet-4-6": {Input: 3, Output: 15}, "gemini-3-flash-preview": {Input: 0.5, Output: 3}}}
	for _, m := range MagiMembers {
		cfg.Agents = append(cfg.Agents, debate.AgentSpec{Name: m.Name, Display: m.Display, Provider: m.Vendor, Model: m.Model, Persona: m.Persona})
		cfg.Modes.Magi.Agents = append(cfg.Modes.Magi.Agents, m.Name)
	}
	return cfg
}

// MagiRoundOf tells which round a request belongs to from its last message.
func MagiRoundOf(msgs []providers.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	last := msgs[len(msgs)-1].Content
	switch {
	case strings.Contains(last, "Round 3 of 3"):
		return 3
	case strings.Contains(last, "Round 2 of 3"):
		return 2
	}
	return 1
}

// MagiVoteJSON is a well-formed answer whose reasoning marks who said it when.
func MagiVoteJSON(agent string, round int, vote debate.Vote) string {
	return fmt.Sprintf(`{"vote":%q,"reasoning":"MARK-%s-R%d","summary":"%s says %s"}`, vote, agent, round, agent, vote)
}

// FakeCouncil starts one fake per vendor, each answering with handler(agent,
// round, request), and an engine whose members use them through the real adapters.
type FakeCouncil struct {
	Engine  *debate.Engine
	Servers map[string]*providertest.Server // by agent name
	Events  *EventLog
}

// NewFakeCouncil builds the MAGI council of MagiTestConfig(known) over the
// vendors' fakes; answer writes each reply.
func NewFakeCouncil(t *testing.T, known debate.ModeList, answer func(agent string, round int, req providertest.Request) providertest.Reply, adjust ...func(*debate.Config)) *FakeCouncil {
	t.Helper()
	fc := &FakeCouncil{Servers: map[string]*providertest.Server{}}
	cfg := MagiTestConfig(known)
	for _, f := range adjust {
		f(cfg)
	}
	getenv := func(k string) string {
		if k == "TEST_KEY" {
			return "test-key"
		}
		return ""
	}
	fakes := map[string]func(testing.TB, func(providertest.Request) providertest.Reply) *providertest.Server{
		"openai": providertest.OpenAI, "anthropic": providertest.Anthropic, "gemini": providertest.Gemini,
	}
	noRetry := 0
	var agents []*debate.Agent
	for _, m := range MagiMembers {
		srv := fakes[m.Vendor](t, func(r providertest.Request) providertest.Reply { return answer(m.Name, MagiRoundOf(r.Messages), r) })
		fc.Servers[m.Name] = srv
		spec := providers.Spec{Type: m.Vendor, BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &noRetry}
		cfg.Providers[m.Vendor] = spec
		p, err := open.Open(m.Vendor, spec, getenv)
		if err != nil {
			t.Fatal(err)
		}
		spec2, _ := cfg.Agent(m.Name)
		agents = append(agents, &debate.Agent{AgentSpec: spec2, Provider: p})
	}
	e, err := debate.NewEngine(cfg, agents, "magi")
	if err != nil {
		t.Fatal(err)
	}
	fc.Engine, fc.Events = e, &EventLog{}
	e.Subscribe(fc.Events.Add)
	return fc
}

// Decided is the latest council's MagiDecided event.
func (fc *FakeCouncil) Decided(t *testing.T) debate.MagiDecided {
	t.Helper()
	Settle(t, fc.Engine)
	return LastOf[debate.MagiDecided](t, fc.Events)
}

// SingleRound makes the next council stop after round 1 (the command's -1).
func (fc *FakeCouncil) SingleRound(t *testing.T) {
	t.Helper()
	SendControl(t, fc.Engine, debate.Control{Kind: debate.ControlRounds, N: 1})
}

// MagiReply is a reply of text with a fixed usage (some of it cached).
func MagiReply(text string) providertest.Reply {
	return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 100, OutputTokens: 20, CachedTokens: 40}}
}

// Requests returns what the agent's fake received, in order.
func (fc *FakeCouncil) Requests(agent string) []providertest.Request {
	return fc.Servers[agent].Requests()
}

// MagiAllText joins every message's text.
func MagiAllText(msgs []providers.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role) + ": " + m.Content + "\n")
	}
	return b.String()
}

// ClearModeEnv keeps the machine's keys and endpoints out of adapter tests.
func ClearModeEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
		"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI"} {
		t.Setenv(v, "")
	}
}

// OpenHTTPFake opens the real adapter of typ against a fake server.
func OpenHTTPFake(t *testing.T, typ string, srv *providertest.Server) providers.Provider {
	t.Helper()
	zero := 0
	p, err := open.Open(typ, providers.Spec{Type: typ, BaseURL: srv.URL, APIKeyEnv: "PARLEY_TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &zero},
		func(k string) string {
			if k == "PARLEY_TEST_KEY" {
				return "test-key"
			}
			return ""
		})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// HTTPOrder records which fake server answered, in arrival order.
type HTTPOrder struct {
	mu  sync.Mutex
	who []string
}

func (o *HTTPOrder) Reply(name string, text func(n int) string) func(providertest.Request) providertest.Reply {
	n := 0
	return func(providertest.Request) providertest.Reply {
		o.mu.Lock()
		o.who = append(o.who, name)
		o.mu.Unlock()
		n++
		return providertest.Reply{Text: text(n), Usage: providers.Usage{InputTokens: 50, OutputTokens: 10}}
	}
}

func (o *HTTPOrder) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.who, ",")
}

// ToolWorkspace makes a small project folder beside a secret file that
// must never be read, and returns the folder.
func ToolWorkspace(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	root := filepath.Join(parent, "project")
	files := map[string]string{
		"README.md":      "# Hello\nA tiny program that greets.\n",
		"main.go":        "package main\n\nfunc main() { println(\"hello\") }\n",
		"lib/greet.go":   "package lib\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n",
		"../secret.txt":  "TOP SECRET\n",
		".git/config":    "[core]\n",
		"node_modules/x": "x\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// ToolLoopEngine builds an engine in mode whose agent "coder" talks to p,
// with the workspace set to root.
func ToolLoopEngine(t *testing.T, known debate.ModeList, p providers.Provider, mode, root string, maxSteps int) (*debate.Engine, *EventLog) {
	t.Helper()
	cfg := &debate.Config{ModeList: known,
		Providers: map[string]providers.Spec{"fake": {Type: "openai"}},
		Agents: []debate.AgentSpec{
			{Name: "coder", Display: "Coder", Provider: "fake", Model: "gpt-4o", Tools: true},
			{Name: "plain", Display: "Plain", Provider: "fake", Model: "gpt-4o"},
		},
		Modes: debate.ModesConfig{
			Mention: debate.MentionConfig{Agents: []string{"coder"}},
			Agent:   debate.AgentModeConfig{Agent: "coder", MaxSteps: maxSteps},
		},
		Context: debate.ContextConfig{BudgetTokens: 24000},
	}
	agents := []*debate.Agent{{AgentSpec: cfg.Agents[0], Provider: p}, {AgentSpec: cfg.Agents[1], Provider: p}}
	e, err := debate.NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetWorkspace(root); err != nil {
		t.Fatal(err)
	}
	ev := &EventLog{}
	e.Subscribe(ev.Add)
	return e, ev
}

// OpenAIFake is an OpenAI fake answering replies in turn, and its provider.
func OpenAIFake(t *testing.T, replies ...providertest.Reply) (*providertest.Server, providers.Provider) {
	t.Helper()
	return OpenAIFakeFunc(t, providertest.Sequence(replies...))
}

// OpenAIFakeFunc is OpenAIFake with a handler choosing each reply.
func OpenAIFakeFunc(t *testing.T, handler func(providertest.Request) providertest.Reply) (*providertest.Server, providers.Provider) {
	t.Helper()
	srv := providertest.OpenAI(t, handler)
	zero := 0
	p, err := open.Open("fake", providers.Spec{Type: "openai", BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &zero},
		func(k string) string {
			if k == "TEST_KEY" {
				return "test-key"
			}
			return ""
		})
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

// TextReply is a reply of text.
func TextReply(text string) providertest.Reply {
	return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}
}

// MustContain fails the test when got lacks one of wants.
func MustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
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
