package debate_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// The prompt of alternate step 100 is at most twice the prompt of step 10,
// the responder still sees the host's instruction and the other agent's
// latest answer, and every turn stays in the history.
func TestAlternatePromptBoundedAtStep100(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "alternate", RealisticFakes)
	ctx := context.Background()
	if err := e.Submit(ctx, "write a retry loop in Go"); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err := e.Submit(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	calls := log.All()
	if len(calls) != 102 { // the start turn asks both, then one call a step
		t.Fatalf("%d calls", len(calls))
	}
	step10, step100 := demo.EstimateRequestTokens(calls[11].Req), demo.EstimateRequestTokens(calls[101].Req)
	t.Logf("prompt tokens: step 10 %d, step 100 %d (ratio %.2f)", step10, step100, float64(step100)/float64(step10))
	if step100 > 2*step10 {
		t.Fatalf("step 100 prompt %d tokens > 2 × step 10's %d", step100, step10)
	}
	last := AllContent(calls[101].Req)
	if !strings.Contains(last, "write a retry loop in Go") {
		t.Fatal("step 100 lost the host's instruction")
	}
	// Call 101 answers call 100's answer, which must be there verbatim.
	if want := RealisticAnswer(calls[100].Agent, 101); !strings.Contains(last, strings.TrimSpace(want)) {
		t.Fatal("step 100 does not see the other agent's latest answer whole")
	}
	if !strings.Contains(last, "[Summary up to turn") {
		t.Fatal("step 100 has no summary of the older turns")
	}
	// Nothing is lost: every answer is still in the history, summaries beside.
	replies, summaries, covered := 0, 0, 0
	for _, en := range e.History().Entries() {
		switch en.Kind {
		case transcript.KindReply:
			replies++
		case transcript.KindSummary:
			summaries++
			if en.Covers <= covered || en.Covers >= en.Turn || en.Text == "" || en.Status != transcript.StatusComplete {
				t.Fatalf("summary %+v after covering %d", en, covered)
			}
			covered = en.Covers
		}
	}
	if replies != 102 || summaries == 0 {
		t.Fatalf("%d replies, %d summaries", replies, summaries)
	}
}

// Between two compactions an agent's next prompt starts with its previous
// prompt, byte for byte (all but the last message, which the new turns
// extend), so the provider's prompt cache applies; the request says so.
func TestPromptPrefixStableBetweenCompactions(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "alternate", RealisticFakes)
	ctx := context.Background()
	if err := e.Submit(ctx, "write a retry loop in Go"); err != nil {
		t.Fatal(err)
	}
	summariesAt := []int{}
	for range 40 {
		if err := e.Submit(ctx, ""); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, en := range e.History().Entries() {
			if en.Kind == transcript.KindSummary {
				n++
			}
		}
		summariesAt = append(summariesAt, n)
	}
	calls := log.All()
	stable := 0
	for i := 4; i+2 < len(calls); i++ {
		prev, next := calls[i].Req, calls[i+2].Req // the same agent's next call
		if i >= len(summariesAt) || summariesAt[i-2] != summariesAt[i] {
			continue // a compaction came between them
		}
		if prev.CachePrefix != len(prev.Messages)-1 {
			t.Fatalf("call %d: CachePrefix %d of %d messages", i, prev.CachePrefix, len(prev.Messages))
		}
		for j := range prev.CachePrefix {
			if !reflect.DeepEqual(prev.Messages[j], next.Messages[j]) {
				t.Fatalf("call %d → %d: message %d changed without a compaction", i, i+2, j)
			}
		}
		stable++
	}
	if stable < 10 {
		t.Fatalf("only %d pairs of calls without a compaction between them", stable)
	}
}

