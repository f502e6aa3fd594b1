package debate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
)

// The engine's contract with its consumers: its list of modes, Control,
// Subscribe queues, Wait, Interrupt and the JSON form of events.

// Each mode's roles name its panels: one per agent it shows.
func TestRegistryRolesMatchTheModesPanels(t *testing.T) {
	t.Parallel()
	e, _, _ := NewModeEngine(t, ModeConfig(known), "mention", nil)
	for _, mi := range e.Modes().Infos() {
		m, err := e.Mode(mi.Name)
		if err != nil {
			t.Fatalf("%s: %v", mi.Name, err)
		}
		if m.Name() != mi.Name {
			t.Errorf("mode %q registered as %q", m.Name(), mi.Name)
		}
		if len(mi.Roles) > 0 && len(mi.Roles) != len(m.Agents()) {
			t.Errorf("%s: roles %v for %d panels", mi.Name, mi.Roles, len(m.Agents()))
		}
	}
}

// probeMode is a test's mode: it has no agent and adds the line it is
// given to the history.
type probeMode struct {
	name string
	e    Session
}

func (m *probeMode) Name() string     { return m.name }
func (m *probeMode) Agents() []*Agent { return nil }
func (m *probeMode) Submit(_ context.Context, line string) error {
	m.e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: line})
	return nil
}

// A list finds its modes by name, in its order; a name it lacks is
// unknown, with the names it has.
func TestModeListLooksUpByName(t *testing.T) {
	t.Parallel()
	build := func(e Session) (Mode, error) { return &probeMode{name: "probe", e: e}, nil }
	list := config.ModeList{testMode(config.ModeInfo{Name: "first", Key: "alt+1"}, build), testMode(config.ModeInfo{Name: "second"}, build)}
	if got := strings.Join(list.Names(), ","); got != "first,second" {
		t.Fatalf("Names() = %s", got)
	}
	if got := list.Infos(); len(got) != 2 || got[1].Name != "second" || got[1].Key != "zz-test-second" {
		t.Fatalf("Infos() = %+v", got)
	}
	if mi, ok := list.Info("first"); !ok || mi.Key != "alt+1" {
		t.Fatalf("Info(first) = %+v, %v", mi, ok)
	}
	if _, ok := list.Spec("third"); ok {
		t.Fatal("a mode the list lacks was found")
	}
	if list.Default() != "first" || (config.ModeList{}).Default() != "" {
		t.Fatalf("Default() = %q", list.Default())
	}
	if got := list.Unknown("third"); got != `unknown mode "third" (one of first, second)` {
		t.Fatalf("Unknown() = %s", got)
	}
}

// An engine knows only the modes of its configuration's list.
func TestEngineKnowsOnlyItsList(t *testing.T) {
	t.Parallel()
	probe := testMode(config.ModeInfo{Name: "zz-probe", Title: "probe", Input: "anything"}, func(e Session) (Mode, error) {
		return &probeMode{name: "probe", e: e}, nil
	})
	with, _ := NewSpineEngine(append(known, probe), nil)
	if m, err := with.Mode("zz-probe"); err != nil || m == nil {
		t.Fatalf("Mode(zz-probe) = %v, %v", m, err)
	}
	without, _ := NewSpineEngine(known, nil)
	if _, err := without.Mode("zz-probe"); err == nil || !strings.Contains(err.Error(), `unknown mode "zz-probe" (one of mention, alternate, talk, magi, agent, council)`) {
		t.Fatalf("an engine without the probe built it: %v", err)
	}
	cfg := SpineConfig(known)
	cfg.ModeList = nil
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "no mode is known") {
		t.Fatalf("a configuration without modes: %v", err)
	}
}

