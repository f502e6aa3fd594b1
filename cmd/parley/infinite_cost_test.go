package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A database holding a cost that is no amount (+Inf, written by an older
// version after a price of 1.7e308; issue 42, break 4) still lists, shows
// and exports as valid JSON, exit 0, the cost read as unknown: `sessions
// list --json` exited 1 with "json: unsupported value: +Inf".
func TestAnInfiniteStoredCostBreaksNoCommand(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	db := filepath.Join(dir, "inf.db")
	if code, _, stderr := runCLI(t, "", "--demo", "--db", db, "ask", "@chatgpt hi"); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, stderr)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	res, err := raw.Exec(`UPDATE conversation_log SET cost_usd = 9e999, tokens_in = -7 WHERE speaker_name <> 'user'`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("no answer row to poison")
	}
	raw.Close()
	code, out, stderr := runCLI(t, "", "--db", db, "sessions", "list", "--json")
	var list []struct {
		ID       string  `json:"id"`
		TokensIn int     `json:"tokens_in"`
		CostUSD  float64 `json:"cost_usd"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("sessions list --json: exit %d %q %q", code, out, stderr)
	}
	if list[0].TokensIn < 0 {
		t.Errorf("listed %d input tokens", list[0].TokensIn)
	}
	for _, args := range [][]string{
		{"sessions", "show", list[0].ID, "--json"},
		{"sessions", "export", list[0].ID, "--format", "json"},
		{"sessions", "list"},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"--db", db}, args...)...)
		if code != 0 || strings.Contains(out, "Inf") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, stderr)
		}
		if args[len(args)-1] == "json" || args[len(args)-1] == "--json" {
			if !json.Valid([]byte(out)) {
				t.Errorf("%v: not JSON: %q", args, out)
			}
		}
	}
}
