package bench

import (
	"bytes"
	"strings"
	"testing"
)

// The delta counts questions and the flips count members' votes: each
// line says which, so "right→wrong 0" and "2 right→wrong" do not read as
// a contradiction.
func TestDeltaAndFlipLinesNameWhatTheyCount(t *testing.T) {
	t.Parallel()
	var rep Report
	rep.Delta.From, rep.Delta.To = "majority_r1", "verdict_r3"
	rep.Flips.RightToWrong = 2
	var buf bytes.Buffer
	WriteText(&buf, rep)
	out := buf.String()
	for _, want := range []string{"· questions right→wrong 0, wrong→right 0 ·", "member flips (votes, round to round): 2 right→wrong"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
