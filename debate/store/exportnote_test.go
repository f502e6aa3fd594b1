package store

import (
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// The host's note at a checkpoint (a user entry of a round) is not a new
// run: the MAGI board still spans both rounds around it, and the council's
// ranking table still follows its council.
func TestExportBoardsReadThroughTheHostsNote(t *testing.T) {
	t.Parallel()
	note := func(mode string, round int) transcript.Entry {
		return transcript.Entry{Kind: transcript.KindUser, Speaker: "user", Display: "You", Mode: mode, Round: round, Text: "The budget was cut."}
	}
	legend := func(member string) string { return "Council ranking (Response A = " + member + "): Which queue?" }
	for _, tc := range []struct {
		mode    string
		entries []transcript.Entry
		want    string // after the run's last turn
	}{
		{"magi", []transcript.Entry{
			{Kind: transcript.KindUser, Speaker: "user", Mode: "magi", Text: "Ship?"},
			{Kind: transcript.KindVote, Speaker: "melchior", Display: "MELCHIOR", Mode: "magi", Round: 1, Vote: "approve", Text: `{"vote":"approve"}`},
			note("magi", 1),
			{Kind: transcript.KindVote, Speaker: "melchior", Display: "MELCHIOR", Mode: "magi", Round: 2, Vote: "reject", Text: `{"vote":"reject"}`},
			{Kind: transcript.KindVerdict, Speaker: "system", Display: "MAGI", Mode: "magi", Round: 2, Vote: "REJECTED", Text: "REJECTED after round 2"},
		}, "| MELCHIOR | APPROVE | REJECT |"},
		{"council", []transcript.Entry{
			{Kind: transcript.KindUser, Speaker: "user", Mode: "council", Text: "Which queue?"},
			{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Mode: "council", Round: 1, Text: "Kafka."},
			{Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Mode: "council", Round: 1, Text: "NATS."},
			note("council", 1),
			{Kind: transcript.KindReply, Speaker: "gemini", Display: "Gemini", Mode: "council", Round: 2, Prompt: legend("chatgpt"), Text: "Ranking, best first: 1. ChatGPT (Response A)"},
			{Kind: transcript.KindReply, Speaker: "chatgpt", Display: "ChatGPT", Mode: "council", Round: 2, Prompt: legend("gemini"), Text: "Ranking, best first: 1. Gemini (Response A)"},
			{Kind: transcript.KindOutcome, Speaker: "system", Display: "Council", Mode: "council", Text: "STOPPED by the host after the rankings"},
		}, "| 1 | Gemini | 0 | 1.00 | 1 |"},
	} {
		for i := range tc.entries {
			tc.entries[i].Turn, tc.entries[i].Status = i+1, transcript.StatusComplete
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
