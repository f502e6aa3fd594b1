package store

import (
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
)

// The host's note at a checkpoint (a user entry of a round) is not a new
// run: the MAGI board still spans both rounds around it, and the council's
// ranking table still follows its council.
func TestExportBoardsReadThroughTheHostsNote(t *testing.T) {
	t.Parallel()
	note := func(mode string, round int) debate.Entry {
		return debate.Entry{Kind: debate.KindUser, Speaker: "user", Display: "You", Mode: mode, Round: round, Text: "The budget was cut."}
	}
	legend := func(member string) string { return "Council ranking (Response A = " + member + "): Which queue?" }
	for _, tc := range []struct {
		mode    string
		entries []debate.Entry
		want    string // after the run's last turn
	}{
		{"magi", []debate.Entry{
			{Kind: debate.KindUser, Speaker: "user", Mode: "magi", Text: "Ship?"},
			{Kind: debate.KindVote, Speaker: "melchior", Display: "MELCHIOR", Mode: "magi", Round: 1, Vote: "approve", Text: `{"vote":"approve"}`},
			note("magi", 1),
			{Kind: debate.KindVote, Speaker: "melchior", Display: "MELCHIOR", Mode: "magi", Round: 2, Vote: "reject", Text: `{"vote":"reject"}`},
			{Kind: debate.KindVerdict, Speaker: "system", Display: "MAGI", Mode: "magi", Round: 2, Vote: "REJECTED", Text: "REJECTED after round 2"},
		}, "| MELCHIOR | APPROVE | REJECT |"},
		{"council", []debate.Entry{
			{Kind: debate.KindUser, Speaker: "user", Mode: "council", Text: "Which queue?"},
			{Kind: debate.KindReply, Speaker: "gemini", Display: "Gemini", Mode: "council", Round: 1, Text: "Kafka."},
			{Kind: debate.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Mode: "council", Round: 1, Text: "NATS."},
			note("council", 1),
			{Kind: debate.KindReply, Speaker: "gemini", Display: "Gemini", Mode: "council", Round: 2, Prompt: legend("chatgpt"), Text: "Ranking, best first: 1. ChatGPT (Response A)"},
			{Kind: debate.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Mode: "council", Round: 2, Prompt: legend("gemini"), Text: "Ranking, best first: 1. Gemini (Response A)"},
			{Kind: debate.KindOutcome, Speaker: "system", Display: "Council", Mode: "council", Text: "STOPPED by the host after the rankings"},
		}, "| 1 | Gemini | 0 | 1.00 | 1 |"},
	} {
		for i := range tc.entries {
			tc.entries[i].Turn, tc.entries[i].Status = i+1, debate.StatusComplete
		}
		var b strings.Builder
		if err := WriteMarkdown(&b, debate.SessionInfo{ID: "a00000000009", Title: "t", Mode: tc.mode, Created: time.Unix(0, 0).UTC()}, tc.entries); err != nil {
			t.Fatal(err)
		}
		last := tc.entries[len(tc.entries)-1].Text
		if out := b.String(); !strings.Contains(out, tc.want) || strings.Index(out, tc.want) < strings.Index(out, last) {
			t.Errorf("%s: the export lacks %q after %q:\n%s", tc.mode, tc.want, last, out)
		}
	}
}
