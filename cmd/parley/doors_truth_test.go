package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
)

// Issue 43, item 5: `magi --json` and `council --json` name the session
// they saved, as ask's and MCP's do (the real binary).
func TestMagiAndCouncilJSONCarryTheSessionID(t *testing.T) {
	bin := buildParley(t) // before isolate leaves the module
	dir := isolate(t)
	for _, cmd := range []string{"magi", "council"} {
		db := filepath.Join(dir, cmd+".db")
		code, out, stderr := runBinary(t, bin, "", nil, "--demo", "--db", db, "--json", cmd, "Ship on Friday?")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
		}
		var doc struct {
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s --json: %v\n%s", cmd, err, out)
		}
		if want := testbin.LatestSession(t, db); doc.SessionID != want {
			t.Errorf("%s --json session_id %q, want the saved session %q", cmd, doc.SessionID, want)
		}
	}
}