// The configured summariser writes the summaries (a turn of kind summary);
// when it fails the extractive digest stands in and the failure is noted.
func TestSummariserAgentAndFallback(t *testing.T) {
	t.Parallel()
	for _, fail := range []bool{false, true} {
		cfg := ModeConfig(known)
		cfg.Context.Summarizer = "mc"
		e, log, _ := NewModeEngine(t, cfg, "alternate", func(f map[string]*ModeFake) {
			RealisticFakes(f)
			f["mc"].Answer = func(n int, req providers.Request) string {
				return fmt.Sprintf("MC condensed %d messages.", len(req.Messages))
			}
			if fail {
				f["mc"].Fail = errors.New("mc is down")
			}
		})
		ctx := context.Background()
		if err := e.Submit(ctx, "write a retry loop in Go"); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if err := e.Submit(ctx, ""); err != nil {
				t.Fatal(err)
			}
		}
		var sums []transcript.Entry
		for _, en := range e.History().Entries() {
			if en.Kind == transcript.KindSummary {
				sums = append(sums, en)
			}
		}
		if len(sums) == 0 || !strings.Contains(strings.Join(log.Order(), ","), "mc") {
			t.Fatalf("fail=%v: %d summaries, calls %v", fail, len(sums), log.Order())
		}
		for _, s := range sums {
			if s.Speaker != "mc" || s.Status != transcript.StatusComplete || s.Covers == 0 {
				t.Fatalf("fail=%v: summary %+v", fail, s)
			}
			if fail != strings.Contains(s.Error, "extractive digest used") || fail == strings.HasPrefix(s.Text, "MC condensed") {
				t.Fatalf("fail=%v: summary text %q error %q", fail, s.Text, s.Error)
			}
		}
	}
}

// Mention prompts stay bounded too (talk: TestTalkPromptStaysBounded; MAGI
// and agent mode below).
func TestMentionPromptBounded(t *testing.T) {
	t.Parallel()
	e, log, _ := NewModeEngine(t, ModeConfig(known), "mention", RealisticFakes)
	ctx := context.Background()
	for i := range 60 {
		if err := e.Submit(ctx, fmt.Sprintf("@all question %d?", i)); err != nil {
			t.Fatal(err)
		}
	}
	calls := log.All()
	at10, at60 := demo.EstimateRequestTokens(calls[2*10-1].Req), demo.EstimateRequestTokens(calls[len(calls)-1].Req)
	if at60 > 2*at10 {
		t.Fatalf("exchange 60 prompt %d tokens > 2 × exchange 10's %d", at60, at10)
	}
	if last := AllContent(calls[len(calls)-1].Req); !strings.Contains(last, "question 59?") {
		t.Fatal("the latest question is missing")
	}
}

func TestContextBudgetResolution(t *testing.T) {
	t.Parallel()
	cfg := ModeConfig(known)
	if b := cfg.ContextBudget("alternate"); b.Total != 10000 || b.Summary != b.Total/4 || b.Verbatim+b.Summary != b.Total {
		t.Fatalf("default %+v", b)
	}
	cfg.Context.BudgetTokens = 20000
	cfg.Context.Magi = config.ContextBudget{BudgetTokens: 4000, SummaryTokens: 500}
	if b := cfg.ContextBudget("mention"); b.Total != 20000 {
		t.Fatalf("global %+v", b)
	}
	if b := cfg.ContextBudget("magi"); b.Total != 4000 || b.Summary != 500 || b.Verbatim != 3500 || b.Block != 1750 {
		t.Fatalf("own %+v", b)
	}
	cfg.Context.Agent.BudgetTokens = 10
	if b := cfg.ContextBudget("agent"); b.Total != MinContextTokens {
		t.Fatalf("tiny %+v", b)
	}
	cfg.Context.Summarizer = "nobody"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "context.summarizer") {
		t.Fatalf("unknown summariser: %v", err)
	}
}

func TestDigestIsBoundedAndReadable(t *testing.T) {
	t.Parallel()
	var entries []transcript.Entry
	for i := range 50 {
		entries = append(entries, transcript.Entry{Speaker: "a", Display: "Ann", Text: RealisticAnswer("ann", i)})
	}
	d := Digest(entries, 2000)
	if len(d) > 2000 || !strings.HasPrefix(d, "- Ann: ann answer 0: the retry loop") {
		t.Fatalf("digest %d bytes: %.80q", len(d), d)
	}
}

// A history filled as a long session would be: answers with a summary
// entry every block, as compaction leaves them.
func longHistory(tb testing.TB, turns int) (*Engine, config.Budget) {
	tb.Helper()
	e, _, _ := NewModeEngine(tb, ModeConfig(known), "alternate", nil)
	b := e.Config.ContextBudget("alternate")
	text := RealisticAnswer("codex", 1)
	for i := 0; e.History().Len() < turns; i++ {
		speaker := []string{"codex", "claude"}[i%2]
		e.AddEntry(transcript.Entry{Kind: transcript.KindReply, Speaker: speaker, Text: text, Mode: "alternate"})
		if i%8 == 7 {
			e.Compact(context.Background(), b)
		}
	}
	return e, b
}

func BenchmarkBuildPrompt(b *testing.B) {
	for _, turns := range []int{100, 50000} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			e, budget := longHistory(b, turns)
			p := Prompt{Mode: "alternate", Self: "codex", PinLatestUser: true}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if msgs := BuildPrompt(e.History(), p, budget); len(msgs) == 0 {
					b.Fatal("empty prompt")
				}
			}
		})
	}
}

