package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Issue 42, break 3, through the real binary: a catalogue whose model id
// is an OSC 52 clipboard write and a screen clear is refused by `parley
// models update`, with an error that names the entry escaped; the copy
// kept before stays and `parley models` (table and JSON) prints no raw
// control byte. A kept copy edited to hold the same id is not used either:
// the command warns and prints the built-in catalogue.
func TestModelsUpdateRefusesTerminalEscapesThroughTheBinary(t *testing.T) {
	bin := buildParley(t)
	t.Parallel()
	dir := isolate(t)
	const attack = `x\u001b]52;c;cHduZWQ=\u0007\u001b[2J`
	var evil atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := "gpt-6.3-nova"
		if evil.Load() {
			id = attack
		}
		fmt.Fprintf(w, `[{"id":"openai","models":[{"id":"%s","cost_per_1m_in":3,"cost_per_1m_out":12}]},
{"id":"anthropic","models":[{"id":"claude-haiku-5-5","cost_per_1m_in":0.1,"cost_per_1m_out":0.5}]},
{"id":"gemini","models":[{"id":"gemini-4-argon","cost_per_1m_in":2,"cost_per_1m_out":10}]}]`, id)
	}))
	defer srv.Close()
	parley := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, environ(t) // isolate's HOME, XDG_* and PARLEY_CACHE_DIR
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errOut.String()
	}
	raw := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("%s carries raw control bytes: %q", what, s)
		}
	}
	if code, out, stderr := parley("models", "update", "--source", srv.URL); code != 0 {
		t.Fatalf("a good catalogue: exit %d\n%s%s", code, out, stderr)
	}
	path := filepath.Join(getenv(t, "PARLEY_CACHE_DIR"), "catwalk.json")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	evil.Store(true)
	code, out, stderr := parley("models", "update", "--source", srv.URL)
	raw("update's output", out+stderr)
	if code == 0 || !strings.Contains(stderr, `provider openai, model 1: id "x\x1b]52;c;cHduZWQ=\a\x1b[2J"`) || !strings.Contains(stderr, "kept is unchanged") {
		t.Fatalf("the escapes were not refused by name: exit %d\n%s%s", code, out, stderr)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the kept catalogue changed")
	}
	for _, args := range [][]string{{"models"}, {"models", "--json"}} {
		code, out, stderr := parley(args...)
		raw(strings.Join(args, " "), out+stderr)
		if code != 0 || !strings.Contains(out, "gpt-6.3-nova") {
			t.Errorf("parley %v: exit %d, the copy kept before is not shown\n%s%s", args, code, out, stderr)
		}
	}

	// A kept copy edited by hand to hold the id: refused when read.
	edited := strings.Replace(string(before), "gpt-6.3-nova", attack, 1)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = parley("models")
	raw("models over an edited copy", out+stderr)
	if code != 0 || !strings.Contains(stderr, "model catalogue is unreadable") || strings.Contains(out, "gpt-6.3-nova") {
		t.Errorf("an edited kept copy: exit %d\n%s%s", code, out, stderr)
	}
}
