package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
)

// sessions list, show and export read a database that cannot be written
// (read-only media: here no side file can be made beside it); a command
// that would write to a damaged database refuses, saying how to recover.
func TestSessionsReadOnlyMediaAndDamagedDatabase(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	db := filepath.Join(dir, "media.db")
	if code, _, errOut := runCLI(t, "", "--demo", "--db", db, "ask", "@chatgpt hello there"); code != 0 {
		t.Fatalf("ask: exit %d: %s", code, errOut)
	}
	for _, side := range []string{"-wal", "-shm"} {
		os.Remove(db + side)
		if err := os.Mkdir(db+side, 0o500); err != nil {
			t.Fatal(err)
		}
	}
	code, list, errOut := runCLI(t, "", "--db", db, "sessions", "list", "--json")
	if code != 0 || !strings.Contains(list, `"id"`) {
		t.Fatalf("list on read-only media: exit %d, %q %q", code, list, errOut)
	}
	id := list[strings.Index(list, `"id": "`)+7:][:12]
	if code, out, errOut := runCLI(t, "", "--db", db, "sessions", "show", id); code != 0 || !strings.Contains(out, "hello there") {
		t.Fatalf("show: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", "--db", db, "sessions", "export", id, "--format", "md"); code != 0 || !strings.Contains(out, "hello there") {
		t.Fatalf("export: exit %d, %q %q", code, out, errOut)
	}

	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, []byte(strings.Repeat("not a database at all ", 300)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, "", "--demo", "--db", damaged, "ask", "@chatgpt hi")
	if code != cli.ExitRuntime || !strings.Contains(errOut, "the database is damaged") || !strings.Contains(errOut, ".recover") {
		t.Fatalf("damaged database: exit %d, %q", code, errOut)
	}
}
