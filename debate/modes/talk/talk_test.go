package talk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/modes/mention"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/providertest"
)

// shape lists the agent turns as speaker/round/moderator flag.
func talkShape(e *debate.Engine) string {
	var parts []string
	for _, en := range e.History().Entries() {
		if !en.IsAgentTurn() {
			continue
		}
		mark := ""
		if en.IsModerator {
			mark = "*"
		}
		parts = append(parts, fmt.Sprintf("%s%s/%d", en.Speaker, mark, en.Round))
	}
	return strings.Join(parts, " ")
}

func TestTalkRunsOpenRoundsAndClose(t *testing.T) {
	t.Parallel()
	e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "talk", nil)
	if err := e.Submit(context.Background(), "Is remote work here to stay?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	// The MC's recap of each round is announced as its summary, and the
	// talk's end with its totals.
	var recaps []string
	for _, rs := range debatetest.EventsOf[dialogue.TalkRoundSummarised](events) {
		recaps = append(recaps, fmt.Sprintf("%d:%s/%d", rs.Round, rs.Summary.Speaker, rs.Summary.Round))
		if !rs.Summary.IsModerator || rs.Summary.Status != transcript.StatusComplete {
			t.Fatalf("summary entry %+v", rs.Summary)
		}
	}
	if got := strings.Join(recaps, " "); got != "1:mc/1 2:mc/2" {
		t.Fatalf("round summaries %s", got)
	}
	var usage providers.Usage
	for _, en := range e.History().Entries() {
		usage = usage.Add(en.Usage)
	}
	if tf := debatetest.LastOf[dialogue.TalkFinished](t, events); tf.Topic != "Is remote work here to stay?" || tf.Rounds != 2 || tf.Stopped || tf.Cancelled || tf.Turns != 8 || tf.Usage != usage {
		t.Fatalf("TalkFinished = %+v, history usage %+v", tf, usage)
	}
	want := "mc*/0 chatgpt/1 gemini/1 mc*/1 chatgpt/2 gemini/2 mc*/2 mc*/3"
	if got := talkShape(e); got != want {
		t.Fatalf("turns %s\nwant  %s", got, want)
	}
	if got := strings.Join(log.Order(), ","); got != "mc,chatgpt,gemini,mc,chatgpt,gemini,mc,mc" {
		t.Fatalf("call order %s", got)
	}
	for _, en := range e.History().Entries() {
		if en.IsAgentTurn() && (en.Kind == transcript.KindModerator) != en.IsModerator {
			t.Fatalf("kind and is_moderator disagree: %+v", en)
		}
	}
	calls := log.All()
	// The MC is told what to do in the last message, and is the MC in its system prompt.
	for i, want := range map[int]string{0: "open the talk", 3: "summarise round 1 of 2", 6: "summarise round 2 of 2", 7: "close the talk"} {
		if !strings.Contains(debatetest.LastContent(calls[i].Req), want) || !strings.Contains(calls[i].Req.System, "You are the MC of this talk") {
			t.Fatalf("call %d should ask the MC to %q:\n%s", i, want, debatetest.LastContent(calls[i].Req))
		}
	}
	// B sees A's answer of the same round; the MC's summary sees both.
	if !strings.Contains(debatetest.LastContent(calls[2].Req), "[ChatGPT]: chatgpt answer 2") {
		t.Fatalf("gemini's round-1 request lacks chatgpt's answer:\n%s", debatetest.AllContent(calls[2].Req))
	}
	if c := debatetest.AllContent(calls[3].Req); !strings.Contains(c, "[ChatGPT]: chatgpt answer 2") || !strings.Contains(c, "[Gemini]: gemini answer 3") {
		t.Fatalf("the summary request lacks a guest:\n%s", c)
	}
	// Guests are told whose talk it is, and not that they moderate.
	if s := calls[1].Req.System; !strings.Contains(s, "led by MC") || !strings.Contains(s, "the other is Gemini") || strings.Contains(strings.ToLower(s), "moderator") {
		t.Fatalf("guest system prompt:\n%s", s)
	}
	info := e.Info()
	if info.Topic != "Is remote work here to stay?" || info.Title != "talk · "+info.Topic {
		t.Fatalf("topic %q title %q", info.Topic, info.Title)
	}
	if info.State[StateTalkA] != "chatgpt" || info.State[StateTalkB] != "gemini" || info.State[StateTalkModerator] != "mc" {
		t.Fatalf("state %v", info.State)
	}
}

