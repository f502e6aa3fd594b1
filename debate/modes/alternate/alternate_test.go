package alternate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

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

var updateModeGolden = flag.Bool("update-modes", false, "rewrite the alternate/talk golden files in testdata/")

// alternateTurns settles e and returns the turn objects of its
// AlternateStepFinished events, oldest first.
func alternateTurns(t testing.TB, e *debate.Engine, events *debatetest.EventLog) []dialogue.AlternateTurn {
	t.Helper()
	debatetest.Settle(t, e)
	var out []dialogue.AlternateTurn
	for _, ev := range debatetest.EventsOf[dialogue.AlternateStepFinished](events) {
		out = append(out, ev.Turn)
	}
	return out
}

// lastAlternateTurn is the turn object of e's latest alternate step.
func lastAlternateTurn(t testing.TB, e *debate.Engine, events *debatetest.EventLog) dialogue.AlternateTurn {
	t.Helper()
	debatetest.Settle(t, e)
	return debatetest.LastOf[dialogue.AlternateStepFinished](t, events).Turn
}

func TestAlternateStartThenSteps(t *testing.T) {
	t.Parallel()
	e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", nil)
	ctx := context.Background()
	if err := e.Submit(ctx, "write fizzbuzz in Go"); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(ctx, "now add tests"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log.Order(), ","); got != "codex,claude,codex,claude" {
		t.Fatalf("call order %s", got)
	}
	calls := log.All()
	// Start: codex sees the instruction only; claude sees codex's answer.
	if got := debatetest.AllContent(calls[0].Req); got != "<user> [Host]: write fizzbuzz in Go\n" {
		t.Fatalf("codex's first request:\n%s", got)
	}
	if got := debatetest.AllContent(calls[1].Req); got != "<user> [Host]: write fizzbuzz in Go\n\n[Codex]: codex answer 1\n" {
		t.Fatalf("claude's first request:\n%s", got)
	}
	if !strings.Contains(calls[1].Req.System, "taking turns with Codex") || !strings.Contains(calls[1].Req.System, "Be candid.") {
		t.Fatalf("claude's system prompt lacks persona or instruction:\n%s", calls[1].Req.System)
	}
	// Step 1 (no instruction): codex sees its own answer as assistant and claude's latest.
	want := "<user> [Host]: write fizzbuzz in Go\n<assistant> codex answer 1\n<user> [Claude]: claude answer 2\n"
	if got := debatetest.AllContent(calls[2].Req); got != want {
		t.Fatalf("codex's step request:\n%s\nwant:\n%s", got, want)
	}
	// Step 2 (with instruction): claude sees codex's latest and the new instruction last.
	if got := debatetest.LastContent(calls[3].Req); got != "[Codex]: codex answer 3\n\n[Host]: now add tests" {
		t.Fatalf("claude's step request ends with %q", got)
	}
	if got := e.State("alternate.next"); got != "codex" {
		t.Fatalf("next responder %q, want codex", got)
	}
	turns := alternateTurns(t, e, events)
	if len(turns) != 3 {
		t.Fatalf("%d turns", len(turns))
	}
	steps := debatetest.EventsOf[dialogue.AlternateStepFinished](events)
	for i, want := range []string{"Codex", "Claude", "Codex"} {
		if steps[i].Step != i || steps[i].NextDisplay != want || steps[i].Error != "" {
			t.Fatalf("step event %d = step %d next %q error %q, want next %s", i, steps[i].Step, steps[i].NextDisplay, steps[i].Error, want)
		}
	}
	if turns[0].Responder != "claude" || turns[0].Next != "codex" || turns[0].Outputs["codex"] == nil || turns[0].Outputs["claude"] == nil {
		t.Fatalf("start turn %+v", turns[0])
	}
	if turns[1].Responder != "codex" || turns[1].Next != "claude" || turns[1].Outputs["claude"] != nil || *turns[1].Outputs["codex"] != "codex answer 3" {
		t.Fatalf("step 1 %+v", turns[1])
	}
	if turns[2].Step != 2 || turns[2].Instruction != "now add tests" {
		t.Fatalf("step 2 %+v", turns[2])
	}
	// The record: user, codex, claude, codex, user, claude; steps numbered as rounds.
	var kinds []string
	for _, en := range e.History().Entries() {
		kinds = append(kinds, fmt.Sprintf("%s/%s/%d", en.Kind, en.Speaker, en.Round))
	}
	if got := strings.Join(kinds, " "); got != "user/user/0 reply/codex/0 reply/claude/0 reply/codex/1 user/user/0 reply/claude/2" {
		t.Fatalf("history %s", got)
	}
}

