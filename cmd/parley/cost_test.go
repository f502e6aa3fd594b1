package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"
)

// Every answer reports 8,000 of its 8,192 output tokens: round 1 of the
// default council costs $0.1948 and reserved about $0.201, so under
// --max-cost 0.21 it runs while no round-2 call (the cheapest worst case,
// CASPER's, is $0.031) fits.
func TestMagiStopsAtMaxCostAndKeepsRoundOne(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	magiFakeVendors(t, func(member string, round int) providertest.Reply {
		r := magiFakeVote("approve", "It holds up.", "Approve.")
		r.Usage = providers.Usage{InputTokens: 1000, OutputTokens: 8000}
		return r
	})
	db := filepath.Join(dir, "cap.db")
	code, out, stderr := runCLI(t, "", "--db", db, "magi", "--max-cost", "0.21", "Should we ship on Friday?")
	if code != cli.ExitCapReached {
		t.Fatalf("exit %d, want %d (cap reached):\n%s\n%s", code, cli.ExitCapReached, out, stderr)
	}
	// Round 1 is kept whole; no round-2 call starts.
	for _, want := range []string{"BALTHASAR  APPROVE  Approve.", "MELCHIOR   INVALID  not started: cost cap reached",
		"BALTHASAR  INVALID  not started: cost cap reached", "CASPER     INVALID  not started: cost cap reached"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "MAGI: stopped at the cost cap, no verdict") {
		t.Errorf("the banner should say the cap stopped the council:\n%s", out)
	}
	if strings.Contains(out, "Round 3") {
		t.Errorf("round 3 started after the cap was reached:\n%s", out)
	}
	if !strings.Contains(stderr, "cost cap reached") || !strings.Contains(stderr, "cap of $0.21") || !strings.Contains(stderr, "spent $0.1948") {
		t.Errorf("stderr should name the cap and the spend: %q", stderr)
	}

	// --jsonl carries the refusal and the live spend as events.
	code, out, _ = runCLI(t, "", "--db", db, "--jsonl", "magi", "--max-cost", "0.21", "Ship on Friday?")
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
			if ev.CapUSD != 0.21 {
				t.Errorf("spend event without the cap: %s", line)
			}
		case "cap_reached":
			reached++
			if ev.Reason != "cap" || ev.SpentUSD < 0.1947 || ev.SpentUSD > 0.1949 {
				t.Errorf("cap_reached %s", line)
			}
		}
	}
	if spends < 3 || reached != 1 {
		t.Errorf("%d spend events (want one per call) and %d cap_reached (want 1)", spends, reached)
	}
}

func TestMaxCostRefusesAnUnpricedModel(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	srv := magiFakeVendors(t, func(string, int) providertest.Reply { return providertest.Reply{Text: "hi"} })
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte("agents:\n  - name: gemini\n    model: gemini-9-unlisted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "--db", filepath.Join(dir, "x.db"), "ask", "--max-cost", "0.5", "@gemini hello")
	if code != cli.ExitCapReached || !strings.Contains(stderr, "gemini-9-unlisted has no price") {
		t.Fatalf("exit %d, stderr %q: want the unpriced refusal", code, stderr)
	}
	if n := len(srv["gemini"].Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
	code, _, stderr = runCLI(t, "", "--db", filepath.Join(dir, "x.db"), "ask", "--max-cost", "-1", "@gemini hello")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--max-cost must not be negative") {
		t.Fatalf("negative cap: exit %d, %q", code, stderr)
	}
}

// sessions show ends with the session's cache hit share and saving: every
// fake answer read 400 of its 1,000 input tokens from the cache.
func TestSessionsShowCacheLine(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	magiFakeVendors(t, func(string, int) providertest.Reply { return magiFakeVote("approve", "Fine.", "Approve.") })
	db := filepath.Join(dir, "c.db")
	if code, _, stderr := runCLI(t, "", "--db", db, "magi", "Ship?"); code != 0 {
		t.Fatalf("magi: exit %d: %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", "--db", db, "--json", "sessions", "list")
	if code != 0 {
		t.Fatalf("list: %s", stderr)
	}
	var list []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("list %q: %v", out, err)
	}
	_, out, _ = runCLI(t, "", "--db", db, "sessions", "show", list[0].ID)
	// Saved: 3 × 400 × (2.00 − 0.10) on gpt-6.1-sol and on claude-sonnet-5-5,
	// 3 × 400 × (0.75 − 0.075) on gemini-3.8-flash: $0.0054 (from 2027:
	// gemini's doubled prices make it $0.0062).
	if !strings.Contains(out, "cache: 40% of 9,000 input tokens read from cache, saved $0.0054") &&
		!strings.Contains(out, "cache: 40% of 9,000 input tokens read from cache, saved $0.0062") {
		t.Fatalf("sessions show lacks the cache line:\n%s", out)
	}
}
