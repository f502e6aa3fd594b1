package main

import (
	"os/exec"
	"testing"
)

// environ is the whole environment a real parley that t runs gets
// (exec.Cmd.Env): isolate's variables and setenv's since, then extra
// ("KEY=value", later ones win). Nothing of the process's own environment
// but isolate's few (PATH, TMPDIR, LANG, TERM, CI) reaches the child, so
// the test can run in parallel; t must have called isolate.
func environ(t testing.TB, extra ...string) []string {
	t.Helper()
	e := envOf(t)
	if e == nil {
		t.Fatal("environ: the test has no environment of its own (call isolate first)")
	}
	return append(e.env.Environ(), extra...)
}

// workdir is the working directory of the parley t runs: isolate's folder,
// or chdir's since.
func workdir(t testing.TB) string {
	t.Helper()
	e := envOf(t)
	if e == nil {
		t.Fatal("workdir: the test has no environment of its own (call isolate first)")
	}
	return e.dir
}

// parleyCommand is the real binary run with args in t's own environment and
// working directory (see environ and workdir), extra added to the former.
func parleyCommand(t testing.TB, extra []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(buildParley(t), args...)
	cmd.Env, cmd.Dir = environ(t, extra...), workdir(t)
	return cmd
}