func TestTalkNeedsTopic(t *testing.T) {
	t.Parallel()
	e, log, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "talk", nil)
	if err := e.Submit(context.Background(), " "); !errors.Is(err, ErrNoTopic) {
		t.Fatalf("got %v", err)
	}
	if e.History().Len() != 0 || len(log.All()) != 0 {
		t.Fatal("nothing should happen without a topic")
	}
}

// The demo provider must play the MC's three parts from the talk's prompts,
// with config.yaml's MC persona (which names every part) in the system prompt.
func TestTalkDemoModeratorParts(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.Rounds = 1
	var agents []*debate.Agent
	for _, s := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: s, Provider: demo.NewWithPace("demo", 0)})
	}
	e, err := debate.NewEngine(cfg, agents, "talk")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "tabs or spaces"); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, en := range e.History().Entries() {
		if en.IsAgentTurn() {
			texts = append(texts, en.Text)
		}
	}
	if len(texts) != 5 {
		t.Fatalf("%d turns", len(texts))
	}
	for i, prefix := range map[int]string{0: "Welcome to the table", 3: "Round 1 of 1 summary", 4: "Thank you both"} {
		if !strings.HasPrefix(texts[i], prefix) || !strings.Contains(texts[i], "*tabs or spaces*") {
			t.Fatalf("MC turn %d: %q, want it to start with %q", i, texts[i], prefix)
		}
	}
	for _, i := range []int{1, 2} {
		if !strings.Contains(texts[i], "on *tabs or spaces*") || strings.Contains(texts[i], "summary:") {
			t.Fatalf("guest turn %d: %q", i, texts[i])
		}
	}
}

func TestTalkFailingGuestStillCloses(t *testing.T) {
	t.Parallel()
	boom := &providers.Error{Provider: "fake", Kind: providers.KindAuth, Status: 401, Message: "invalid key"}
	e, _, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "talk", func(f map[string]*debatetest.ModeFake) { f["gemini"].Fail = boom })
	err := e.Submit(context.Background(), "cats or dogs")
	if err == nil || !strings.Contains(err.Error(), "invalid key") {
		t.Fatalf("the talk should report the failure, got %v", err)
	}
	debatetest.Settle(t, e)
	if got := talkShape(e); got != "mc*/0 chatgpt/1 gemini/1 mc*/1 chatgpt/2 gemini/2 mc*/2 mc*/3" {
		t.Fatalf("turns %s", got)
	}
	entries := e.History().Entries()
	var errorRows int
	for _, en := range entries {
		if en.Speaker == "gemini" {
			if en.Status != transcript.StatusError || en.Error == "" {
				t.Fatalf("gemini's row %+v", en)
			}
			errorRows++
		}
	}
	// The MC's closing, then the talk's outcome.
	closing, outcome := entries[len(entries)-2], entries[len(entries)-1]
	if errorRows != 2 || !closing.IsModerator || closing.Status != transcript.StatusComplete {
		t.Fatalf("error rows %d, closing %+v", errorRows, closing)
	}
	if outcome.Kind != transcript.KindOutcome || outcome.Text != "ENDED after 2 of 2 rounds · 8 turns" {
		t.Fatalf("outcome %+v", outcome)
	}
	n := 0
	for _, ev := range events.All() {
		if eo, ok := ev.(debate.ErrorOccurred); ok && eo.Agent == "gemini" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d ErrorOccurred events for gemini", n)
	}
}

