package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A session is listed as "MODE · question"; sessions rename changes the
// title every list shows and keeps the order by last activity.
func TestSessionsRenameAndModeTitles(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"--demo", "magi", "should we migrate to Kafka?"}, {"--demo", "ask", "@gemini which queue is simpler?"}} {
		if code, _, errOut := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	list := listSessions(t)
	if len(list) != 2 || list[0].Title != "mention · @gemini which queue is simpler?" || list[1].Title != "magi · should we migrate to Kafka?" {
		t.Fatalf("titles: %+v", list)
	}
	magi := list[1].ID
	code, out, errOut := runCLI(t, "", "sessions", "rename", magi[:5], "Kafka", "migration", "vote")
	if code != 0 || !strings.Contains(out, `renamed `+magi+` to "Kafka migration vote"`) {
		t.Fatalf("rename: exit %d: %s%s", code, out, errOut)
	}
	renamed := listSessions(t)
	if renamed[1].ID != magi || renamed[1].Title != "Kafka migration vote" || renamed[0].ID != list[0].ID {
		t.Fatalf("after rename: %+v", renamed)
	}
	code, out, _ = runCLI(t, "", "sessions", "list", "--wide")
	header := strings.SplitN(out, "\n", 2)[0]
	for _, want := range []string{"LAST ACTIVITY", "MODE", "AGENTS", "TURNS", "TOKENS", "COST", "TITLE"} {
		if code != 0 || !strings.Contains(header, want) {
			t.Errorf("list header lacks %s:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "Kafka migration vote") || !strings.Contains(out, " magi ") {
		t.Errorf("list:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "", "sessions", "rename", magi, "   "); code != 2 || !strings.Contains(errOut, "empty") {
		t.Errorf("blank title: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", "sessions", "rename", "zzzz", "x"); code == 0 || !strings.Contains(errOut, "zzzz") {
		t.Errorf("unknown session: exit %d: %s", code, errOut)
	}
}

// sessions list fits the terminal: at 80 and 100 columns no row is wider,
// the title comes first and a long one ends in "…"; --wide shows it whole.
func TestSessionsListFitsTheWidth(t *testing.T) {
	isolate(t)
	long := "@all compare Kafka, NATS, RabbitMQ and Redis Streams for a team of five that runs everything on two small virtual machines"
	for _, q := range []string{long, "@gemini which queue is simpler?"} {
		if code, _, errOut := runCLI(t, "", "--demo", "ask", q); code != 0 {
			t.Fatalf("ask: exit %d: %s", code, errOut)
		}
	}
	for _, cols := range []int{80, 100} {
		t.Setenv("COLUMNS", fmt.Sprint(cols))
		code, out, errOut := runCLI(t, "", "sessions", "list")
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "TITLE ") {
			t.Fatalf("%d columns: exit %d %s\n%s", cols, code, errOut, out)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > cols {
				t.Errorf("%d columns: a row of %d: %q", cols, w, l)
			}
		}
		short := "mention · @gemini which queue"
		if cols == 100 {
			short = "mention · @gemini which queue is simpler?  "
		}
		if !strings.HasPrefix(lines[1], short) || !strings.HasPrefix(lines[2], "mention · @all compare Kafka") || !strings.Contains(lines[2], "…") {
			t.Errorf("%d columns: titles first, the long one cut:\n%s", cols, out)
		}
	}
	_, out, _ := runCLI(t, "", "sessions", "list", "--wide")
	if !strings.Contains(out, "mention · @all compare Kafka, NATS, RabbitMQ and Redis Streams for a") || !strings.Contains(out, "chatgpt,gemini") {
		t.Errorf("--wide:\n%s", out)
	}
}
