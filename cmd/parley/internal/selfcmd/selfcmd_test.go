package selfcmd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestName(t *testing.T) {
	root := t.TempDir()
	tmp := filepath.Join(root, "tmp")
	bin := filepath.Join(root, "bin", "parley")
	other := filepath.Join(root, "my dir", "parley")
	for _, p := range []string{filepath.Join(tmp, "go-run1", "exe", "parley"), bin, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	none := func(string) (string, error) { return "", errors.New("not found") }
	found := func(string) (string, error) { return bin, nil }
	for _, c := range []struct {
		exe  string
		look func(string) (string, error)
		want string
	}{
		{bin, found, "parley"},
		{bin, none, bin},
		{filepath.Join(tmp, "go-run1", "exe", "parley"), none, "go run ./cmd/parley"},
		{filepath.Join(tmp, "go-run1", "exe", "parley"), found, "go run ./cmd/parley"},
		{"/home/u/.cache/go-build/ab/parley", none, "go run ./cmd/parley"},
		{other, found, "'" + other + "'"},
	} {
		if got := name(c.exe, tmp, c.look); got != c.want {
			t.Errorf("name(%q) = %q, want %q", c.exe, got, c.want)
		}
	}
}
