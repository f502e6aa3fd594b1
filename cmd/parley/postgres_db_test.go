package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/store/pgtest"
)

// Every command takes a postgres:// URL for --db (or PARLEY_DB), through
// the real binary: a demo ask saves there, sessions list reads it back,
// db migrate says the schema is current, sessions copy moves a SQLite
// history over and, run again, copies nothing. The URL's password is
// never printed, by any of them nor by a failed connection.
func TestCommandsOnPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	c := pgtest.Require(t)
	bin := buildParley(t)
	dir := t.TempDir()
	url := strings.Replace(c.Schema(t), "parley@", "parley:s3cret-pw@", 1) // trust auth: any password is taken
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "PARLEY_DB=", fastDemo)
	run := func(wantOK bool, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if (err == nil) != wantOK {
			t.Fatalf("parley %v: %v\n%s", args, err, out)
		}
		if strings.Contains(string(out), "s3cret-pw") {
			t.Fatalf("parley %v printed the database password:\n%s", args, out)
		}
		return string(out)
	}
	run(true, "ask", "--demo", "--db", url, "@all what is a lease?")
	var list []struct {
		ID    string `json:"id"`
		Turns int    `json:"turns"`
	}
	if err := json.Unmarshal([]byte(run(true, "sessions", "list", "--json", "--db", url)), &list); err != nil || len(list) != 1 || list[0].Turns < 2 {
		t.Fatalf("sessions list on Postgres: %+v, %v", list, err)
	}
	if out := run(true, "db", "migrate", "--db", url); !strings.Contains(out, "up to date") || !strings.Contains(out, "xxxxx") {
		t.Errorf("db migrate said: %s", out)
	}
	run(true, "config", "show", "--db", url)

	file := filepath.Join(dir, "history.db")
	run(true, "ask", "--demo", "--db", file, "@all first")
	run(true, "ask", "--demo", "--db", file, "@all second")
	if out := run(true, "sessions", "copy", "--from", file, "--to", url); !strings.Contains(out, "copied 2 sessions") {
		t.Errorf("first copy said: %s", out)
	}
	if out := run(true, "sessions", "copy", "--from", file, "--to", url); !strings.Contains(out, "copied 0 sessions") || !strings.Contains(out, "2 were there already") {
		t.Errorf("second copy said: %s", out)
	}
	if err := json.Unmarshal([]byte(run(true, "sessions", "list", "--json", "--db", url)), &list); err != nil || len(list) != 3 {
		t.Fatalf("after the copy Postgres lists %d sessions (%v), want 3", len(list), err)
	}
	run(false, "sessions", "list", "--db", "postgres://parley:s3cret-pw@127.0.0.1:1/none?connect_timeout=2")
}
