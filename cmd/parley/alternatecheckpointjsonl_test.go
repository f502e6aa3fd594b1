package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `parley alternate --jsonl --checkpoint each_round --steps 3`: the points
// and the host's answers are events; a drop is refused in the core's words
// and asked again; a swap seats another agent in the seat for the step
// that follows; stop ends the steps left, and the outcome is in the stream.
func TestAlternateCheckpointJSONLDropRefusedSwapThenStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "alternate"
	out, errOut, code := f.run(t, "drop codex\nswap codex chatgpt\nstop\n", "--jsonl", "--checkpoint", "each_round", "--steps", "3", "write a Go LRU cache")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "codex cannot be dropped: two agents take turns, both seats are needed; try again") {
		t.Errorf("stderr lacks the refusal of the drop:\n%s", errOut)
	}
	var kinds, answers, agents []string
	outcome := ""
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type   string `json:"type"`
			Kind   string `json:"kind"`
			Answer struct {
				Action string `json:"action"`
			} `json:"answer"`
			Choices []string `json:"choices"`
			Entry   struct {
				Kind    string `json:"kind"`
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
			} `json:"entry"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		switch ev.Type {
		case "checkpoint":
			kinds = append(kinds, ev.Kind)
			if strings.Contains(strings.Join(ev.Choices, ","), "drop") {
				t.Errorf("a point offers drop: %s", l)
			}
		case "checkpoint_answered":
			answers = append(answers, ev.Answer.Action)
		case "turn_finished":
			agents = append(agents, ev.Entry.Speaker)
		}
		if strings.Contains(l, "STOPPED by the host after step 1 of 3 · 2 steps not run") {
			outcome = l
		}
	}
	if strings.Join(kinds, ",") != "step,step" || strings.Join(answers, ",") != "swap,stop" {
		t.Errorf("points %v answered %v, want two step points answered swap then stop", kinds, answers)
	}
	if got := strings.Join(agents, ","); got != "codex,claude,chatgpt" {
		t.Errorf("turns by %s, want codex and claude's start, then chatgpt in codex's seat for step 1", got)
	}
	if outcome == "" {
		t.Errorf("the stream lacks the outcome:\n%s", out)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (nothing after the stop)", n)
	}
}