func TestTalkStopEndsWithTheClosing(t *testing.T) {
	t.Parallel()
	var e *debate.Engine
	e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "talk", func(f map[string]*debatetest.ModeFake) {
		// Stop while chatgpt gives its round-2 turn (the fifth call): that
		// turn finishes, then the MC closes.
		f["chatgpt"].Answer = func(n int, _ providers.Request) string {
			if n == 5 {
				debatetest.SendControl(t, e, debate.Control{Kind: config.ControlStop})
			}
			return fmt.Sprintf("chatgpt answer %d", n)
		}
	})
	debatetest.SendControl(t, e, debate.Control{Kind: config.ControlRounds, N: 5})
	if err := e.Submit(context.Background(), "the best editor"); err != nil {
		t.Fatal(err)
	}
	if got := talkShape(e); got != "mc*/0 chatgpt/1 gemini/1 mc*/1 chatgpt/2 mc*/3" {
		t.Fatalf("turns %s", got)
	}
	if last := log.All()[5]; !strings.Contains(debatetest.LastContent(last.Req), "close the talk") || !strings.Contains(debatetest.AllContent(last.Req), "[ChatGPT]: chatgpt answer 5") {
		t.Fatalf("the closing should see the unfinished round:\n%s", debatetest.AllContent(last.Req))
	}
	debatetest.Settle(t, e)
	if tf := debatetest.LastOf[dialogue.TalkFinished](t, events); !tf.Stopped || tf.Cancelled || tf.Rounds != 2 || tf.Turns != 6 {
		t.Fatalf("TalkFinished after a stop = %+v", tf)
	}
	// A later talk on the same mode runs whole again.
	debatetest.SendControl(t, e, debate.Control{Kind: config.ControlRounds, N: 1})
	if err := e.Submit(context.Background(), "second topic"); err != nil {
		t.Fatal(err)
	}
	if n := len(log.All()); n != 6+5 {
		t.Fatalf("%d calls", n)
	}
	debatetest.Settle(t, e)
	if tf := debatetest.LastOf[dialogue.TalkFinished](t, events); tf.Stopped || tf.Rounds != 1 || tf.Turns != 5 {
		t.Fatalf("TalkFinished of the later talk = %+v", tf)
	}
}

// pausedTalk builds a talk engine that pauses while chatgpt gives its first
// turn, starts a talk on topic and returns once that turn has finished: the
// talk is then held before gemini's turn. continued is set by the test
// before it lifts the pause; gemini being asked before that is a failure.
func pausedTalk(t *testing.T, cfg *config.Config, topic string) (e *debate.Engine, log *debatetest.CallLog, continued *atomic.Bool, done <-chan error) {
	t.Helper()
	continued = &atomic.Bool{}
	e, log, _ = debatetest.NewModeEngine(t, cfg, "talk", func(f map[string]*debatetest.ModeFake) {
		f["chatgpt"].Answer = func(n int, _ providers.Request) string {
			if n == 2 {
				debatetest.SendControl(t, e, debate.Control{Kind: config.ControlPause})
			}
			return fmt.Sprintf("chatgpt answer %d", n)
		}
		f["gemini"].Answer = func(n int, _ providers.Request) string {
			if !continued.Load() {
				t.Errorf("gemini was asked while the talk was paused")
			}
			return fmt.Sprintf("gemini answer %d", n)
		}
	})
	finished := debatetest.On(e, func(tf debate.TurnFinished) bool { return tf.Entry.Speaker == "chatgpt" })
	result := make(chan error, 1)
	go func() { result <- e.Submit(context.Background(), topic) }()
	<-finished
	return e, log, continued, result
}

func TestTalkPauseHoldsUntilContinue(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.Rounds = 1
	e, log, continued, done := pausedTalk(t, cfg, "pausing")
	if n := len(log.All()); n != 2 {
		t.Fatalf("%d calls while paused, want 2", n)
	}
	if err := e.Control(context.Background(), debate.Control{Kind: config.ControlRounds, N: 0}); err == nil {
		t.Fatal("rounds 0 was accepted")
	}
	continued.Store(true)
	debatetest.SendControl(t, e, debate.Control{Kind: config.ControlContinue})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(log.All()); n != 5 {
		t.Fatalf("%d calls after continue, want 5", n)
	}
}

// Ctrl+C pauses the talk and asks "continue or stop?". When the answer is
// stop and the current turn has already finished, nobody else speaks: the
// MC closes next.
func TestTalkStopWhilePausedGoesStraightToTheClosing(t *testing.T) {
	t.Parallel()
	e, _, _, done := pausedTalk(t, debatetest.ModeConfig(known), "stop while paused")
	debatetest.SendControl(t, e, debate.Control{Kind: config.ControlStop})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := talkShape(e); got != "mc*/0 chatgpt/1 mc*/2" {
		t.Fatalf("turns %s, want the MC's closing right after chatgpt", got)
	}
}

