package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// longSession is an alternate session of turns turns as compaction leaves
// it: the host's instruction first, answers, and a summary entry after
// every block of ten answers.
func longSession(turns int) (debate.SessionInfo, []transcript.Entry) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	info := debate.SessionInfo{ID: fmt.Sprintf("long%d", turns), Title: "a long one", Mode: "alternate", Created: t0,
		State: map[string]string{"alternate.next": "codex", "alternate.step": "1"}}
	entries := []transcript.Entry{{Turn: 1, Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: "alternate",
		Text: "write a retry loop", Status: transcript.StatusComplete, Started: t0, Finished: t0}}
	answer := strings.Repeat("The loop backs off and caps the wait; errors stay typed. ", 10)
	var block []transcript.Entry
	for len(entries) < turns {
		turn := len(entries) + 1
		at := t0.Add(time.Duration(turn) * time.Second)
		if len(block) == 10 {
			entries = append(entries, transcript.Entry{Turn: turn, Kind: transcript.KindSummary, Speaker: "system", Display: "Summary",
				Mode: "alternate", Text: debate.Digest(block, 800), Status: transcript.StatusComplete, Covers: block[len(block)-1].Turn,
				Started: at, Finished: at})
			block = nil
			continue
		}
		speaker := []string{"codex", "claude"}[turn%2]
		en := transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: speaker, Display: speaker, Provider: "openai", Model: "m",
			Mode: "alternate", Round: turn, Text: fmt.Sprintf("answer %d. %s", turn, answer), Status: transcript.StatusComplete,
			Usage: providers.Usage{InputTokens: 1000, OutputTokens: 150}, Cost: 0.001, Started: at, Finished: at.Add(time.Second)}
		entries = append(entries, en)
		block = append(block, en)
	}
	return info, entries
}

func importLong(t testing.TB, st *Store, turns int) (debate.SessionInfo, []transcript.Entry) {
	t.Helper()
	info, entries := longSession(turns)
	if _, err := st.Import(context.Background(), info, entries, false); err != nil {
		t.Fatal(err)
	}
	return info, entries
}

// A resume reads the newest summaries, the host's instruction and the
// tail, and builds the same prompt as the whole session would.
func TestLoadRecentIsEnoughForThePrompt(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	info, all := importLong(t, st, 3000)
	_, recent, err := st.LoadRecent(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) > RecentTurns+recentSummaries+1 || recent[0].Turn != 1 || recent[len(recent)-1].Turn != 3000 {
		t.Fatalf("loaded %d entries, turns %d…%d", len(recent), recent[0].Turn, recent[len(recent)-1].Turn)
	}
	for i := 1; i < len(recent); i++ {
		if recent[i].Turn <= recent[i-1].Turn {
			t.Fatalf("turns out of order at %d", i)
		}
	}
	full, part := transcript.NewHistory(all), transcript.NewHistory(recent)
	if full.Len() != part.Len() || full.Compacted() != part.Compacted() {
		t.Fatalf("len %d/%d compacted %d/%d", full.Len(), part.Len(), full.Compacted(), part.Compacted())
	}
	b := (&config.Config{ModeList: modes.All()}).ContextBudget("alternate")
	p := debate.Prompt{Mode: "alternate", Self: "codex", PinLatestUser: true}
	if want, got := debate.BuildPrompt(full, p, b), debate.BuildPrompt(part, p, b); !reflect.DeepEqual(got, want) {
		t.Fatalf("the resumed prompt differs:\n%v\n---\n%v", got, want)
	}
}

// Paging back from the tail with keyset pages yields every turn once.
func TestPageWalksBackToTheStart(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	info, all := importLong(t, st, 777)
	var got []transcript.Entry
	before := 778
	for {
		page, err := st.Page(context.Background(), info.ID, before, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got = append(page, got...)
		before = page[0].Turn
	}
	if len(got) != len(all) {
		t.Fatalf("%d entries paged, want %d", len(got), len(all))
	}
	for i := range got {
		if got[i].Turn != i+1 || got[i].Text != all[i].Text {
			t.Fatalf("turn %d: %+v", i+1, got[i])
		}
	}
	u, cost, err := st.Totals(context.Background(), info.ID)
	if err != nil || u.OutputTokens == 0 || cost == 0 {
		t.Fatalf("totals %+v %v %v", u, cost, err)
	}
}
