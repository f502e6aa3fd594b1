package main

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/debatetest"
)

// `printf 'a note\nstop\n' | parley talk --checkpoint each_round …`: the
// note after round 1's summary reaches every later request as the host's
// words and none before; stop after round 2's summary lets the MC close,
// and the outcome says the host stopped it.
func TestTalkCheckpointHeadlessNoteThenStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "talk"
	const note = "NOTE-7 the audience asks about rural broadband"
	out, errOut, code := f.run(t, note+"\nstop\n", "--checkpoint", "each_round", "--rounds", "3", "--topic", "Is remote work here to stay?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 8 { // the opening, round 1 (A, B, summary), round 2, the closing
		t.Fatalf("%d requests, want 8; stderr:\n%s", len(reqs), errOut)
	}
	for i, r := range reqs {
		if has := strings.Contains(debatetest.MagiAllText(r.Messages), note); has != (i >= 4) {
			t.Errorf("request %d has the note: %v", i, has)
		}
	}
	for _, want := range []string{"CHECKPOINT after round 1's summary", "the host added a note after round 1's summary",
		"the host stopped the run after round 2's summary", "STOPPED by the host after round 2 of 3"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("the output lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
}

// A talk that reaches a checkpoint with stdin at its end is an error
// naming the flag, exit 2, and the MC does not close it.
func TestTalkCheckpointAtStdinsEndExits2(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "talk"
	_, errOut, code := f.run(t, "", "--checkpoint", "each_round", "--rounds", "2", "--topic", "Is remote work here to stay?")
	if code != 2 || !strings.Contains(errOut, "--checkpoint") {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if n := len(f.srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4 (nothing after round 1's summary)", n)
	}
}

// `swap gemini claude` after round 1's summary: claude speaks in guest B's
// seat from round 2 on (its persona in the system prompt), gemini never again.
func TestTalkCheckpointHeadlessSwap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "talk"
	out, errOut, code := f.run(t, "swap gemini claude\n\n", "--checkpoint", "each_round", "--rounds", "3", "--topic", "Is remote work here to stay?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 11 {
		t.Fatalf("%d requests, want 11; stderr:\n%s", len(reqs), errOut)
	}
	for i, r := range reqs {
		gemini, claude := strings.Contains(r.System, "You are Gemini"), strings.Contains(r.System, "You are Claude")
		if want := i == 2; gemini != want {
			t.Errorf("request %d is gemini's: %v", i, gemini)
		}
		if want := i == 5 || i == 8; claude != want {
			t.Errorf("request %d is claude's: %v", i, claude)
		}
	}
	if !strings.Contains(out+errOut, "the host put claude in gemini's seat after round 1's summary") {
		t.Errorf("the output lacks the swap:\n%s\n%s", out, errOut)
	}
}

// A talk waiting after round 1's summary survives its process: killed
// there (SIGKILL, the host never answered), `parley talk --session ID`
// asks the host at the same point again, the note reaches round 2 and the
// closing, no turn is run twice, and stop after round 2 ends the talk with
// the outcome counting every turn of both processes.
func TestTalkCheckpointSurvivesAKilledProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "talk"
	id := f.killedAtCheckpoint(t, "CHECKPOINT after round 1's summary", "--checkpoint", "each_round", "--rounds", "3", "Is remote work here to stay?")
	if n := len(f.srv.Requests()); n != 4 {
		t.Fatalf("%d requests before the kill, want 4 (the opening, round 1, its summary)", n)
	}
	const note = "NOTE-9 the audience asks about rural broadband"
	out, errOut, code := f.run(t, note+"\nstop\n", "--session", id, "--checkpoint", "each_round")
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 8 { // round 2 (A, B, summary) and the closing after the resume
		t.Fatalf("%d requests in all, want 8; stderr:\n%s", len(reqs), errOut)
	}
	for i, r := range reqs {
		if has := strings.Contains(debatetest.MagiAllText(r.Messages), note); has != (i >= 4) {
			t.Errorf("request %d has the note: %v", i, has)
		}
	}
	for i, r := range reqs[4:7] {
		if want := "(round 2 of 3)"; i < 2 && !strings.Contains(debatetest.MagiAllText(r.Messages), want) {
			t.Errorf("request %d after the resume is not round 2's:\n%s", 4+i, debatetest.MagiAllText(r.Messages))
		}
	}
	for _, want := range []string{"CHECKPOINT after round 1's summary", "the host added a note after round 1's summary",
		"the host stopped the run after round 2's summary", "STOPPED by the host after round 2 of 3 · 8 turns"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("the resumed run lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
	again, errAgain, code := f.run(t, "", "--session", id, "--checkpoint", "each_round")
	if code == 0 || len(f.srv.Requests()) != 8 {
		t.Errorf("a finished talk went on again: exit %d, %d requests\n%s\n%s", code, len(f.srv.Requests()), again, errAgain)
	}
}
