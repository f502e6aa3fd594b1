package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile session IDs given to the built binary's flags and to sessions
// import are refused with the offending character named; nothing is
// written outside the data folder.
func TestHostileSessionIDsFlagsAndImport(t *testing.T) {
	t.Parallel()
	r := newSharedRig(t)
	id := r.session()
	export, stderr, err := r.parley("sessions", "export", id, "--format", "json")
	if err != nil || !strings.Contains(export, `"conversation_id": "`+id+`"`) {
		t.Fatalf("export: %v %s\n%.300s", err, stderr, export)
	}
	victim := filepath.Join(filepath.Dir(r.dir), "victim.json")
	for _, h := range []struct{ id, names string }{
		{"y/../../../victim", `'/'`},
		{"..", `'.'`},
		{`a\b`, `'\\'`},
		{"a\x1b[2Jb", `'\x1b'`},
		{"a b", `' '`},
		{"café", `'é'`},
	} {
		for _, args := range [][]string{
			{"ask", "--session", h.id, "@chatgpt hi"},
			{"agent", "--session", h.id, "hi"},
			{"sessions", "show", h.id},
		} {
			_, stderr, err := r.parley(args...)
			if err == nil || !strings.Contains(stderr, h.names) {
				t.Errorf("%s %q: %v, stderr %q; want a refusal naming %s", args[0], h.id, err, stderr, h.names)
			}
		}
		file := filepath.Join(r.dir, "import.json")
		hostile := strings.Replace(export, `"conversation_id": "`+id+`"`, `"conversation_id": `+jsonString(h.id), 1)
		if err := os.WriteFile(file, []byte(hostile), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, stderr, err := r.parley("sessions", "import", file); err == nil || !strings.Contains(stderr, h.names) {
			t.Errorf("import %q: %v, stderr %q; want a refusal naming %s", h.id, err, stderr, h.names)
		}
	}
	if _, err := os.Stat(victim); err == nil {
		t.Errorf("%s was written", victim)
	}
	list, _, err := r.parley("sessions", "list", "--json")
	if err != nil || strings.Count(list, `"id"`) != 1 {
		t.Errorf("sessions after the refusals: %v %s", err, list)
	}
}

// jsonString is s as a JSON string literal.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
