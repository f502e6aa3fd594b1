package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/providers/providertest"
)

// The council's checkpoints through the real binary: the same --checkpoint,
// stdin host, events and resumption as MAGI's, with no door knowing the mode.

var councilLabelRE = regexp.MustCompile(`--- (Response [A-Z]) ---`)

// newCouncilCheckpointFixture is a database and one OpenAI fake the whole
// council sits on: each answer is its own, each ranker ranks the answers in
// the order it was shown them, the chairman writes one line.
func newCouncilCheckpointFixture(t *testing.T) *checkpointFixture {
	t.Helper()
	var n atomic.Int64
	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		switch debatetest.CouncilStageOf(r) {
		case 2:
			var labels []string
			for _, m := range councilLabelRE.FindAllStringSubmatch(debatetest.MagiAllText(r.Messages), -1) {
				labels = append(labels, fmt.Sprintf("%q", m[1]))
			}
			return providertest.Reply{Text: `{"evaluation": "ok", "ranking": [` + strings.Join(labels, ", ") + `]}`}
		case 3:
			return providertest.Reply{Text: "Use NATS."}
		}
		return providertest.Reply{Text: fmt.Sprintf("ANSWER-%d use a queue", n.Add(1))}
	})
	return &checkpointFixture{bin: buildParley(t), dir: t.TempDir(), srv: srv, mode: "council"}
}

func byStage(reqs []providertest.Request) map[int][]providertest.Request {
	out := map[int][]providertest.Request{}
	for _, r := range reqs {
		out[debatetest.CouncilStageOf(r)] = append(out[debatetest.CouncilStageOf(r)], r)
	}
	return out
}

// `printf 'a note\nstop\n' | parley council --checkpoint each_round …`: the
// note reaches every ranking request as the host's words and no answer
// request; the council stops after the rankings, the chairman is never
// asked, and the outcome says so.
func TestCouncilCheckpointHeadlessNoteThenStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCouncilCheckpointFixture(t)
	out, errOut, code := f.run(t, "The budget was cut by half.\nstop\n", "--checkpoint", "each_round", "Kafka or NATS?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	stages := byStage(f.srv.Requests())
	if len(stages[1]) != 3 || len(stages[2]) != 3 || len(stages[3]) != 0 {
		t.Fatalf("requests by stage: %d answers, %d rankings, %d chairman; want 3, 3, 0", len(stages[1]), len(stages[2]), len(stages[3]))
	}
	const note = "[Host] (after the answers): The budget was cut by half."
	for _, r := range stages[1] {
		if strings.Contains(debatetest.MagiAllText(r.Messages), "budget was cut") {
			t.Error("an answer request carries the note made after the answers")
		}
	}
	for _, r := range stages[2] {
		if !strings.Contains(debatetest.MagiAllText(r.Messages), note) {
			t.Errorf("a ranking request lacks the host's note:\n%s", debatetest.MagiAllText(r.Messages))
		}
	}
	for _, want := range []string{
		"parley: CHECKPOINT after the answers: 3 of 3 members answered\n",
		"parley: the host added a note after the answers\n",
		"parley: CHECKPOINT after the rankings: first places: ",
		"parley: the host stopped the run after the rankings\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Count(out, "STOPPED by the host after the rankings: 3 of 3 answers · top-ranked: ") != 1 || strings.Contains(out, "hairman failed") || strings.Contains(out, "Stage 3") {
		t.Errorf("stdout lacks the outcome:\n%s", out)
	}
}

// --jsonl carries the council's checkpoints and the host's answers; the
// chairman cannot be dropped (the line is refused with the reason and read
// again), and a dropped member neither ranks nor is ranked.
func TestCouncilCheckpointJSONLAndDrop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCouncilCheckpointFixture(t)
	out, errOut, code := f.run(t, "drop chairman\ndrop gemini\n\n", "--jsonl", "--checkpoint", "each_round", "Kafka or NATS?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "the chairman cannot be dropped: it writes the council's final answer") || !strings.Contains(errOut, "try again") {
		t.Errorf("stderr lacks the refusal:\n%s", errOut)
	}
	var kinds, answers []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type   string          `json:"type"`
			Kind   string          `json:"kind"`
			Answer json.RawMessage `json:"answer"` // turn_started's is a bool
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		switch ev.Type {
		case "checkpoint":
			kinds = append(kinds, ev.Kind)
		case "checkpoint_answered":
			var a struct{ Action, Member string }
			if err := json.Unmarshal(ev.Answer, &a); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			answers = append(answers, a.Action+" "+a.Member)
		}
	}
	if strings.Join(kinds, ",") != "answers,rankings" || strings.Join(answers, ",") != "drop gemini,continue " {
		t.Errorf("checkpoints %v, answers %q", kinds, answers)
	}
	stages := byStage(f.srv.Requests())
	if len(stages[2]) != 2 || len(stages[3]) != 1 {
		t.Errorf("%d rankings and %d chairman requests, want 2 and 1 (gemini dropped)", len(stages[2]), len(stages[3]))
	}
	for _, r := range stages[2] {
		if n := len(councilLabelRE.FindAllString(debatetest.MagiAllText(r.Messages), -1)); n != 1 {
			t.Errorf("a ranker was shown %d answers, want the one other member left", n)
		}
	}
}

// With stdin at its end the council's first checkpoint is a usage error
// naming the flag, after the answers only.
func TestCouncilCheckpointAtStdinEOFExits2(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCouncilCheckpointFixture(t)
	_, errOut, code := f.run(t, "", "--checkpoint", "each_round", "Kafka or NATS?")
	if code != cli.ExitUsage || !strings.Contains(errOut, "--checkpoint: the run reached a checkpoint and stdin is at its end") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want the 3 answers only", n)
	}
}

// A council killed while it waits after the answers stays waiting there,
// saved and holding no lease: `parley council --session ID` goes on from it,
// asks the host there again, runs no answer again, and the note it is given
// reaches every ranking.
func TestCouncilCheckpointSurvivesAKilledProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCouncilCheckpointFixture(t)
	id := f.killedAtCheckpoint(t, "CHECKPOINT after the answers", "--checkpoint", "each_round", "Kafka or NATS?")
	if n := len(f.srv.Requests()); n != 3 {
		t.Fatalf("%d requests before the kill, want the 3 answers", n)
	}
	out, errOut, code := f.run(t, "Remember the freeze.\nstop\n", "--session", id, "--checkpoint", "each_round")
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, errOut)
	}
	stages := byStage(f.srv.Requests()[3:])
	if len(stages[1]) != 0 || len(stages[2]) != 3 || len(stages[3]) != 0 {
		t.Fatalf("after the resume: %d answers, %d rankings, %d chairman; want 0, 3, 0", len(stages[1]), len(stages[2]), len(stages[3]))
	}
	for _, r := range stages[2] {
		if !strings.Contains(debatetest.MagiAllText(r.Messages), "[Host] (after the answers): Remember the freeze.") {
			t.Errorf("a ranking after the resume lacks the note:\n%s", debatetest.MagiAllText(r.Messages))
		}
	}
	if !strings.Contains(errOut, "CHECKPOINT after the answers: 3 of 3 members answered") || !strings.Contains(out, "STOPPED by the host after the rankings: 3 of 3 answers") {
		t.Errorf("resume printed:\n%s\n%s", errOut, out)
	}
}