func TestControlRefusesWhatTheModeDoesNotTake(t *testing.T) {
	t.Parallel()
	e, _, _ := NewModeEngine(t, ModeConfig(known), "mention", nil)
	ctx := context.Background()
	var nc *ErrNoSuchControl
	err := e.Control(ctx, Control{Kind: config.ControlStop})
	if !errors.As(err, &nc) || nc.Mode != "mention" || err.Error() != "mention mode takes no controls (asked: stop)" {
		t.Fatalf("stop in mention: %v", err)
	}
	if err := e.SetMode("magi"); err != nil {
		t.Fatal(err)
	}
	err = e.Control(ctx, Control{Kind: config.ControlPause})
	if !errors.As(err, &nc) || err.Error() != "magi mode does not take pause (it takes rounds)" {
		t.Fatalf("pause in magi: %v", err)
	}
	if err := e.SetMode("agent"); err != nil {
		t.Fatal(err)
	}
	if err := e.Control(ctx, Control{Kind: config.ControlRounds, N: 2}); !errors.As(err, &nc) || !strings.Contains(err.Error(), "it takes steps") {
		t.Fatalf("rounds in agent: %v", err)
	}
	if err := e.Control(ctx, Control{Kind: "rewind"}); !errors.As(err, &nc) {
		t.Fatalf("an unknown control: %v", err)
	}
	// Numbers below 1 are refused, whatever the mode.
	if err := e.Control(ctx, Control{Kind: config.ControlSteps}); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Fatalf("steps 0: %v", err)
	}
}

func TestControlPauseAndStopNeedARunningExchange(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "talk", nil)
	for _, k := range []config.ControlKind{config.ControlPause, config.ControlContinue, config.ControlStop} {
		err := e.Control(context.Background(), Control{Kind: k})
		var nc *ErrNoSuchControl
		if err == nil || errors.As(err, &nc) || !strings.Contains(err.Error(), "talk is running") || !strings.Contains(err.Error(), string(k)) {
			t.Fatalf("%s while idle: %v", k, err)
		}
	}
	// Rounds is for the next talk and is taken while idle.
	SendControl(t, e, Control{Kind: config.ControlRounds, N: 1})
	if err := e.Submit(context.Background(), "short"); err != nil {
		t.Fatal(err)
	}
	if n := len(log.All()); n != 5 { // open, two guests, summary, close
		t.Fatalf("%d calls for a one-round talk", n)
	}
}

// Steps bounds the agent's next question; a later steps raises it again.
func TestControlStepsBoundsTheAgent(t *testing.T) {
	t.Parallel()
	_, p := OpenAIFake(t, TextReply("<list_file><path>lib</path></list_file>"))
	e, ev := ToolLoopEngine(t, known, p, "agent", ToolWorkspace(t), 5)
	SendControl(t, e, Control{Kind: config.ControlSteps, N: 2})
	var sl *StepLimitError
	if err := e.Submit(context.Background(), "loop"); !errors.As(err, &sl) || sl.Steps != 2 {
		t.Fatalf("err = %v, want a StepLimitError after 2 steps", err)
	}
	Settle(t, e)
	if ans := LastOf[AgentAnswered](t, ev); ans.Complete || ans.Steps != 2 || !strings.Contains(ans.Error, "used all 2 steps") || len(ans.ToolCalls) != 2 {
		t.Fatalf("AgentAnswered = %+v", ans)
	}
	SendControl(t, e, Control{Kind: config.ControlSteps, N: 3})
	if err := e.Submit(context.Background(), "again"); !errors.As(err, &sl) || sl.Steps != 3 {
		t.Fatalf("err = %v, want a StepLimitError after 3 steps", err)
	}
}

// nonDeltas drops the text deltas; deltaText joins them by turn.
func nonDeltas(events []Event) []Event {
	return slices.DeleteFunc(slices.Clone(events), func(ev Event) bool { _, ok := ev.(TextDelta); return ok })
}

func deltaText(events []Event) (map[int]string, int) {
	text, n := map[int]string{}, 0
	for _, ev := range events {
		if d, ok := ev.(TextDelta); ok {
			text[d.Turn] += d.Text
			n++
		}
	}
	return text, n
}