// A cancel after gemini's turn saves the three turns that ran and asks
// nobody else. The talk is paused during gemini's turn so that it waits
// for the cancel, which a subscriber sends when the turn has finished.
func TestTalkCancelSavesWhatRanAndSkipsTheRest(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var e *debate.Engine
	e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "talk", func(f map[string]*debatetest.ModeFake) {
		f["gemini"].Answer = func(n int, _ providers.Request) string {
			debatetest.SendControl(t, e, debate.Control{Kind: config.ControlPause})
			return fmt.Sprintf("gemini answer %d", n)
		}
	})
	e.Subscribe(func(ev debate.Event) {
		if tf, ok := ev.(debate.TurnFinished); ok && tf.Entry.Speaker == "gemini" {
			cancel()
		}
	})
	if err := e.Submit(ctx, "cancelled talk"); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if n := len(log.All()); n != 3 {
		t.Fatalf("%d calls after the cancel, want 3", n)
	}
	for _, en := range e.History().Entries() {
		if en.Status == transcript.StatusStreaming {
			t.Fatalf("an entry was left streaming: %+v", en)
		}
	}
	debatetest.Settle(t, e)
	if tf := debatetest.LastOf[dialogue.TalkFinished](t, events); !tf.Cancelled || tf.Turns != 3 {
		t.Fatalf("TalkFinished after a cancel = %+v", tf)
	}
}