func BenchmarkAppendTurn(b *testing.B) {
	for _, turns := range []int{100, 50000} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			e, _ := longHistory(b, turns)
			codex, _ := e.Agent("codex")
			text := RealisticAnswer("codex", 2)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// A turn's life in the history: reserved streaming, then settled.
				t := e.Reserve(TurnSpec{Agent: codex, Kind: transcript.KindReply})
				en := t.Entry()
				en.Text, en.Status = text, transcript.StatusComplete
				t.Finish(en)
			}
		})
	}
}

// promptRecorder notes the estimated prompt of every call it passes on.
type promptRecorder struct {
	providers.Provider
	mu      sync.Mutex
	prompts []int
}

func (r *promptRecorder) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	r.mu.Lock()
	r.prompts = append(r.prompts, demo.EstimateRequestTokens(req))
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req)
}

// Agent mode: the first prompt of question 60 is at most twice that of
// question 10, however many tool steps came before.
func TestAgentModePromptBounded(t *testing.T) {
	t.Parallel()
	rec := &promptRecorder{Provider: demo.NewWithPace("demo", 0)}
	e, _ := ToolLoopEngine(t, known, rec, "agent", ToolWorkspace(t), 0)
	e.Config.Context.BudgetTokens = 0
	e.Config.Context.Agent.BudgetTokens = 3000
	firstCall := map[int]int{}
	for q := 1; q <= 60; q++ {
		rec.mu.Lock()
		firstCall[q] = len(rec.prompts)
		rec.mu.Unlock()
		if err := e.Submit(context.Background(), fmt.Sprintf("explain this project, take %d", q)); err != nil {
			t.Fatal(err)
		}
	}
	at10, at60 := rec.prompts[firstCall[10]], rec.prompts[firstCall[60]]
	t.Logf("first prompt of question 10: %d tokens, of question 60: %d", at10, at60)
	if at60 > 2*at10 {
		t.Fatalf("question 60 prompt %d tokens > 2 × question 10's %d", at60, at10)
	}
}

// A long session resumed without any summary (written before compaction,
// or imported) holds only its tail; compaction starts from there, so its
// prompts come back within the budget.
func TestCompactionOfAPartlyLoadedSession(t *testing.T) {
	t.Parallel()
	e, _, _ := NewModeEngine(t, ModeConfig(known), "alternate", RealisticFakes)
	var tail []transcript.Entry
	for turn := 4001; turn <= 4200; turn++ {
		tail = append(tail, transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: []string{"codex", "claude"}[turn%2], Mode: "alternate",
			Text: RealisticAnswer("x", turn), Status: transcript.StatusComplete})
	}
	if err := e.Restore(SessionInfo{ID: "partial", Mode: "alternate", State: map[string]string{"alternate.next": "codex", "alternate.step": "4199"}}, tail); err != nil {
		t.Fatal(err)
	}
	b := e.Config.ContextBudget("alternate")
	msgs := e.PromptFor(context.Background(), Prompt{Mode: "alternate", Self: "codex"})
	size := 0
	for _, m := range msgs {
		size += transcript.EstimateTokens(m.Content)
	}
	if h := e.History(); h.Compacted() < 4100 || size > b.Total {
		t.Fatalf("compacted up to %d, prompt %d tokens (budget %d)", h.Compacted(), size, b.Total)
	}
}

// A single answer larger than the whole verbatim share is never condensed
// away: the newest turn is always in the prompt (clipped if it must be).
func TestNewestTurnIsNeverCompacted(t *testing.T) {
	t.Parallel()
	e, _, _ := NewModeEngine(t, ModeConfig(known), "alternate", nil)
	huge := strings.Repeat("a very long answer. ", 5000) // ~25,000 tokens
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "go"})
	e.AddEntry(transcript.Entry{Kind: transcript.KindReply, Speaker: "codex", Text: "short one"})
	last := e.AddEntry(transcript.Entry{Kind: transcript.KindReply, Speaker: "claude", Text: huge})
	msgs := e.PromptFor(context.Background(), Prompt{Mode: "alternate", Self: "codex", PinLatestUser: true})
	if e.History().Compacted() >= last.Turn || !strings.Contains(msgs[len(msgs)-1].Content, "[Claude]: a very long answer.") {
		t.Fatalf("compacted up to %d; last message %.80q", e.History().Compacted(), msgs[len(msgs)-1].Content)
	}
}
