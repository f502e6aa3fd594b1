package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/providertest"

	"github.com/parleyhq/parley/cmd/parley/internal/testbin"
)

// Issue 43, item 5: `magi --json` and `council --json` name the session
// they saved, as ask's and MCP's do (the real binary).
func TestMagiAndCouncilJSONCarryTheSessionID(t *testing.T) {
	t.Parallel()
	bin := buildParley(t) // before isolate leaves the module
	dir := isolate(t)
	for _, cmd := range []string{"magi", "council"} {
		db := filepath.Join(dir, cmd+".db")
		code, out, stderr := runBinary(t, bin, "", []string{fastDemo}, "--demo", "--db", db, "--json", cmd, "Ship on Friday?")
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

// Issue 43, item 4: "@gemini hello" typed in a mode that routes no names
// asks Gemini alone, as mention mode would (one provider call, not a
// council's seven), and says so in one line; "@all …" runs the council.
// Through the real binary, as `parley council` and `parley magi`.
func TestNamedAskInAModeThatRoutesNoNames(t *testing.T) {
	bin := buildParley(t) // before isolate leaves the module
	t.Parallel()
	dir := isolate(t)
	srv := councilFakes(t, councilScript([]string{"claude", "gemini", "chatgpt"}, providertest.Reply{Text: "Use NATS.", Usage: providers.Usage{InputTokens: 30, OutputTokens: 3}}))
	calls := func() int {
		n := 0
		for _, s := range srv {
			n += len(s.Requests())
		}
		return n
	}
	for _, mode := range []string{"council", "magi"} {
		before := calls()
		code, out, stderr := runBinary(t, bin, "", nil, "--db", filepath.Join(dir, mode+".db"), mode, "@gemini hello")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		if got := calls() - before; got != 1 {
			t.Errorf("%s \"@gemini hello\" made %d provider calls, want 1", mode, got)
		}
		want := "Asked Gemini alone, as mention mode would: " + mode + " mode routes no names (@all … runs it)."
		if strings.Count(stderr, want) != 1 || !strings.Contains(out, "[Gemini]") {
			t.Errorf("%s: stdout %q stderr %q; want Gemini's answer and %q once", mode, out, stderr, want)
		}
		// The command's header describes a council that did not sit.
		if strings.Contains(out, "members:") {
			t.Errorf("%s: a named ask prints the %s header:\n%s", mode, mode, out)
		}
	}
	before := calls()
	code, out, stderr := runBinary(t, bin, "", nil, "--db", filepath.Join(dir, "all.db"), "council", "@all hello")
	if code != 0 || calls()-before < 4 || !strings.Contains(out, "Council: @all hello\nmembers: ") {
		t.Fatalf("council \"@all hello\": exit %d, %d calls (a whole council, its header first, wanted): %s\n%s", code, calls()-before, out, stderr)
	}
}

// Issue 43, item 12: a headless command with no question says what is
// missing, not cobra's "requires at least 1 arg(s)" (the real binary).
func TestNoQuestionSaysWhatIsMissing(t *testing.T) {
	bin := buildParley(t) // before isolate leaves the module
	t.Parallel()
	dir := isolate(t)
	for _, cmd := range []string{"magi", "council", "ask"} {
		code, _, stderr := runBinary(t, bin, "", nil, "--demo", "--db", filepath.Join(dir, "q.db"), cmd)
		if code != 2 || !strings.Contains(stderr, "a question is required") || strings.Contains(stderr, "arg(s)") {
			t.Errorf("parley %s with no question: exit %d, %q", cmd, code, stderr)
		}
	}
}

// Issue 43, item 12: a number flag given a word says what it takes, not
// strconv.ParseInt's message (the real binary).
func TestNumberFlagRefusalIsPlain(t *testing.T) {
	bin := buildParley(t) // before isolate leaves the module
	t.Parallel()
	dir := isolate(t)
	code, _, stderr := runBinary(t, bin, "", nil, "--demo", "--db", filepath.Join(dir, "r.db"), "talk", "--rounds", "many", "topic")
	if code != 2 || strings.Contains(stderr, "strconv") || !strings.Contains(stderr, `invalid argument "many" for "--rounds" flag: it must be a whole number`) {
		t.Fatalf("--rounds many: exit %d, %q", code, stderr)
	}
}
