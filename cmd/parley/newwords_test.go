package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 43, item 12: a vote change with one new content word reads
// "(1 new word)", not "(1 new words)". BALTHASAR joins MELCHIOR in round 2
// with MELCHIOR's reasoning and a single word of its own (postgres).
func TestMagiHeadlessCountsOneNewWordInTheSingular(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	magiFakeVendors(t, fridayCouncil("Friday deploys leave nobody on call; rollback untested; postgres."))
	code, out, stderr := runCLI(t, "", "--db", filepath.Join(dir, "magi.db"), "magi", "Should we ship on Friday?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "BALTHASAR  round 1→2  approve → reject  CONFORMITY: no new argument (1 new word)\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
