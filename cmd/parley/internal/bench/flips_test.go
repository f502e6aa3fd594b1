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

func TestSparklineShowsAccuracyPerRound(t *testing.T) {
	rep := Report{Rounds: 3, Questions: 4, Conditions: []Condition{{Name: "member:a", Accuracy: 0.25}, {Name: RuleMajority, Accuracy: 0.5},
		{Name: RuleWeighted, Accuracy: 1}, {Name: "verdict_r2", Accuracy: 0.75}, {Name: "verdict_r3", Accuracy: 1}}}
	if got, want := rep.Sparkline(), "▁▄█ 50.0% → 75.0% → 100.0%"; got != want {
		t.Errorf("sparkline %q, want %q", got, want)
	}
	var b strings.Builder
	WriteText(&b, rep)
	if !strings.Contains(b.String(), "accuracy per round: ▁▄█ 50.0% → 75.0% → 100.0%\n") {
		t.Errorf("the text report has no sparkline:\n%s", b.String())
	}
	if one := (Report{Rounds: 1, Conditions: []Condition{{Name: RuleMajority, Accuracy: 0.5}}}); one.Sparkline() != "" {
		t.Errorf("one round: %q", one.Sparkline())
	}
	flat := Report{Rounds: 2, Conditions: []Condition{{Name: RuleMajority, Accuracy: 1}, {Name: "verdict_r2", Accuracy: 1}}}
	if got := flat.Sparkline(); got != "██ 100.0% → 100.0%" {
		t.Errorf("all right: %q", got)
	}
}
