package main

import (
	"strings"
	"testing"
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
	code, out, _ = runCLI(t, "", "sessions", "list")
	header := strings.SplitN(out, "\n", 2)[0]
	for _, want := range []string{"LAST ACTIVITY", "MODE", "TURNS", "TOKENS", "COST", "TITLE"} {
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
