package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Every answer reports 8,000 of its 8,192 output tokens: round 1 of the
// default council costs about $0.236, so under --max-cost 0.30 only
// CASPER's round-2 call (worst case $0.031) still fits.
func TestMagiStopsAtMaxCostAndKeepsRoundOne(t *testing.T) {
	dir := isolate(t)
	magiFakeVendors(t, func(member string, round int) providertest.Reply {
		r := magiFakeVote("approve", "It holds up.", "Approve.")
		r.Usage = providers.Usage{InputTokens: 1000, OutputTokens: 8000}
		return r
	})
	db := filepath.Join(dir, "cap.db")
	code, out, stderr := runCLI(t, "", "--db", db, "magi", "--max-cost", "0.30", "Should we ship on Friday?")
	if code != cli.ExitCapReached {
		t.Fatalf("exit %d, want %d (cap reached):\n%s\n%s", code, cli.ExitCapReached, out, stderr)
	}
	// Round 1 is kept whole; in round 2 only CASPER's call (the cheapest
	// worst case) still fits beside the $0.236 spent.
	for _, want := range []string{"BALTHASAR  APPROVE  Approve.", "MELCHIOR   INVALID  not started: cost cap reached", "CASPER     APPROVE  Approve."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Round 3") {
		t.Errorf("round 3 started after the cap was reached:\n%s", out)
	}
	// Spent: round 1's $0.236, and CASPER's round-2 call when it finished
	// before a sibling was refused.
	if !strings.Contains(stderr, "cost cap reached") || !strings.Contains(stderr, "cap of $0.30") || !spentRound1.MatchString(stderr) {
		t.Errorf("stderr should name the cap and the spend: %q", stderr)
	}

	// --jsonl carries the refusal and the live spend as events.
	code, out, _ = runCLI(t, "", "--db", db, "--jsonl", "magi", "--max-cost", "0.30", "Ship on Friday?")
	if code != cli.ExitCapReached {
		t.Fatalf("--jsonl: exit %d", code)
	}
	var spends, reached int
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var ev struct {
			Type     string  `json:"type"`
			CapUSD   float64 `json:"cap_usd"`
			SpentUSD float64 `json:"spent_usd"`
			Reason   string  `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch ev.Type {
		case "spend":
			spends++
			if ev.CapUSD != 0.30 {
				t.Errorf("spend event without the cap: %s", line)
			}
		case "cap_reached":
			reached++
			if ev.Reason != "cap" || ev.SpentUSD < 0.235 || ev.SpentUSD > 0.30 {
				t.Errorf("cap_reached %s", line)
			}
		}
	}
	if spends < 3 || reached != 1 {
		t.Errorf("%d spend events (want one per call) and %d cap_reached (want 1)", spends, reached)
	}
}

var spentRound1 = regexp.MustCompile(`spent \$0\.2[3-7]\d{2}`)

func TestMaxCostRefusesAnUnpricedModel(t *testing.T) {
	isolate(t)
	srv := magiFakeVendors(t, func(string, int) providertest.Reply { return providertest.Reply{Text: "hi"} })
	if err := os.WriteFile("parley.yaml", []byte("agents:\n  - name: gemini\n    model: gemini-9-unlisted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "--db", "x.db", "ask", "--max-cost", "0.5", "@gemini hello")
	if code != cli.ExitCapReached || !strings.Contains(stderr, "gemini-9-unlisted has no price") {
		t.Fatalf("exit %d, stderr %q: want the unpriced refusal", code, stderr)
	}
	if n := len(srv["gemini"].Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
	code, _, stderr = runCLI(t, "", "--db", "x.db", "ask", "--max-cost", "-1", "@gemini hello")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--max-cost must not be negative") {
		t.Fatalf("negative cap: exit %d, %q", code, stderr)
	}
}
