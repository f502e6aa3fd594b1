package main

import (
	"strings"
	"testing"
)

// `swap casper claude` after round 1: claude votes in CASPER's seat in
// rounds 2 and 3 (its persona in the system prompt), CASPER never again,
// and the answer is said on stderr.
func TestMagiCheckpointHeadlessSwap(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	out, errOut, code := f.run(t, "swap casper claude\n\n", "--checkpoint", "each_round", "Should we ship on Friday?")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 9 {
		t.Fatalf("%d requests, want 9; stderr:\n%s", len(reqs), errOut)
	}
	casper, claude := 0, 0
	for i, r := range reqs {
		switch {
		case strings.Contains(r.System, "You are CASPER"):
			casper++
			if i >= 3 {
				t.Errorf("request %d is CASPER's, after the swap", i)
			}
		case strings.Contains(r.System, "You are Claude"):
			claude++
			if i < 3 {
				t.Errorf("request %d is claude's, before the swap", i)
			}
		}
	}
	if casper != 1 || claude != 2 {
		t.Errorf("CASPER asked %d times, claude %d; want 1 and 2", casper, claude)
	}
	if !strings.Contains(out+errOut, "the host put claude in casper's seat after round 1 of 3") {
		t.Errorf("the output lacks the swap:\n%s\n%s", out, errOut)
	}
}