// A subscriber that stops reading stalls neither the exchange nor another
// subscriber; when it reads again it gets every event in order, its text
// deltas merged into fewer, longer ones with the same text.
func TestBlockedSubscriberStallsNobody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line string
		turns      int
	}{{"one agent", "@gemini go", 1}, {"two agents at once", "@all go", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			fakes := map[string]*Fake{
				"gemini":  {Agent: "gemini", Answer: func(providers.Request) string { return strings.Repeat("gemini ", 300) }},
				"chatgpt": {Agent: "chatgpt", Answer: func(providers.Request) string { return strings.Repeat("chatgpt ", 300) }},
			}
			e, _ := NewSpineEngine(known, fakes)
			slow, fast := &EventLog{}, &EventLog{}
			blocked, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			e.Subscribe(func(ev Event) {
				slow.Add(ev)
				once.Do(func() { close(blocked); <-release })
			})
			fastDone := make(chan struct{})
			e.Subscribe(func(ev Event) {
				fast.Add(ev)
				if _, ok := ev.(ExchangeFinished); ok {
					close(fastDone)
				}
			})
			done := make(chan error, 1)
			go func() { done <- e.Submit(context.Background(), tc.line) }()
			<-blocked
			guard := time.After(time.Minute) // only a broken engine gets here
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-guard:
				t.Fatal("the exchange stalled behind a blocked subscriber")
			}
			select {
			case <-fastDone:
			case <-guard:
				t.Fatal("a blocked subscriber stalled another one")
			}
			if n := len(slow.All()); n != 1 {
				t.Fatalf("the blocked subscriber has %d events", n)
			}
			// Wait does not return while a subscriber has events to read.
			expired, cancel := context.WithCancel(context.Background())
			cancel()
			if err := e.Wait(expired); !errors.Is(err, context.Canceled) {
				t.Fatalf("Wait with a subscriber behind: %v", err)
			}
			close(release)
			Settle(t, e)

			got, want := slow.All(), fast.All()
			if !reflect.DeepEqual(nonDeltas(got), nonDeltas(want)) {
				t.Fatalf("the slow subscriber's other events differ:\n%v\n%v", nonDeltas(got), nonDeltas(want))
			}
			gotText, gotN := deltaText(got)
			wantText, _ := deltaText(want)
			if !reflect.DeepEqual(gotText, wantText) || len(gotText) != tc.turns {
				t.Fatalf("the slow subscriber's text differs: %d turns, want %d", len(gotText), len(wantText))
			}
			for turn, text := range gotText {
				if strings.Count(text, " ") != 300 {
					t.Fatalf("turn %d: %d words, want 300", turn, strings.Count(text, " "))
				}
			}
			switch {
			case tc.line == "@gemini go" && gotN != 1:
				t.Fatalf("%d deltas reached the blocked subscriber, want its 300 merged into 1", gotN)
			case gotN >= 600:
				t.Fatalf("%d deltas reached the blocked subscriber: nothing was merged", gotN)
			}
		})
	}
}

func TestUnsubscribeStopsDelivery(t *testing.T) {
	t.Parallel()
	e, _ := NewSpineEngine(known, nil)
	var got atomic.Int32
	unsubscribe := e.Subscribe(func(Event) { got.Add(1) })
	e.Emit(ErrorOccurred{Err: "one"})
	Settle(t, e)
	unsubscribe()
	unsubscribe() // twice is harmless
	e.Emit(ErrorOccurred{Err: "two"})
	if err := e.Submit(context.Background(), "@gemini hello"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	if n := got.Load(); n != 1 {
		t.Fatalf("%d events after unsubscribing, want the 1 before", n)
	}
}

// Unsubscribing a subscriber that is behind drops its queue: Wait no
// longer waits for it, and it gets nothing more.
func TestUnsubscribeReleasesWaitForALaggingSubscriber(t *testing.T) {
	t.Parallel()
	e, _ := NewSpineEngine(known, nil)
	blocked, release := make(chan struct{}), make(chan struct{})
	var n atomic.Int32
	var once sync.Once
	unsubscribe := e.Subscribe(func(Event) {
		n.Add(1)
		once.Do(func() { close(blocked); <-release })
	})
	for i := range 5 {
		e.Emit(ErrorOccurred{Err: fmt.Sprint(i)})
	}
	<-blocked
	unsubscribe()
	Settle(t, e) // fails after 10 s if Wait still counts the queued events
	close(release)
	Settle(t, e)
	if got := n.Load(); got != 1 {
		t.Fatalf("%d events reached an unsubscribed sink, want only the one it was in", got)
	}
}

// stubbornProvider streams one word, then holds the stream until release,
// ignoring cancellation, so that an exchange stays busy after an interrupt.
type stubbornProvider struct {
	called  chan context.Context // the stream's context, once per call
	release chan struct{}
}

func (p *stubbornProvider) Name() string { return "stubborn" }

func (p *stubbornProvider) Stream(ctx context.Context, _ providers.Request) (providers.Stream, error) {
	p.called <- ctx
	return &stubbornStream{ctx: ctx, release: p.release}, nil
}

type stubbornStream struct {
	ctx     context.Context
	release chan struct{}
	sent    bool
	err     error
}

func (s *stubbornStream) Next() bool {
	if !s.sent {
		s.sent = true
		return true
	}
	<-s.release
	s.err = s.ctx.Err()
	return false
}
func (s *stubbornStream) Delta() string            { return "partial answer" }
func (s *stubbornStream) Err() error               { return s.err }
func (s *stubbornStream) Close() error             { return nil }
func (s *stubbornStream) Result() providers.Result { return providers.Result{} }

// stubbornEngine is a spine engine whose gemini is a stubbornProvider.
func stubbornEngine(t *testing.T) (*Engine, *EventLog, *stubbornProvider) {
	t.Helper()
	p := &stubbornProvider{called: make(chan context.Context, 1), release: make(chan struct{})}
	e, log := NewSpineEngine(known, nil)
	gemini, _ := e.Agent("gemini")
	gemini.Provider = p
	return e, log, p
}

// Wait returns once the exchange is over and every subscriber has read
// every event, not before.
func TestWaitCoversTheExchangeAndTheSubscribers(t *testing.T) {
	t.Parallel()
	e, log, p := stubbornEngine(t)
	Settle(t, e) // idle, nothing queued: at once
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "@gemini hello") }()
	<-p.called
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Wait(expired); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait during an exchange: %v", err)
	}
	var released atomic.Bool
	waited := make(chan error, 1)
	go func() {
		err := e.Wait(context.Background())
		all := log.All()
		switch {
		case !released.Load():
			err = errors.New("Wait returned while the exchange ran")
		case len(all) == 0:
			err = errors.New("Wait returned before the subscriber read anything")
		default:
			if _, end := all[len(all)-1].(ExchangeFinished); !end {
				err = fmt.Errorf("Wait returned before the subscriber read the end: last event %T", all[len(all)-1])
			}
		}
		waited <- err
	}()
	released.Store(true)
	close(p.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
}

