package parley

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every benchmark the README and the docs quote exists: a figure without a
// benchmark in the repository that produces it is a figure nobody can check.
func TestManualBenchmarksExist(t *testing.T) {
	t.Parallel()
	var manual []byte
	for _, file := range manualFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		manual = append(manual, b...)
	}
	defined := map[string]bool{}
	definition := regexp.MustCompile(`(?m)^func (Benchmark\w+)\(b \*testing\.B\)`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range definition.FindAllSubmatch(src, -1) {
			defined[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(defined) == 0 {
		t.Fatal("no benchmark found in the repository's test files")
	}
	named := regexp.MustCompile(`\bBenchmark[A-Z]\w*`)
	for _, name := range named.FindAllString(string(manual), -1) {
		if !defined[name] {
			t.Errorf("the manual names %s, which no test file defines", name)
		}
	}
}
