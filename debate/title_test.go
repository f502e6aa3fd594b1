package debate_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
)

// A title names the mode and the question, cut at a word boundary.
func TestTitleForNamesModeAndCutsAtAWord(t *testing.T) {
	t.Parallel()
	q := "should we migrate the billing service from RabbitMQ to Kafka before the Q3 freeze, or wait?\nmore context"
	got := TitleFor("magi", q)
	if !strings.HasPrefix(got, "magi · should we migrate") || !strings.HasSuffix(got, "…") {
		t.Fatalf("title %q", got)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(got, "magi · "), "…")
	if n := utf8.RuneCountInString(body); n > TitleWidth || n < TitleWidth/2 {
		t.Fatalf("title body %q has %d characters", body, n)
	}
	if !strings.HasPrefix(q, body+" ") {
		t.Fatalf("title %q is not cut at a word boundary of %q", body, q)
	}
	if got := TitleFor("talk", "  Is tea   better?  "); got != "talk · Is tea better?" {
		t.Fatalf("short title %q", got)
	}
	long := strings.Repeat("x", 100) // one word: cut inside it rather than nowhere
	if got := TitleFor("mention", long); utf8.RuneCountInString(got) != utf8.RuneCountInString("mention · ")+TitleWidth+1 {
		t.Fatalf("one-word title %q", got)
	}
}

// The first question names the session once; Rename replaces it, and a
// later question does not undo the rename.
func TestRenameReplacesTheQuestionTitle(t *testing.T) {
	t.Parallel()
	e := NewTitledEngine(SessionInfo{Mode: "council", State: map[string]string{}})
	e.SetTitle("Which database for the ledger?", "")
	if got := e.Info().Title; got != "council · Which database for the ledger?" {
		t.Fatalf("title %q", got)
	}
	if err := e.Rename("   "); err == nil {
		t.Fatal("a blank title was accepted")
	}
	if err := e.Rename(" ledger  DB choice "); err != nil {
		t.Fatal(err)
	}
	e.SetTitle("a second question", "")
	if got := e.Info().Title; got != "ledger DB choice" {
		t.Fatalf("after rename and a second question: %q", got)
	}
}

// A title taken from the first question follows a mode switch; a title
// the user chose does not.
func TestTitleFollowsModeSwitch(t *testing.T) {
	t.Parallel()
	e, _, _ := NewModeEngine(t, ModeConfig(known), "mention", nil)
	e.SetTitle("kafka or nats?", "")
	if err := e.SetMode("council"); err != nil {
		t.Fatal(err)
	}
	if got := e.Info().Title; got != "council · kafka or nats?" {
		t.Fatalf("after the switch to council: %q", got)
	}
	if err := e.Rename("queue choice"); err != nil {
		t.Fatal(err)
	}
	if err := e.SetMode("magi"); err != nil {
		t.Fatal(err)
	}
	if got := e.Info().Title; got != "queue choice" {
		t.Fatalf("a chosen title changed with the mode: %q", got)
	}
}
