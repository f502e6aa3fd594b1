package debate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
)

// A point whose state fits is saved while the host is asked and let go
// once answered; one whose state is over the bound is not saved (the run
// keeps a note saying so, and the host is still asked in this process);
// a saved state over the bound is not read back.
func TestCheckpointStateIsBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		resume  int // bytes of the mode's state
		durable bool
	}{
		{"fits", 500 << 10, true},
		{"over the bound", 513 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, _ := NewSpineEngine(known, nil)
			var savedWhileAsked bool
			var resumeSaved int
			e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
				p, ok := e.Pending()
				savedWhileAsked, resumeSaved = ok, len(p.Resume)
				return checkpoint.Answer{Action: checkpoint.Continue}, nil
			}), checkpoint.EachRound)
			p := checkpoint.Point{Kind: checkpoint.KindRound, Round: 1, Of: 3, Members: []string{"a"},
				Choices: checkpoint.RoundChoices, Resume: strings.Repeat("x", tc.resume)}
			a, asked, err := e.Checkpoint(context.Background(), p)
			if err != nil || !asked || a.Action != checkpoint.Continue {
				t.Fatalf("asked %v, answer %+v, err %v", asked, a, err)
			}
			if savedWhileAsked != tc.durable || (tc.durable && resumeSaved != tc.resume) {
				t.Errorf("saved while asked: %v (resume %d bytes), want %v", savedWhileAsked, resumeSaved, tc.durable)
			}
			if _, ok := e.Pending(); ok {
				t.Error("the point is still saved after its answer")
			}
			var noted bool
			for _, en := range e.History().Entries() {
				noted = noted || (en.Kind == transcript.KindNote && strings.Contains(en.Text, "over the 512 KiB a session saves"))
			}
			if noted == tc.durable {
				t.Errorf("note that the state was not saved: %v, want %v", noted, !tc.durable)
			}
		})
	}

	// A saved state past the bound (written by hand) is not read back.
	e, _ := NewSpineEngine(known, nil)
	big, _ := json.Marshal(PendingCheckpoint{Point: checkpoint.Point{Kind: checkpoint.KindRound, Round: 1, Choices: checkpoint.RoundChoices},
		Resume: strings.Repeat("x", 513<<10)})
	e.SetState("checkpoint", string(big))
	if p, ok := e.Pending(); ok {
		t.Errorf("an oversized saved state was read back: %s", p.Where())
	}
}