func TestTalkPaceWaitsBetweenCalls(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.Rounds = 1
	cfg.Modes.Talk.Pace = 25 * time.Millisecond
	e, _, _ := debatetest.NewModeEngine(t, cfg, "talk", nil)
	start := time.Now()
	if err := e.Submit(context.Background(), "slowly"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 4*25*time.Millisecond {
		t.Fatalf("5 calls took %v, want at least 4 paces", d)
	}
}

// longTalk runs a talk of rounds rounds with fixed answer sizes and returns
// the prompt tokens of every call in order.
func longTalk(t testing.TB, rounds, budget int) ([]int, []debatetest.ModeCall) {
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.Rounds = rounds
	cfg.Modes.Talk.BudgetTokens = budget
	guest := strings.Repeat("A guest's point, made at some length. ", 26) // ~1000 bytes
	e, log, _ := debatetest.NewModeEngine(t, cfg, "talk", func(f map[string]*debatetest.ModeFake) {
		for _, name := range []string{"chatgpt", "gemini"} {
			f[name].Answer = func(n int, _ providers.Request) string { return fmt.Sprintf("(turn %d) %s", n-1, guest) }
		}
		f["mc"].Answer = func(n int, _ providers.Request) string {
			return fmt.Sprintf("(turn %d) %s", n-1, strings.Repeat("The MC's recap. ", 30))
		}
	})
	if err := e.Submit(context.Background(), "a long talk"); err != nil {
		t.Fatal(err)
	}
	calls := log.All()
	tokens := make([]int, len(calls))
	for i, c := range calls {
		tokens[i] = demo.EstimateRequestTokens(c.Req)
	}
	return tokens, calls
}

func TestTalkPromptStaysBounded(t *testing.T) {
	t.Parallel()
	tokens, calls := longTalk(t, 34, 6000)
	if len(tokens) < 101 {
		t.Fatalf("%d calls", len(tokens))
	}
	if tokens[100] > 2*tokens[10] {
		t.Fatalf("prompt at turn 100 is %d tokens, more than twice turn 10's %d", tokens[100], tokens[10])
	}
	for i, n := range tokens {
		if n > 6000+1000 { // the budget plus one verbatim round's slack
			t.Fatalf("turn %d prompt %d tokens", i, n)
		}
	}
	// Turn 100 is guest A of round 34: it sees the topic, the MC's opening,
	// summaries of older turns, the latest turns verbatim, and not an old
	// guest answer whole.
	c := debatetest.AllContent(calls[100].Req)
	for _, want := range []string{"a long talk", "(turn 0) The MC's recap", "(turn 97) A guest's", "(turn 98) A guest's", "(turn 99) The MC's recap", "[Summary up to turn"} {
		if !strings.Contains(c, want) {
			t.Fatalf("turn 100 lacks %q", want)
		}
	}
	// Old answers appear only as their first sentence in a digest.
	for _, notWant := range []string{"(turn 1) A guest's point, made at some length. A guest's point"} {
		if strings.Contains(c, notWant) {
			t.Fatalf("turn 100 still has %q", notWant)
		}
	}
	// A larger budget keeps more verbatim.
	roomy, _ := longTalk(t, 34, 20000)
	if roomy[100] < 2*tokens[100] {
		t.Fatalf("a 20000-token budget should show far more at turn 100: %d vs %d", roomy[100], tokens[100])
	}
}

func TestTalkOverHTTPFakes(t *testing.T) {
	debatetest.ClearModeEnv(t)
	order := &debatetest.HTTPOrder{}
	aSrv := providertest.OpenAI(t, order.Reply("chatgpt", func(n int) string { return fmt.Sprintf("ChatGPT point %d.", n) }))
	bSrv := providertest.Gemini(t, order.Reply("gemini", func(n int) string { return fmt.Sprintf("Gemini point %d.", n) }))
	mcSrv := providertest.Anthropic(t, order.Reply("mc", func(n int) string { return fmt.Sprintf("MC part %d.", n) }))
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.Rounds = 1
	e := debatetest.NewMixedEngine(t, cfg, "talk", map[string]providers.Provider{
		"chatgpt": debatetest.OpenHTTPFake(t, "openai", aSrv),
		"gemini":  debatetest.OpenHTTPFake(t, "gemini", bSrv),
		"mc":      debatetest.OpenHTTPFake(t, "anthropic", mcSrv),
	})
	if err := e.Submit(context.Background(), "open source funding"); err != nil {
		t.Fatal(err)
	}
	if got := order.String(); got != "mc,chatgpt,gemini,mc,mc" {
		t.Fatalf("order %s", got)
	}
	mc, a, b := mcSrv.Requests(), aSrv.Requests(), bSrv.Requests()
	if len(mc) != 3 || len(a) != 1 || len(b) != 1 {
		t.Fatalf("requests mc %d a %d b %d", len(mc), len(a), len(b))
	}
	// The topic is said once per request, after the cue; the MC's opening
	// is the talk's first turn.
	wantOpen := "<user> [Parley]: MC, your turn: open the talk. Welcome the audience, introduce the topic and the two guests, ChatGPT and Gemini, and give ChatGPT the floor.\n\n[Host]: open source funding\n"
	if got := debatetest.AllContent(providers.Request{Messages: mc[0].Messages}); got != wantOpen {
		t.Fatalf("the MC's opening request:\n%s\nwant:\n%s", got, wantOpen)
	}
	if first := e.History().Entries()[0]; !first.IsModerator || first.Round != 0 || first.Text != "MC part 1." {
		t.Fatalf("the talk's first entry is %+v, want the MC's opening", first)
	}
	wantB := "<user> [MC]: MC part 1.\n\n[ChatGPT]: ChatGPT point 1.\n\n[Parley]: Gemini, your turn (round 1 of 1).\n\n[Host]: open source funding\n"
	if got := debatetest.AllContent(providers.Request{Messages: b[0].Messages}); got != wantB {
		t.Fatalf("gemini received:\n%s\nwant:\n%s", got, wantB)
	}
	wantClose := "<user> [Host]: (the conversation so far follows)\n<assistant> MC part 1.\n<user> [ChatGPT]: ChatGPT point 1.\n\n[Gemini]: Gemini point 1.\n<assistant> MC part 2.\n<user> [Parley]: MC, your turn: close the talk with a balanced wrap-up of the whole discussion and a last question for the audience.\n\n[Host]: open source funding\n"
	if got := debatetest.AllContent(providers.Request{Messages: mc[2].Messages}); got != wantClose {
		t.Fatalf("the MC's closing request:\n%s\nwant:\n%s", got, wantClose)
	}
	if !strings.Contains(mc[0].System, "You are the MC of a moderated talk") || !strings.Contains(mc[0].System, "the guests are ChatGPT and Gemini") {
		t.Fatalf("MC system prompt:\n%s", mc[0].System)
	}
}

// BenchmarkTalkPromptGrowth runs a 34-round talk (over 100 turns) against
// fakes with fixed answer sizes and the default budget, and reports the
// prompt tokens at turn 10 and turn 100 (goal: turn 100 ≤ 2 × turn 10).
func BenchmarkTalkPromptGrowth(b *testing.B) {
	var tokens []int
	for b.Loop() {
		tokens, _ = longTalk(b, 34, 6000)
	}
	ratio := float64(tokens[100]) / float64(tokens[10])
	b.ReportMetric(float64(tokens[10]), "tok@10")
	b.ReportMetric(float64(tokens[100]), "tok@100")
	b.ReportMetric(ratio, "ratio")
	if ratio > 2 {
		b.Fatalf("prompt at turn 100 is %.2f× turn 10's", ratio)
	}
}

func TestTalkRefusesOneAgentInTwoSeats(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Talk.B = "chatgpt"
	e, _, _ := debatetest.NewModeEngine(t, cfg, "mention", nil)
	var ce *config.ConfigError
	if _, err := e.Mode("talk"); !errors.As(err, &ce) || ce.Key != "modes.talk" {
		t.Fatalf("talk: got %v", err)
	}
}

// known is the modes the engines of these tests know: mention (where a
// session starts) and this one.
var known = config.ModeList{mention.Spec{}, Spec{}}
