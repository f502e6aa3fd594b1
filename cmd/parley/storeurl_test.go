package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/store"
)

// store.url in the configuration names the session database when neither
// --db nor PARLEY_DB does: the flag wins over the variable, the variable
// over the key, and PARLEY_STORE_URL over the file's key like any
// PARLEY_* setting. config show names the database and what chose it, a
// password in the key redacted; each ask is saved where the winner says.
func TestStoreURLChoosesTheDatabaseUnderFlagAndEnv(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	bin := buildParley(t)
	db := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(db("parley.yaml"), []byte("store:\n  url: sqlite:"+db("config.db")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	database := func(args ...string) (value, source string) {
		t.Helper()
		code, out, errOut := runBinary(t, bin, "", nil, append(args, "--json", "config", "show")...) // in its folder, as a user runs it
		var doc struct {
			Values []struct {
				Key, Source string
				Value       any
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
			t.Fatalf("config show: exit %d %s %s", code, out, errOut)
		}
		for _, v := range doc.Values {
			if v.Key == "database" {
				value, _ = v.Value.(string)
				return value, v.Source
			}
		}
		t.Fatalf("config show names no database:\n%s", out)
		return "", ""
	}
	sessions := func(path string) int {
		t.Helper()
		if _, err := os.Stat(path); err != nil {
			return 0
		}
		st, err := store.OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		list, err := st.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	ask := func(args ...string) {
		t.Helper()
		if code, _, errOut := runCLI(t, "", append(args, "--demo", "ask", "@chatgpt where am I kept?")...); code != 0 {
			t.Fatalf("ask %v: exit %d %s", args, code, errOut)
		}
	}

	for _, step := range []struct {
		env, flag    string // PARLEY_DB, --db
		storeEnv     string // PARLEY_STORE_URL
		want, source string
	}{
		{want: "sqlite:" + db("config.db"), source: "parley.yaml:2"},
		{storeEnv: db("storeenv.db"), want: db("storeenv.db"), source: "env PARLEY_STORE_URL"},
		{env: db("env.db"), storeEnv: db("storeenv.db"), want: db("env.db"), source: "env PARLEY_DB"},
		{env: db("env.db"), flag: db("flag.db"), want: db("flag.db"), source: "flag --db"},
	} {
		setenv(t, "PARLEY_DB", step.env)
		setenv(t, "PARLEY_STORE_URL", step.storeEnv)
		var args []string
		if step.flag != "" {
			args = []string{"--db", step.flag}
		}
		if value, source := database(args...); value != step.want || source != step.source {
			t.Errorf("database %q from %q, want %q from %q", value, source, step.want, step.source)
		}
		ask(args...)
		if n := sessions(store.SQLitePath(step.want)); n != 1 {
			t.Errorf("%s holds %d sessions after its ask, want 1", step.want, n)
		}
	}
	if n := sessions(filepath.Join(dir, "data", "parley", "parley.db")); n != 0 {
		t.Errorf("the default file holds %d sessions: store.url was not followed", n)
	}

	setenv(t, "PARLEY_DB", "")
	setenv(t, "PARLEY_STORE_URL", "postgres://parley:hunter2-secret@db.internal/parley")
	code, out, errOut := runCLI(t, "", "config", "show")
	if code != 0 || strings.Contains(out+errOut, "hunter2-secret") || !strings.Contains(out, "db.internal") {
		t.Fatalf("config show with a password in store.url: exit %d\n%s%s", code, out, errOut)
	}
}