// fakeClock is the engine's now, moved by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The one Ctrl+C policy: the first interrupt cancels the running exchange,
// which keeps its partial text; a second within InterruptWindow, or one
// while idle, quits.
func TestInterruptPolicy(t *testing.T) {
	t.Parallel()
	e, _, p := stubbornEngine(t)
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	e.SetClock(clock.now)
	if !e.Interrupt() {
		t.Fatal("an interrupt while idle must quit")
	}
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "@gemini hello") }()
	streamCtx := <-p.called
	if e.Interrupt() {
		t.Fatal("the first interrupt of an exchange must not quit")
	}
	<-streamCtx.Done() // the exchange was cancelled
	clock.advance(InterruptWindow + time.Millisecond)
	if e.Interrupt() {
		t.Fatal("an interrupt more than InterruptWindow after the last must not quit")
	}
	clock.advance(InterruptWindow - time.Millisecond)
	if !e.Interrupt() {
		t.Fatal("a second interrupt within InterruptWindow must quit")
	}
	close(p.release)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit after an interrupt: %v", err)
	}
	if en, _ := e.History().Get(2); en.Status != transcript.StatusCancelled || en.Text != "partial answer" {
		t.Fatalf("the interrupted reply: %s %q", en.Status, en.Text)
	}
	if !e.Interrupt() {
		t.Fatal("an interrupt once the exchange ended (idle) must quit")
	}
}

