package council

import (
	"context"
	"fmt"
	"testing"

	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/debate/verdict"

	"github.com/parleyhq/parley/providers/providertest"
)

// The council read back from its history says what its events said:
// answers, each member's last ranking, the aggregate, the chairman and the
// fallback; checked on a council with a retried, an invalid ranking and a
// chairman that failed.
func TestCouncilsOfReadsBackWhatTheEventsSaid(t *testing.T) {
	t.Parallel()
	fc := newCouncilFakes(t, garbledRankings(providertest.Reply{Status: 400, Text: "the chairman's model is gone"}))
	if err := fc.engine.Submit(context.Background(), "q?"); err == nil {
		t.Fatal("the chairman failed, yet Submit reported no error")
	}
	debatetest.Settle(t, fc.engine)
	dec := debatetest.LastOf[verdict.CouncilDecided](t, fc.events).CouncilResult
	got := verdict.CouncilsOf(fc.engine.History().Entries())
	if len(got) != 1 {
		t.Fatalf("%d councils read back, want 1", len(got))
	}
	c := got[0]
	if c.Question != dec.Question || len(c.Answers) != len(dec.Answers) {
		t.Fatalf("question %q with %d answers, events said %q with %d", c.Question, len(c.Answers), dec.Question, len(dec.Answers))
	}
	for i, a := range dec.Answers {
		if b := c.Answers[i]; b.Member != a.Member || b.Text != a.Text || b.Status != a.Status || b.Turn != a.Turn {
			t.Errorf("answer %d read back as %+v, events said %+v", i, b, a)
		}
	}
	for i, r := range dec.Rankings {
		b := c.Rankings[i]
		if b.Ranker != r.Ranker || b.Valid != r.Valid || fmt.Sprint(b.Order) != fmt.Sprint(r.Order) || b.Turn != r.Turn ||
			b.Attempts != r.Attempts || b.Evaluation != r.Evaluation || fmt.Sprint(b.Labels) != fmt.Sprint(r.Labels) {
			t.Errorf("ranking %d read back as %+v, events said %+v", i, b, r)
		}
	}
	if fmt.Sprint(c.Aggregate) != fmt.Sprint(dec.Aggregate) {
		t.Errorf("aggregate read back as %v, events said %v", c.Aggregate, dec.Aggregate)
	}
	if c.Chairman.Status != verdict.CouncilFailed || c.Chairman.Fallback != dec.Chairman.Fallback || c.Chairman.Fallback == "" || c.Chairman.Seat != dec.Chairman.Seat {
		t.Errorf("chairman read back as %+v, events said %+v", c.Chairman, dec.Chairman)
	}
}

// While stage 2 runs, no ranking is read back: the table waits for all.
func TestCouncilsOfWaitsForEveryRanking(t *testing.T) {
	t.Parallel()
	q := transcript.Entry{Turn: 1, Kind: transcript.KindUser, Mode: "council", Text: "q?"}
	a := transcript.Entry{Turn: 2, Kind: transcript.KindReply, Mode: "council", Round: 1, Speaker: "a", Text: "A", Status: transcript.StatusComplete}
	b := transcript.Entry{Turn: 3, Kind: transcript.KindReply, Mode: "council", Round: 1, Speaker: "b", Text: "B", Status: transcript.StatusComplete}
	ra := transcript.Entry{Turn: 4, Kind: transcript.KindReply, Mode: "council", Round: 2, Speaker: "a", Status: transcript.StatusComplete,
		Prompt: "Council ranking (Response A = b): q?", Text: "Ranking, best first: 1. B (Response A)\n\nfine"}
	rb := transcript.Entry{Turn: 5, Kind: transcript.KindReply, Mode: "council", Round: 2, Speaker: "b", Status: transcript.StatusStreaming,
		Prompt: "Council ranking (Response A = a): q?"}
	c := verdict.CouncilsOf([]transcript.Entry{q, a, b, ra, rb})[0]
	if len(c.Rankings) != 0 || len(c.Aggregate) != 0 {
		t.Fatalf("mid stage 2: rankings %+v, aggregate %+v", c.Rankings, c.Aggregate)
	}
	rb.Status, rb.Text = transcript.StatusComplete, "Ranking, best first: 1. A (Response A)"
	c = verdict.CouncilsOf([]transcript.Entry{q, a, b, ra, rb})[0]
	if len(c.Rankings) != 2 || !c.Rankings[0].Valid || c.Rankings[0].Evaluation != "fine" || fmt.Sprint(c.Rankings[1].Order) != "[a]" {
		t.Fatalf("rankings %+v", c.Rankings)
	}
	if len(c.Aggregate) != 2 || c.Chairman.Status != "" {
		t.Fatalf("aggregate %+v, chairman %+v", c.Aggregate, c.Chairman)
	}
}

// FuzzCouncilsOf reads ranking records of any text: it never panics, and
// a ranking it calls valid names every member of its legend exactly once.
func FuzzCouncilsOf(f *testing.F) {
	f.Add("Council ranking (Response A = b, Response B = c): q?", "Ranking, best first: 1. C (Response B), 2. B (Response A)\n\nok")
	f.Add("Council ranking, asked again after an unreadable answer (Response A = b): q", "Ranking, best first: 1. B (x) (Response A)")
	f.Add("Council ranking (Response A = b): q", "Ranking, best first: 1. B (Response A), 2. B (Response A)")
	f.Add("Council ranking (): ", "Ranking, best first: ")
	f.Add("Council ranking (Response A = b, Response B = b): q", "Ranking, best first: 1. B (Response A), 2. B (Response B)")
	f.Fuzz(func(t *testing.T, prompt, text string) {
		es := []transcript.Entry{
			{Turn: 1, Kind: transcript.KindUser, Mode: "council", Text: "q"},
			{Turn: 2, Kind: transcript.KindReply, Mode: "council", Round: 1, Speaker: "a", Text: "A", Status: transcript.StatusComplete},
			{Turn: 3, Kind: transcript.KindReply, Mode: "council", Round: 1, Speaker: "b", Text: "B", Status: transcript.StatusComplete},
			{Turn: 4, Kind: transcript.KindReply, Mode: "council", Round: 2, Speaker: "a", Prompt: prompt, Text: text, Status: transcript.StatusComplete},
			{Turn: 5, Kind: transcript.KindReply, Mode: "council", Round: 3, Speaker: "chairman", Text: "C", Status: transcript.StatusComplete},
		}
		for _, c := range verdict.CouncilsOf(es) {
			for _, r := range c.Rankings {
				if !r.Valid {
					continue
				}
				seen := map[string]bool{}
				for _, m := range r.Order {
					if seen[m] {
						t.Fatalf("%s ranked twice in %+v", m, r)
					}
					seen[m] = true
				}
				if len(r.Order) != len(r.Labels) {
					t.Fatalf("valid ranking %+v does not rank its legend", r)
				}
			}
		}
	})
}