func TestAlternateNeedsInstructionToStart(t *testing.T) {
	t.Parallel()
	e, log, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", nil)
	if err := e.Submit(context.Background(), "  "); !errors.Is(err, ErrNoInstruction) {
		t.Fatalf("got %v", err)
	}
	if e.History().Len() != 0 || len(log.All()) != 0 {
		t.Fatal("nothing should be appended or called")
	}
}

func TestAlternateResumeContinuesWithNextResponder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e1, _, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", nil)
	for _, in := range []string{"design a cache", ""} { // start, then codex's step
		if err := e1.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	info, entries := e1.Info(), e1.History().Entries()
	if info.State["alternate.next"] != "claude" {
		t.Fatalf("saved next = %q", info.State["alternate.next"])
	}

	e2, log, events2 := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "mention", nil)
	if err := e2.Restore(info, entries); err != nil {
		t.Fatal(err)
	}
	if err := e2.Submit(ctx, ""); err != nil {
		t.Fatal(err)
	}
	calls := log.All()
	if len(calls) != 1 || calls[0].Agent != "claude" {
		t.Fatalf("after resume the calls were %v, want one claude step", log.Order())
	}
	if !strings.HasSuffix(debatetest.LastContent(calls[0].Req), "[Codex]: codex answer 3") {
		t.Fatalf("claude should see codex's latest answer, got %q", debatetest.LastContent(calls[0].Req))
	}
	if got := e2.State("alternate.next"); got != "codex" {
		t.Fatalf("next after the resumed step %q", got)
	}
	last := lastAlternateTurn(t, e2, events2)
	if last.Step != 2 {
		t.Fatalf("step numbering should continue: got %d", last.Step)
	}
}