// Every event has a stable JSON form: its type first, then its fields.
func TestMarshalEventOfResultEvents(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	codex, claude := "def f(): pass", "looks <fine> & done"
	vote := func(agent string, round int, v verdict.Vote) verdict.MagiVote {
		return verdict.MagiVote{Agent: agent, Display: strings.ToUpper(agent), Provider: "fake", Model: "m", Round: round,
			Ballot: verdict.Ballot{Vote: v, Reasoning: "r", Summary: "s"}, Valid: true, Attempts: 1, Turn: round + 1,
			Usage: providers.Usage{InputTokens: 10, OutputTokens: 2}, Cost: 0.5}
	}
	summary := transcript.Entry{Turn: 4, Kind: transcript.KindModerator, Speaker: "mc", Display: "MC", Mode: "talk", Round: 1, Text: "recap",
		IsModerator: true, Status: transcript.StatusComplete, Started: at, Finished: at}
	cases := []struct {
		ev   Event
		want string
	}{
		{verdict.MagiRoundFinished{Round: 2, Of: 3, Votes: []verdict.MagiVote{vote("a", 2, verdict.VoteApprove)}, Changed: []string{"a"}},
			`{"type":"magi_round_finished","round":2,"of":3,"votes":[{"agent":"a","display":"A","provider":"fake","model":"m","round":2,"vote":"approve","reasoning":"r","summary":"s","valid":true,"attempts":1,"turn":3,"usage":{"input_tokens":10,"output_tokens":2},"cost_usd":0.5}],"changed":["a"]}`},
		{verdict.MagiDecided{MagiResult: verdict.MagiResult{Question: "q?", Rounds: [][]verdict.MagiVote{{vote("a", 1, verdict.VoteReject)}}, Verdict: verdict.VerdictRejected,
			Tally: map[string]int{"reject": 1, "approve": 0}, Flips: []verdict.Flip{},
			Agents: []verdict.MagiUsage{{Agent: "a", Display: "A", Provider: "fake", Model: "m", Calls: 1, Usage: providers.Usage{InputTokens: 10, OutputTokens: 2}, Cost: 0.5}},
			Usage:  providers.Usage{InputTokens: 10, OutputTokens: 2}, Cost: 0.5}, RoundsRun: 1},
			`{"type":"magi_decided","question":"q?","rounds":[[{"agent":"a","display":"A","provider":"fake","model":"m","round":1,"vote":"reject","reasoning":"r","summary":"s","valid":true,"attempts":1,"turn":2,"usage":{"input_tokens":10,"output_tokens":2},"cost_usd":0.5}]],"verdict":"REJECTED","tally":{"approve":0,"reject":1},"flips":[],"agents":[{"agent":"a","display":"A","provider":"fake","model":"m","calls":1,"usage":{"input_tokens":10,"output_tokens":2},"cost_usd":0.5}],"usage":{"input_tokens":10,"output_tokens":2},"cost_usd":0.5,"cancelled":false,"rounds_run":1}`},
		{dialogue.AlternateStepFinished{Step: 1, Turn: dialogue.AlternateTurn{Step: 1, Instruction: "go", Pair: [2]string{"codex", "claude"},
			Outputs: map[string]*string{"codex": &codex, "claude": &claude}, Responder: "claude", Next: "codex"},
			Tokens: 30, BothTokens: 50, Totals: dialogue.AlternateTokens{Used: 70, Both: 90}, NextDisplay: "Codex"},
			`{"type":"alternate_step_finished","step":1,"turn":{"user_instruction":"go","codex_output":"def f(): pass","claude_output":"looks \u003cfine\u003e \u0026 done","responder":"claude","next_responder":"codex"},"tokens":30,"both_tokens":50,"totals":{"used":70,"both":90},"next_display":"Codex"}`},
		{dialogue.AlternateStepFinished{Step: 2, Turn: dialogue.AlternateTurn{Step: 2, Pair: [2]string{"codex", "claude"}, Outputs: map[string]*string{}, Responder: "codex", Next: "codex"},
			Error: "overloaded", Totals: dialogue.AlternateTokens{Used: 70, Both: 90}, NextDisplay: "Codex"},
			`{"type":"alternate_step_finished","step":2,"turn":{"user_instruction":"","codex_output":null,"claude_output":null,"responder":"codex","next_responder":"codex"},"error":"overloaded","tokens":0,"both_tokens":0,"totals":{"used":70,"both":90},"next_display":"Codex"}`},
		{dialogue.TalkRoundSummarised{Round: 1, Summary: summary},
			`{"type":"talk_round_summarised","round":1,"summary":{"turn":4,"kind":"moderator","speaker":"mc","display":"MC","mode":"talk","round":1,"text":"recap","is_moderator":true,"status":"complete","usage":{"input_tokens":0,"output_tokens":0},"cost_usd":0,"started":"2026-01-02T03:04:05Z","finished":"2026-01-02T03:04:05Z"}}`},
		{dialogue.TalkFinished{Topic: "tabs", Rounds: 2, Stopped: true, Turns: 6, Usage: providers.Usage{InputTokens: 5, OutputTokens: 6, CachedTokens: 1}, Cost: 0.25},
			`{"type":"talk_finished","topic":"tabs","rounds":2,"stopped":true,"cancelled":false,"turns":6,"usage":{"input_tokens":5,"output_tokens":6,"cached_tokens":1},"cost_usd":0.25}`},
		{AgentAnswered{Agent: "coder", Answer: "It greets.", Complete: true, Steps: 2,
			ToolCalls: []transcript.ToolCall{{Tool: "read_file", Parameters: map[string]string{"path": "main.go"}, Result: "package main"}}},
			`{"type":"agent_answered","agent":"coder","answer":"It greets.","complete":true,"steps":2,"tool_calls":[{"tool":"read_file","parameters":{"path":"main.go"},"result":"package main"}],"usage":{"input_tokens":0,"output_tokens":0},"cost_usd":0}`},
		{CheckpointReached{Point: checkpoint.Point{Kind: checkpoint.KindRound, Round: 1, Of: 3, Summary: "2 approve, 1 reject, 0 abstain, 0 invalid", Split: true,
			Members: []string{"melchior", "casper"}, Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Note, checkpoint.Stop}}, Sentence: "CHECKPOINT after round 1 of 3: 2 approve, 1 reject, 0 abstain, 0 invalid"},
			`{"type":"checkpoint","kind":"round","round":1,"of":3,"summary":"2 approve, 1 reject, 0 abstain, 0 invalid","split":true,"members":["melchior","casper"],"choices":["continue","note","stop"],"sentence":"CHECKPOINT after round 1 of 3: 2 approve, 1 reject, 0 abstain, 0 invalid"}`},
		{CheckpointAnswered{Point: checkpoint.Point{Kind: checkpoint.KindTool, Choices: checkpoint.ToolChoices, Tool: &checkpoint.ToolCall{Agent: "gpt", Tool: "fetch_url", Arguments: `{"url":"x"}`}},
			Answer: checkpoint.Answer{Action: checkpoint.Deny, Text: "not now"}, Sentence: "the host denied fetch_url to gpt: not now"},
			`{"type":"checkpoint_answered","point":{"kind":"tool","summary":"","split":false,"choices":["approve","deny"],"tool":{"agent":"gpt","tool":"fetch_url","arguments":"{\"url\":\"x\"}"}},"answer":{"action":"deny","text":"not now"},"sentence":"the host denied fetch_url to gpt: not now"}`},
		{AgentAnswered{Agent: "coder", Error: "context canceled", ToolCalls: []transcript.ToolCall{}},
			`{"type":"agent_answered","agent":"coder","answer":"","complete":false,"error":"context canceled","steps":0,"tool_calls":[],"usage":{"input_tokens":0,"output_tokens":0},"cost_usd":0}`},
	}
	for _, tc := range cases {
		t.Run(tc.ev.EventType(), func(t *testing.T) {
			got, err := MarshalEvent(tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			again, _ := MarshalEvent(tc.ev)
			if string(again) != string(got) {
				t.Fatal("two encodings differ")
			}
		})
	}
}

