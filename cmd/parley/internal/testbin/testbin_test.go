package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The cache key follows what the binary is built from: a source, go.sum or
// embedded asset changes it; a test, a doc or test data does not.
func TestSourceKeyFollowsBuildInputs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example\n")
	write("go.sum", "")
	write("main.go", "package main\n")
	write("web/static/app.js", "let a = 1\n")
	key := func() string {
		t.Helper()
		k, err := sourceKey(root)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	last := key()
	for _, c := range []struct {
		rel, body string
		changes   bool
	}{
		{"main_test.go", "package main\n", false},
		{"docs/page.md", "# doc\n", true}, // parley help embeds docs/
		{"testdata/x.json", "{}", false},
		{".git/HEAD", "ref", false},
		{"node_modules/a/index.js", "x", false},
		{"main.go", "package main\n\nfunc main() {}\n", true},
		{"go.sum", "example.com/x v1.0.0 h1:abc=\n", true},
		{"web/static/app.js", "let a = 2\n", true},
		{"more.go", "package main\n", true},
	} {
		write(c.rel, c.body)
		now := key()
		if (now != last) != c.changes {
			t.Errorf("writing %s: key changed %v, want %v", c.rel, now != last, c.changes)
		}
		last = now
	}
}

// Two callers in one process get the same binary, and it runs.
func TestParleyBuildsOnceAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	t.Parallel()
	a, b := Parley(t), Parley(t)
	if a != b {
		t.Fatalf("two paths for one source: %s, %s", a, b)
	}
	out, err := exec.Command(a, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "parley ") {
		t.Fatalf("%s version: %v\n%s", a, err, out)
	}
}

// The cache keeps the binary just built, at most cacheKeep others (the
// most recently used) and none unused for a day.
func TestPruneBoundsTheCache(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	now := time.Now()
	mk := func(name string, age time.Duration) {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	mk("current", 48*time.Hour) // the one just built is kept whatever its time
	for i := range cacheKeep + 3 {
		mk(fmt.Sprintf("v%02d", i), time.Duration(i)*time.Minute)
	}
	mk("old", 25*time.Hour)
	prune(base, "current")
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"current"}
	for i := range cacheKeep {
		want = append(want, fmt.Sprintf("v%02d", i))
	}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
