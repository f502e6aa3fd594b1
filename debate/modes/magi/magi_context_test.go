package magi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// What a council reads besides the question: the workspace findings of
// members with tools, and the debate held before it in the session.

// recordingProvider remembers the requests it passes on.
type recordingProvider struct {
	providers.Provider
	mu   sync.Mutex
	reqs []providers.Request
}

func (r *recordingProvider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Provider.Stream(ctx, req)
}

// A member with tools: true reads the workspace before round 1 and votes
// with its own findings in the stable first message; the others do not see them.
func TestMagiMemberWithToolsResearchesFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Payments\nStores card numbers in plain text.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := debatetest.MagiTestConfig(known)
	var agents []*debate.Agent
	recs := map[string]*recordingProvider{}
	for _, spec := range cfg.Agents {
		rec := &recordingProvider{Provider: demo.NewWithPace("demo", 0)}
		recs[spec.Name] = rec
		a := &debate.Agent{AgentSpec: spec, Provider: rec}
		if spec.Name == cfg.Modes.Magi.Agents[1] {
			a.Tools = config.ToolList{"files"}
		}
		agents = append(agents, a)
	}
	e, err := debate.NewEngine(cfg, agents, "magi")
	if err != nil {
		t.Fatal(err)
	}
	log := &debatetest.EventLog{}
	e.Subscribe(log.Add)
	if err := e.SetWorkspace(dir); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "Should we ship the code in this folder?"); err != nil {
		t.Fatal(err)
	}
	researcher := cfg.Modes.Magi.Agents[1]
	var calls int
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindToolCall {
			calls++
			if en.Speaker != researcher {
				t.Fatalf("tool call by %s", en.Speaker)
			}
		}
	}
	if calls == 0 {
		t.Fatal("the member with tools did not read the workspace")
	}
	for name, rec := range recs {
		var first string
		for _, req := range rec.reqs {
			if req.Schema != nil {
				first = req.Messages[0].Content
				break
			}
		}
		has := strings.Contains(first, "What you found in the workspace") && strings.Contains(first, "README.md")
		if has != (name == researcher) {
			t.Fatalf("%s: findings in its vote prompt = %v:\n%s", name, has, first)
		}
	}
	debatetest.Settle(t, e)
	res := debatetest.LastOf[verdict.MagiDecided](t, log)
	if len(res.Rounds) != 3 || res.Verdict == "" {
		t.Fatalf("council did not finish: %+v", res)
	}
}

// A council on a session that already holds a debate (resumed or forked)
// reads that debate first, in the stable first message of every round.
func TestMagiSeesTheDebateSoFar(t *testing.T) {
	t.Parallel()
	cfg := debatetest.MagiTestConfig(known)
	var agents []*debate.Agent
	recs := map[string]*recordingProvider{}
	for _, spec := range cfg.Agents {
		rec := &recordingProvider{Provider: demo.NewWithPace("demo", 0)}
		recs[spec.Name] = rec
		agents = append(agents, &debate.Agent{AgentSpec: spec, Provider: rec})
	}
	e, err := debate.NewEngine(cfg, agents, "magi")
	if err != nil {
		t.Fatal(err)
	}
	e.AddEntry(transcript.Entry{Kind: transcript.KindNote, Speaker: transcript.SpeakerUser, Text: "the release has two open P1 bugs"})
	if err := e.Submit(context.Background(), "Should we ship on Friday?"); err != nil {
		t.Fatal(err)
	}
	for name, rec := range recs {
		var firsts []string
		for _, req := range rec.reqs {
			firsts = append(firsts, req.Messages[0].Content)
		}
		if len(firsts) < 3 || !strings.Contains(firsts[0], "two open P1 bugs") {
			t.Fatalf("%s did not see the earlier note: %q", name, firsts)
		}
		for _, f := range firsts[1:] {
			if f != firsts[0] {
				t.Fatalf("%s: the first message changed between rounds", name)
			}
		}
	}
	// A second council also reads the first council's verdict.
	if err := e.Submit(context.Background(), "And on Monday?"); err != nil {
		t.Fatal(err)
	}
	last := recs[cfg.Modes.Magi.Agents[0]].reqs
	if !strings.Contains(last[len(last)-1].Messages[0].Content, "[MAGI verdict") {
		t.Fatal("the second council does not see the first verdict")
	}
}

func TestMagiDebateBlockBounded(t *testing.T) {
	t.Parallel()
	e, _, _ := debatetest.NewModeEngine(t, debatetest.ModeConfig(known), "mention", debatetest.RealisticFakes)
	ctx := context.Background()
	for i := range 40 {
		if err := e.Submit(ctx, fmt.Sprintf("@all question %d?", i)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := e.Mode("magi")
	if err != nil {
		t.Fatal(err)
	}
	block := m.(*Magi).debateSoFar(ctx)
	if got, budget := transcript.EstimateTokens(block), e.Config.ContextBudget("magi").Total; got > budget+budget/4 {
		t.Fatalf("MAGI's debate block is %d tokens, budget %d", got, budget)
	}
}
