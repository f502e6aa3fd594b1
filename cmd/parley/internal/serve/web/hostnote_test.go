package web

import (
	"testing"

	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/transcript"
)

// The host's note at a checkpoint (a user entry of a round) is said inside
// a MAGI council: the page's vote board keeps one council across it.
func TestVoteBoardReadsThroughTheHostsNote(t *testing.T) {
	t.Parallel()
	vote := func(turn, round int, v string) transcript.Entry {
		return transcript.Entry{Turn: turn, Kind: transcript.KindVote, Speaker: "melchior", Display: "MELCHIOR", Mode: "magi", Round: round, Vote: v}
	}
	es := []transcript.Entry{
		{Turn: 1, Kind: transcript.KindUser, Speaker: "user", Mode: "magi", Text: "Ship?"},
		vote(2, 1, "approve"),
		{Turn: 3, Kind: transcript.KindUser, Speaker: "user", Mode: "magi", Round: 1, Text: "The budget was cut."},
		vote(4, 2, "reject"),
	}
	cs := councils(modes.All(), es, nil)
	if len(cs) != 1 || cs[0].Question != "Ship?" || len(cs[0].Rows) != 1 || cs[0].Rows[0].Cells[1].Vote != "reject" {
		t.Fatalf("%d councils, the first %+v; want one over both rounds", len(cs), cs[0])
	}
}
