package parley

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/development.md is the package map: every package of the module has
// its line there (its folder, first on the line), and no line names a
// folder that holds no package any more.
func TestDevelopmentMapNamesEveryPackage(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	start := strings.Index(md, "```\n")
	end := strings.Index(md[start+4:], "```\n")
	if start < 0 || end < 0 {
		t.Fatal("docs/development.md has no map (a fenced block first)")
	}
	mapped := map[string]bool{}
	for _, l := range strings.Split(md[start+4:start+4+end], "\n") {
		if f := strings.Fields(l); len(f) > 0 && (strings.HasSuffix(f[0], "/") || f[0] == ".") {
			mapped[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	packages := map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module (third_party/…), not this one's packages
			}
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			packages[filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(packages) < 30 {
		t.Fatalf("found only %d packages", len(packages))
	}
	for p := range packages {
		if !mapped[p] {
			t.Errorf("package %s has no line in docs/development.md's map", p)
		}
	}
	for p := range mapped {
		if !packages[p] {
			t.Errorf("docs/development.md's map names %s/, which holds no package", p)
		}
	}
}
