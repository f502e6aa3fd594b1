package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// onlyOpenAI sets OPENAI_API_KEY alone, pointed at a fake that answers
// every request with answer(system prompt).
func onlyOpenAI(t *testing.T, answer func(system string) string) *providertest.Server {
	t.Helper()
	isolate(t)
	srv := providertest.OpenAI(t, func(r providertest.Request) providertest.Reply {
		return providertest.Reply{Text: answer(r.System), Usage: providers.Usage{InputTokens: 100, OutputTokens: 10}}
	})
	setenv(t, "OPENAI_API_KEY", "k1")
	setenv(t, "OPENAI_BASE_URL", srv.URL)
	return srv
}

func approveVote(string) string {
	b, _ := json.Marshal(map[string]string{"vote": "approve", "reasoning": "The numbers support it.", "summary": "Go ahead."})
	return string(b)
}

func TestOneKeySeatsTheWholeMagiCouncil(t *testing.T) {
	t.Parallel()
	srv := onlyOpenAI(t, approveVote)
	code, out, stderr := runCLI(t, "", "magi", "Should we migrate to Postgres?")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	if want := "parley: BALTHASAR and CASPER run on gpt-6.1-sol: no ANTHROPIC_API_KEY, GEMINI_API_KEY\n"; strings.Count(stderr, want) != 1 {
		t.Errorf("stderr does not say once how the council sits:\n%s", stderr)
	}
	for _, want := range []string{"MAGI VERDICT: APPROVED", "3 approve, 0 reject, 0 abstain, 0 invalid"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 9 {
		t.Fatalf("the one provider got %d requests, want 9 (3 members × 3 rounds)", len(reqs))
	}
	perMember := map[string]int{}
	for _, r := range reqs {
		if r.Model != "gpt-6.1-sol" {
			t.Errorf("request for model %q, want gpt-6.1-sol", r.Model)
		}
		for _, m := range []string{"MELCHIOR", "BALTHASAR", "CASPER"} {
			if strings.HasPrefix(r.System, "You are "+m) {
				perMember[m]++
			}
		}
	}
	if perMember["MELCHIOR"] != 3 || perMember["BALTHASAR"] != 3 || perMember["CASPER"] != 3 {
		t.Errorf("each persona should speak three times on the one provider: %v", perMember)
	}
}

func TestAllAsksTheKeyedAgentsAndNamesTheSkipped(t *testing.T) {
	t.Parallel()
	srv := onlyOpenAI(t, func(string) string { return "Kafka keeps the log." })
	code, out, stderr := runCLI(t, "", "ask", "@all compare Kafka and NATS")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	line := "@all asks ChatGPT; skipped Gemini: no GEMINI_API_KEY"
	if !strings.Contains(stderr, "parley: "+line) {
		t.Errorf("stderr lacks %q:\n%s", line, stderr)
	}
	if strings.Contains(out+stderr, "GEMINI_API_KEY (or") || strings.Contains(out, "[Gemini]") {
		t.Errorf("Gemini was asked without a key:\n%s\n%s", out, stderr)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0].System, "You are ChatGPT") {
		t.Errorf("want one request, from ChatGPT; got %d", len(reqs))
	}
}

func TestStrictSeatingRefusesNamingTheVariables(t *testing.T) {
	t.Parallel()
	srv := onlyOpenAI(t, approveVote)
	code, _, stderr := runCLI(t, "", "--strict-seats", "magi", "q?")
	if code != cli.ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, cli.ExitUsage, stderr)
	}
	for _, want := range []string{"magi: BALTHASAR and CASPER have no seat: set ANTHROPIC_API_KEY and GEMINI_API_KEY", "seating: strict"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("a refused council made %d calls", n)
	}
}

func TestCouncilWithoutAMajorityMakesNoCall(t *testing.T) {
	t.Parallel()
	srv := onlyOpenAI(t, func(string) string { return "An answer." })
	// gemini, chatgpt, claude: only chatgpt has its key.
	code, _, stderr := runCLI(t, "", "--strict-seats", "council", "Which queue?")
	if code != cli.ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, cli.ExitUsage, stderr)
	}
	if want := "council: 1 of 3 members have a seat, and a council needs a majority"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("a council without a majority made %d calls", n)
	}
}

func TestOneKeySeatsCouncilMembersAndChairman(t *testing.T) {
	t.Parallel()
	srv := onlyOpenAI(t, func(system string) string {
		if strings.Contains(system, "impartial judge") {
			return `{"evaluation": "A is concrete.", "ranking": ["Response A", "Response B"]}`
		}
		return "Use NATS for a small team."
	})
	code, out, stderr := runCLI(t, "", "council", "Kafka or NATS?")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	if want := "run on gpt-6.1-sol: no GEMINI_API_KEY, ANTHROPIC_API_KEY"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(out, "members: Gemini (openai/gpt-6.1-sol) · ChatGPT (openai/gpt-6.1-sol) · Claude (openai/gpt-6.1-sol)") {
		t.Errorf("the members do not all sit on the keyed provider:\n%s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 7 { // 3 answers, 3 rankings, 1 chairman
		t.Errorf("the one provider got %d requests, want 7:\n%s", len(reqs), out)
	}
}

// Parley's note of whom @all skipped is for the user: it is printed and
// saved, and reaches no model — not in the mention round it belongs to nor
// in any later mode's prompt of the same session (MAGI, council, alternate,
// talk). Checked on the bodies the fake provider received.
func TestSkippedNoteReachesNoModel(t *testing.T) {
	t.Parallel()
	srv := onlyOpenAI(t, func(system string) string {
		switch {
		case strings.Contains(system, "impartial judge"):
			return `{"evaluation": "A is concrete.", "ranking": ["Response A", "Response B"]}`
		case strings.Contains(system, "MAGI"):
			return approveVote(system)
		}
		return "NATS is simpler to run."
	})
	lines := []string{"@all kafka or nats?", "/mode magi", "should we pick nats?", "/mode council", "which queue then?",
		"/mode alternate", "write the consumer", "/mode talk", "queues for small teams", "exit"}
	code, out, stderr := runCLI(t, strings.Join(lines, "\n")+"\n", "repl")
	if code != 0 && code != cli.ExitNoDecision {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	note := "skipped Gemini: no GEMINI_API_KEY"
	if !strings.Contains(out+stderr, note) {
		t.Errorf("the user was not told whom @all skipped:\n%s\n%s", out, stderr)
	}
	reqs := srv.Requests()
	modes := map[string]bool{}
	for _, r := range reqs {
		switch {
		case strings.Contains(r.System, "impartial judge"), strings.Contains(r.System, "chairman"):
			modes["council"] = true
		case strings.Contains(r.System, "MAGI"):
			modes["magi"] = true
		}
		if strings.Contains(string(r.Body), "skipped Gemini") || strings.Contains(string(r.Body), "GEMINI_API_KEY") || strings.Contains(string(r.Body), "(note)]") {
			t.Errorf("a request carried Parley's note to the user:\n%s", r.Body)
		}
	}
	if len(reqs) < 20 || !modes["magi"] || !modes["council"] || !strings.Contains(string(reqs[len(reqs)-1].Body), "queues for small teams") {
		t.Errorf("the session did not run every mode: %d requests, %v", len(reqs), modes)
	}
}