// Every event type has its own name, comes out as one JSON object with
// that type first, and carries the same fields as the bare struct.
func TestMarshalEventOfEveryEvent(t *testing.T) {
	t.Parallel()
	events := []Event{SessionStarted{}, SessionUpdated{}, EntryAdded{}, TurnStarted{}, TextDelta{}, Retrying{}, UsageReported{},
		TurnFinished{}, verdict.VoteCast{}, verdict.VerdictReached{}, ToolActivity{}, ErrorOccurred{}, ExchangeFinished{}, verdict.MagiRoundFinished{},
		verdict.MagiDecided{}, dialogue.AlternateStepFinished{}, dialogue.TalkRoundSummarised{}, dialogue.TalkFinished{}, AgentAnswered{}}
	seen := map[string]bool{}
	for _, ev := range events {
		name := ev.EventType()
		if seen[name] || name == "" {
			t.Errorf("event type %q of %T is not unique", name, ev)
		}
		seen[name] = true
		got, err := MarshalEvent(ev)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		if !strings.HasPrefix(string(got), `{"type":"`+name+`"`) {
			t.Errorf("%T: %s does not start with its type", ev, got)
		}
		var withType, bare map[string]any
		if err := json.Unmarshal(got, &withType); err != nil {
			t.Fatalf("%T: %v in %s", ev, err, got)
		}
		body, _ := json.Marshal(ev)
		_ = json.Unmarshal(body, &bare)
		delete(withType, "type")
		if !reflect.DeepEqual(withType, bare) {
			t.Errorf("%T: fields %v, want %v", ev, withType, bare)
		}
	}
}
