package main

import (
	"strings"
	"testing"
)

// Headless, a new question to a session whose run waits at a checkpoint
// (here saved by a killed process) is refused with the core's sentence,
// nothing is asked of a provider and the run still waits: answering it
// afterwards (stop) ends it as the host's stop.
func TestMagiQuestionWhileAwaitingHostIsRefused(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	id := f.killedAtCheckpoint(t, "CHECKPOINT after round 1 of 3", "--checkpoint", "each_round", "Should we ship on Friday?")
	before := len(f.srv.Requests())
	_, errOut, code := f.run(t, "", "--session", id, "A new question?")
	const want = "the run waits for its host after round 1 of 3: answer that checkpoint first (continue, note, drop, stop, swap), then ask again"
	if code != 2 || !strings.Contains(errOut, want+" (parley --resume "+id+" answers it)") {
		t.Fatalf("a question at the checkpoint: exit %d, stderr:\n%s\nwant exit 2 and %q", code, errOut, want)
	}
	if n := len(f.srv.Requests()); n != before {
		t.Fatalf("the refused question made %d provider requests", n-before)
	}
	out, errOut, code := f.run(t, "stop\n", "--session", id, "--checkpoint", "each_round")
	if code != 0 || !strings.Contains(out, "STOPPED by the host after round 1: ") {
		t.Fatalf("answering the checkpoint after the refusal: exit %d\n%s\n%s", code, out, errOut)
	}
}
