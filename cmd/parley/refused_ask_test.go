package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/providers/providertest"
)

// Issue 43, item 6: an ask refused before any call (a model with no price
// under --max-cost) prints no turn and saves no session, keeping its
// message and exit code; the provider gets no request. The real binary.
func TestAskRefusedBeforeTheExchangeKeepsNothing(t *testing.T) {
	bin := buildParley(t) // before isolate leaves the module
	t.Parallel()
	dir := isolate(t)
	srv := magiFakeVendors(t, func(string, int) providertest.Reply { return providertest.Reply{Text: "hi"} })
	cfg := "agents:\n  - name: mystery\n    provider: gemini\n    model: gemini-9-unlisted\n  - name: gemini\n    provider: gemini\n    model: gemini-3.8-flash\n"
	if err := os.WriteFile(filepath.Join(dir, "parley.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "refused.db")
	sessions := func() int {
		t.Helper()
		code, out, stderr := runBinary(t, bin, "", nil, "--db", db, "--json", "sessions", "list")
		if code != 0 {
			t.Fatalf("sessions list: exit %d: %s", code, stderr)
		}
		var list []struct{ ID string }
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("sessions list --json %q: %v", out, err)
		}
		return len(list)
	}

	code, out, stderr := runBinary(t, bin, "", nil, "--db", db, "ask", "--max-cost", "1", "@mystery hi")
	if code != cli.ExitCapReached || !strings.Contains(stderr, "gemini-9-unlisted has no price") {
		t.Fatalf("exit %d, stderr %q: want the unpriced refusal (exit %d)", code, stderr, cli.ExitCapReached)
	}
	if lower := strings.ToLower(out); strings.Contains(lower, "mystery") || strings.Contains(lower, "cancelled") {
		t.Errorf("a refused ask printed a turn:\n%s", out)
	}
	if n := len(srv["gemini"].Requests()); n != 0 {
		t.Errorf("%d requests reached the provider", n)
	}
	if n := sessions(); n != 0 {
		t.Errorf("a refused ask saved %d session(s)", n)
	}

	// The same ask of a priced model under the same cap runs and is kept:
	// the refusal above is the price's, not the command's.
	code, out, stderr = runBinary(t, bin, "", nil, "--db", db, "ask", "--max-cost", "1", "@gemini hi")
	if code != 0 || !strings.Contains(out, "hi") {
		t.Fatalf("priced ask: exit %d\n%s\n%s", code, out, stderr)
	}
	if n := sessions(); n != 1 {
		t.Errorf("the priced ask saved %d sessions, want 1", n)
	}
}