func TestAlternateFailedResponderKeepsItsTurn(t *testing.T) {
	t.Parallel()
	boom := &providers.Error{Provider: "fake", Kind: providers.KindServer, Status: 500, Message: "overloaded"}
	var claude *debatetest.ModeFake
	e, log, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", func(f map[string]*debatetest.ModeFake) { claude = f["claude"] })
	ctx := context.Background()
	if err := e.Submit(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(ctx, ""); err != nil { // codex
		t.Fatal(err)
	}
	claude.Fail = boom
	err := e.Submit(ctx, "")
	if err == nil {
		t.Fatal("want the provider's error")
	}
	if got := e.State("alternate.next"); got != "claude" {
		t.Fatalf("a failed responder keeps its turn; next = %q", got)
	}
	debatetest.Settle(t, e)
	failed := debatetest.LastOf[dialogue.AlternateStepFinished](t, events)
	if !strings.Contains(failed.Error, "overloaded") || failed.NextDisplay != "Claude" {
		t.Fatalf("failed step event: error %q, next %q", failed.Error, failed.NextDisplay)
	}
	line, _ := failed.Turn.JSONLine()
	if !bytes.HasPrefix(line, []byte(`{"status":"error","error":"`)) || !bytes.Contains(line, []byte(`"claude_output":null`)) {
		t.Fatalf("error line %s", line)
	}
	sawError := false
	for _, ev := range events.All() {
		if eo, ok := ev.(debate.ErrorOccurred); ok && eo.Agent == "claude" {
			sawError = true
		}
	}
	if !sawError {
		t.Fatal("no ErrorOccurred for claude")
	}
	claude.Fail = nil
	if err := e.Submit(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got := log.Order(); got[len(got)-1] != "claude" {
		t.Fatalf("the retry should ask claude again: %v", got)
	}
}

func TestAlternateTokenAccounting(t *testing.T) {
	t.Parallel()
	e, _, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", func(f map[string]*debatetest.ModeFake) {
		f["codex"].Output, f["claude"].Output = 100, 100
	})
	ctx := context.Background()
	for _, in := range []string{"start here", "", ""} {
		if err := e.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	turns := alternateTurns(t, e, events)
	if turns[0].Tokens != turns[0].BothTokens {
		t.Fatalf("the start turn saves nothing: %+v", turns[0])
	}
	var sum int
	for _, tr := range turns {
		sum += tr.Tokens
	}
	for _, en := range e.History().Entries() {
		sum -= en.Usage.Total()
	}
	if sum != 0 {
		t.Fatal("turn tokens must add up to the history's usage")
	}
	for _, tr := range turns[1:] {
		// The other agent's would-be call: about the same prompt plus its 100 output tokens.
		extra := tr.BothTokens - tr.Tokens
		if extra < 100 || float64(extra) < 0.7*float64(tr.Tokens) || float64(extra) > 1.5*float64(tr.Tokens) {
			t.Fatalf("step %d: used %d, both %d: counterfactual out of range", tr.Step, tr.Tokens, tr.BothTokens)
		}
	}
	// Every step event carries its own counts and the running totals.
	var running dialogue.AlternateTokens
	for i, ev := range debatetest.EventsOf[dialogue.AlternateStepFinished](events) {
		running.Used += turns[i].Tokens
		running.Both += turns[i].BothTokens
		if ev.Tokens != turns[i].Tokens || ev.BothTokens != turns[i].BothTokens || ev.Totals != running {
			t.Fatalf("step %d event: tokens %d/%d totals %+v, want %d/%d %+v", i, ev.Tokens, ev.BothTokens, ev.Totals, turns[i].Tokens, turns[i].BothTokens, running)
		}
	}
	tok := debatetest.LastOf[dialogue.AlternateStepFinished](t, events).Totals
	if r := tok.Ratio(); r >= 1 || r <= 0.3 {
		t.Fatalf("ratio %v (used %d, both %d)", r, tok.Used, tok.Both)
	}
}

func TestAlternateJSONLinesGolden(t *testing.T) {
	t.Parallel()
	e, _, events := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "alternate", func(f map[string]*debatetest.ModeFake) {
		f["claude"].Answer = func(n int, _ providers.Request) string {
			return fmt.Sprintf("claude says \"%d\"\nwith <html> & a newline", n)
		}
	})
	ctx := context.Background()
	for _, in := range []string{"refactor main.go", "", "explain the change"} {
		if err := e.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	var got bytes.Buffer
	for _, tr := range alternateTurns(t, e, events) {
		line, err := tr.JSONLine()
		if err != nil {
			t.Fatal(err)
		}
		got.Write(line)
		got.WriteByte('\n')
	}
	modeGolden(t, "alternate_turns.golden", got.Bytes())
}

func TestAlternateJSONKeysFollowTheConfiguredPair(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Alternate.Agents = []string{"gemini", "chatgpt"}
	e, _, events := debatetest.NewModeEngine(t, cfg, "alternate", nil)
	if err := e.Submit(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	turn := lastAlternateTurn(t, e, events)
	line, _ := turn.JSONLine()
	want := `{"status":"ok","turn":{"user_instruction":"hello","gemini_output":"gemini answer 1","chatgpt_output":"chatgpt answer 2","responder":"chatgpt","next_responder":"gemini"}}`
	if string(line) != want {
		t.Fatalf("got  %s\nwant %s", line, want)
	}
}

// modeGolden compares got with testdata/name (rewritten with -update-modes).
func modeGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateModeGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-modes to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestAlternateDemo(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	var agents []*debate.Agent
	for _, s := range cfg.Agents {
		agents = append(agents, &debate.Agent{AgentSpec: s, Provider: demo.NewWithPace("demo", 0)})
	}
	e, err := debate.NewEngine(cfg, agents, "alternate")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, in := range []string{"pick a name for the project", "", ""} {
		if err := e.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	var speakers []string
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindReply {
			speakers = append(speakers, en.Speaker)
			if en.Status != transcript.StatusComplete || !strings.Contains(en.Text, "offline demo") {
				t.Fatalf("demo reply %+v", en)
			}
		}
	}
	if strings.Join(speakers, ",") != "codex,claude,codex,claude" {
		t.Fatalf("speakers %v", speakers)
	}
}

func TestAlternateOverHTTPFakes(t *testing.T) {
	debatetest.ClearModeEnv(t)
	order := &debatetest.HTTPOrder{}
	codexSrv := providertest.OpenAI(t, order.Reply("codex", func(n int) string { return fmt.Sprintf("Codex draft %d.", n) }))
	claudeSrv := providertest.Anthropic(t, order.Reply("claude", func(n int) string { return fmt.Sprintf("Claude review %d.", n) }))
	cfg := debatetest.ModeConfig(known)
	e := debatetest.NewMixedEngine(t, cfg, "alternate", map[string]providers.Provider{
		"codex":  debatetest.OpenHTTPFake(t, "openai", codexSrv),
		"claude": debatetest.OpenHTTPFake(t, "anthropic", claudeSrv),
	})
	events := &debatetest.EventLog{}
	e.Subscribe(events.Add)
	ctx := context.Background()
	for _, in := range []string{"write a retry loop", "", "shorter please"} {
		if err := e.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if got := order.String(); got != "codex,claude,codex,claude" {
		t.Fatalf("order %s", got)
	}
	cx, cl := codexSrv.Requests(), claudeSrv.Requests()
	if len(cx) != 2 || len(cl) != 2 {
		t.Fatalf("requests: codex %d, claude %d", len(cx), len(cl))
	}
	if cx[0].Model != "gpt-5-codex" || !strings.Contains(cx[0].System, "You are Codex. Prefer code.") || !strings.Contains(cx[0].System, "taking turns with Claude") {
		t.Fatalf("codex request: model %q system %q", cx[0].Model, cx[0].System)
	}
	if got := debatetest.AllContent(providers.Request{Messages: cl[0].Messages}); got != "<user> [Host]: write a retry loop\n\n[Codex]: Codex draft 1.\n" {
		t.Fatalf("claude's start request:\n%s", got)
	}
	want := "<user> [Host]: write a retry loop\n<assistant> Codex draft 1.\n<user> [Claude]: Claude review 1.\n"
	if got := debatetest.AllContent(providers.Request{Messages: cx[1].Messages}); got != want {
		t.Fatalf("codex's step request:\n%s\nwant:\n%s", got, want)
	}
	want = "<user> [Host]: write a retry loop\n\n[Codex]: Codex draft 1.\n<assistant> Claude review 1.\n<user> [Codex]: Codex draft 2.\n\n[Host]: shorter please\n"
	if got := debatetest.AllContent(providers.Request{Messages: cl[1].Messages}); got != want {
		t.Fatalf("claude's step request:\n%s\nwant:\n%s", got, want)
	}
	debatetest.Settle(t, e)
	tok := debatetest.LastOf[dialogue.AlternateStepFinished](t, events).Totals
	if tok.Used != 4*60 {
		t.Fatalf("used %d tokens, want the fakes' 4×60", tok.Used)
	}
}

// BenchmarkAlternateTokens runs a start turn and 10 steps against fakes with
// fixed output sizes and reports tokens used over what both-answer steps
// would have used (goal ≤ 0.55).
func BenchmarkAlternateTokens(b *testing.B) {
	var ratio float64
	answer := strings.Repeat("a fixed-size answer of forty characters. ", 20) // 820 bytes
	for b.Loop() {
		e, _, events := debatetest.NewModeEngine(b, debatetest.ModeConfig(known), "alternate", func(f map[string]*debatetest.ModeFake) {
			for _, name := range []string{"codex", "claude"} {
				f[name].Answer = func(int, providers.Request) string { return answer }
				f[name].Output = 205
			}
		})
		ctx := context.Background()
		if err := e.Submit(ctx, "implement an LRU cache in Go with tests"); err != nil {
			b.Fatal(err)
		}
		for range 10 {
			if err := e.Submit(ctx, ""); err != nil {
				b.Fatal(err)
			}
		}
		debatetest.Settle(b, e)
		ratio = debatetest.LastOf[dialogue.AlternateStepFinished](b, events).Totals.Ratio()
	}
	b.ReportMetric(ratio, "ratio")
	if ratio > 0.55 {
		b.Fatalf("ratio %.3f above the 0.55 goal", ratio)
	}
}

// Whatever text a model sends, the --json line stays one valid JSON line
// that gives the text back.
func FuzzAlternateJSONLine(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" and \\ backslash", "line\nbreak\r\n", "\x1b[31mred\x1b[0m", "<script>&amp;", "\u2028\u2029", "\xff\xfe", "null"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, instruction, output string) {
		turn := dialogue.AlternateTurn{Instruction: instruction, Pair: [2]string{"codex", "claude"},
			Outputs: map[string]*string{"codex": &output, "claude": nil}, Responder: "codex", Next: "claude"}
		line, err := turn.JSONLine()
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("line breaks in %q", line)
		}
		var v struct {
			Status string `json:"status"`
			Turn   struct {
				Instruction string  `json:"user_instruction"`
				Codex       *string `json:"codex_output"`
				Claude      *string `json:"claude_output"`
			} `json:"turn"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("invalid JSON %q: %v", line, err)
		}
		if v.Status != "ok" || v.Turn.Codex == nil || v.Turn.Claude != nil {
			t.Fatalf("decoded %+v", v)
		}
		if utf8.ValidString(output) && *v.Turn.Codex != output || utf8.ValidString(instruction) && v.Turn.Instruction != instruction {
			t.Fatalf("text not given back: %q", line)
		}
	})
}

// A fork taken mid-alternation starts from the fork point: the parent's
// final next responder does not carry over; it is worked out again from
// the fork's own history.
func TestForkMidAlternationPicksTheRightResponder(t *testing.T) {
	t.Parallel()
	e, _ := debatetest.NewSpineEngine(known, nil)
	if err := e.SetMode("alternate"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, in := range []string{"write a parser", "", ""} { // start (chatgpt, claude), step 1 chatgpt, step 2 claude
		if err := e.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	parent := e.Info()
	if parent.State[dialogue.StateStepNext] != "chatgpt" {
		t.Fatalf("parent next = %q", parent.State[dialogue.StateStepNext])
	}
	entries := e.History().Entries()
	cut := 0 // fork right after step 1 (chatgpt answered): claude is next there
	for i, en := range entries {
		if en.Kind == transcript.KindReply && en.Round == 1 {
			cut = i + 1
		}
	}
	fork := parent
	fork.ID, fork.Parent, fork.ForkAt = debate.NewSessionID(), parent.ID, cut
	fork.State = dialogue.ForkState(parent.State)
	f, flog := debatetest.NewSpineEngine(known, nil)
	if err := f.Restore(fork, entries[:cut]); err != nil {
		t.Fatal(err)
	}
	f.Current() // the mode works out its state from the fork's history
	if next, step := f.State(dialogue.StateStepNext), f.State(dialogue.StateStepCount); next != "claude" || step != "1" {
		t.Fatalf("fork: next=%q step=%q, want claude and 1", next, step)
	}
	// The fork's next step is claude's step 2.
	if err := f.Submit(ctx, ""); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, f)
	if st := debatetest.LastOf[dialogue.AlternateStepFinished](t, flog); st.Step != 2 || st.Turn.Responder != "claude" || st.NextDisplay != "ChatGPT" {
		t.Fatalf("the fork's step: %d by %s, next %s", st.Step, st.Turn.Responder, st.NextDisplay)
	}
	// A fork before any alternate answer is not started: an empty line is
	// no step but a missing instruction.
	g, _ := debatetest.NewSpineEngine(known, nil)
	if err := g.Restore(debate.SessionInfo{ID: "x", Mode: "alternate", State: dialogue.ForkState(parent.State)}, entries[:1]); err != nil {
		t.Fatal(err)
	}
	g.Current()
	if next := g.State(dialogue.StateStepNext); next != "" {
		t.Fatalf("a fork before the start answers must not count as started (next = %q)", next)
	}
	if err := g.Submit(ctx, ""); !errors.Is(err, ErrNoInstruction) {
		t.Fatalf("an empty line on an unstarted fork: %v, want ErrNoInstruction", err)
	}
}

// Alternate's two seats are two agents.
func TestAlternateRefusesOneAgentInTwoSeats(t *testing.T) {
	t.Parallel()
	cfg := debatetest.ModeConfig(known)
	cfg.Modes.Alternate.Agents = []string{"codex", "codex"}
	e, _, _ := debatetest.NewModeEngine(t, cfg, "mention", nil)
	var ce *config.ConfigError
	if _, err := e.Mode("alternate"); !errors.As(err, &ce) || ce.Key != "modes.alternate.agents" {
		t.Fatalf("alternate: got %v", err)
	}
}

// known is the modes the engines of these tests know: mention (where a
// session starts) and this one.
var known = config.ModeList{mention.Spec{}, Spec{}}
