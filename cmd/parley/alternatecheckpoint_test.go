package main

import (
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/debatetest"
)

// `printf 'a note\nstop\n' | parley alternate --checkpoint each_round
// --steps 3 …`: the host is asked after the start (the note, in every
// later request and none before) and after step 1 of 3 (stop): steps 2
// and 3 are not run, the outcome says so, and the run exits 0.
func TestAlternateCheckpointHeadlessNoteThenStop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "alternate"
	const note = "NOTE-5 keep it under 50 lines"
	out, errOut, code := f.run(t, note+"\nstop\n", "--checkpoint", "each_round", "--steps", "3", "write a Go LRU cache")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 { // the start's two answers, step 1
		t.Fatalf("%d requests, want 3; stderr:\n%s\nstdout:\n%s", len(reqs), errOut, out)
	}
	for i, r := range reqs {
		if has := strings.Contains(debatetest.MagiAllText(r.Messages), note); has != (i >= 2) {
			t.Errorf("request %d has the note: %v", i, has)
		}
	}
	for _, want := range []string{"CHECKPOINT after the start", "the host added a note after the start",
		"CHECKPOINT after step 1 of 3", "the host stopped the run after step 1 of 3", "STOPPED by the host after step 1 of 3 · 2 steps not run"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("the output lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
	if strings.Contains(out+errOut, "CHECKPOINT after step 3") {
		t.Errorf("a point after the last step:\n%s", errOut)
	}
}

// With every step continued, the host is asked between steps and never
// after the last; stdin at its end at a point is exit 2 naming the flag.
func TestAlternateCheckpointAsksBetweenStepsOnly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "alternate"
	out, errOut, code := f.run(t, "\n\n", "--checkpoint", "each_round", "--steps", "2", "write a Go LRU cache")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if n := len(f.srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4 (the start's two, steps 1 and 2)", n)
	}
	if got := strings.Count(errOut, "CHECKPOINT "); got != 2 || strings.Contains(errOut, "after step 2") {
		t.Errorf("%d points, want 2 (after the start and step 1):\n%s\n%s", got, errOut, out)
	}
	g := newCheckpointFixture(t)
	g.mode = "alternate"
	_, errOut, code = g.run(t, "", "--checkpoint", "each_round", "--steps", "2", "write a Go LRU cache")
	if code != 2 || !strings.Contains(errOut, "--checkpoint") || len(g.srv.Requests()) != 2 {
		t.Errorf("stdin at its end: exit %d, %d requests; stderr:\n%s", code, len(g.srv.Requests()), errOut)
	}
}

// An alternation waiting after its start survives its process: killed there,
// `parley alternate --session ID --checkpoint each_round` asks the host at
// the same point again, runs the steps left with the note, and asks again
// between them.
func TestAlternateCheckpointSurvivesAKilledProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "alternate"
	id := f.killedAtCheckpoint(t, "CHECKPOINT after the start", "--checkpoint", "each_round", "--steps", "3", "write a Go LRU cache")
	if n := len(f.srv.Requests()); n != 2 {
		t.Fatalf("%d requests before the kill, want the start's 2", n)
	}
	const note = "NOTE-6 add benchmarks"
	out, errOut, code := f.run(t, note+"\n\n\n", "--session", id, "--checkpoint", "each_round")
	if code != 0 {
		t.Fatalf("resume: exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 5 { // steps 1 to 3
		t.Fatalf("%d requests in all, want 5; stderr:\n%s", len(reqs), errOut)
	}
	for i, r := range reqs {
		if has := strings.Contains(debatetest.MagiAllText(r.Messages), note); has != (i >= 2) {
			t.Errorf("request %d has the note: %v", i, has)
		}
	}
	for _, want := range []string{"CHECKPOINT after the start", "the host added a note after the start", "CHECKPOINT after step 1 of 3", "CHECKPOINT after step 2 of 3", "STEP 3:"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("the resumed run lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
	if strings.Contains(out+errOut, "after step 3 of 3") {
		t.Errorf("a point after the last step:\n%s", errOut)
	}
}
