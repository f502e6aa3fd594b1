package testbin

import (
	"context"
	"os/exec"
	"testing"

	"github.com/parleyhq/parley/debate/store"
)

// Run runs the built parley with args in dir with env (the whole
// environment of the process), failing the test with its output when it
// fails: another process writing a shared session, as a user would.
func Run(t testing.TB, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(Parley(t), args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("parley %v: %v\n%s", args, err, out)
	}
}

// LatestSession is the ID of the newest session in the database file db.
func LatestSession(t testing.TB, db string) string {
	t.Helper()
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}
