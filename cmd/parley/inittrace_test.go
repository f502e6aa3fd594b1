package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// initLine is one line of GODEBUG=inittrace=1: a package initialiser's
// allocations.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.* ([0-9]+) allocs$`)

// Every command pays the binary's package initialisers before main, so
// none may build a registry the command does not use. chroma's lexers and
// styles (linked through glamour, for the console's code blocks) parsed
// ~300 XML definitions at start-up — 60,000 allocations, ~20 ms — until
// third_party/chroma filled them on first use; the whole binary's
// initialisers made 89,000 allocations then, ~30,000 after.
func TestStartupBuildsNoHighlighterRegistry(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(buildParley(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("parley version: %v\n%s", err, out)
	}
	perPackage := map[string]int{}
	total := 0
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[2])
		perPackage[m[1]] += n
		total += n
	}
	if len(perPackage) < 50 {
		t.Fatalf("read %d initialisers from GODEBUG=inittrace=1:\n%s", len(perPackage), out)
	}
	for _, pkg := range []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles"} {
		if n, ok := perPackage[pkg]; !ok || n > 2000 {
			t.Errorf("%s: %d allocations at start-up (linked: %v), want at most 2,000: its registry is built before main", pkg, n, ok)
		}
	}
	// Parley's own tables a command may never use are built on first use:
	// the benchmark report's template (1,525 allocations), the API's schemas
	// and the login page (550 of serve's 1,100).
	for pkg, most := range map[string]int{"github.com/parleyhq/parley/cmd/parley/internal/bench": 200, "github.com/parleyhq/parley/cmd/parley/internal/serve": 700} {
		if n, ok := perPackage[pkg]; !ok || n > most {
			t.Errorf("%s: %d allocations at start-up (linked: %v), want at most %d: a template or table is built before main again", pkg, n, ok, most)
		}
	}
	if total > 45000 {
		t.Errorf("the package initialisers made %d allocations, want at most 45,000 (30,000 when this test was written)", total)
	}
}
