package main

import (
	"strings"
	"testing"
)

// `parley ask --checkpoint each_round` asks on stdin before a call to a
// tool under ask; killed there, `parley ask --session ID --checkpoint
// each_round` with no question asks again, and `deny REASON` reaches the
// model as the call's result after its own message with the call. A
// session that waits at nothing refuses --session alone with a usage error.
func TestAskToolApprovalKilledThenDeniedOnStdin(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f, fetched := toolCallFixture(t, "ask", "tools:\n  policy:\n    fetch_url: ask\n  fetch:\n    allow_private: true\nagents:\n  - name: chatgpt\n    tools: [fetch]\n")
	srv := f.srv
	id := f.killedAtCheckpoint(t, "CHECKPOINT before chatgpt's call to fetch_url", "--checkpoint", "each_round", "@chatgpt what is the rate on that page?")
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests before the kill, want 1", n)
	}
	out, errOut, code := f.run(t, "deny not that site\n", "--session", id, "--checkpoint", "each_round")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "CHECKPOINT before chatgpt's call to fetch_url") || !strings.Contains(errOut, "the host denied fetch_url to chatgpt: not that site") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !strings.Contains(out, "Without the page: no figure.") {
		t.Errorf("stdout:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	deniedAfterTheCall(t, reqs[1].Messages, "not that site")
	if n := fetched.Load(); n != 0 {
		t.Errorf("the denied page was fetched %d times", n)
	}
	// Answered: the session waits at nothing, and --session alone says so.
	_, errOut, code = f.run(t, "", "--session", id, "--checkpoint", "each_round")
	if code != 2 || !strings.Contains(errOut, "waits at no checkpoint: give a question") {
		t.Errorf("--session alone after the answer: exit %d, stderr %s", code, errOut)
	}
}
