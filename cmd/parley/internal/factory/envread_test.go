package factory

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The one door to the environment and the standard streams is the factory
// (main only makes it, with factory.System): a package that called os.Getenv itself could
// not be run by a test with an environment of its own, and would read what
// .env or a test never meant it to. Every Go file of the module but tests,
// testdata, vendored code (third_party) and the packages that exist only
// for tests is parsed.
func TestOnlyTheFactoryReadsTheEnvironment(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root: %v", err)
	}
	allowed := map[string]string{
		"cmd/parley/internal/factory":         "the factory",
		"cmd/parley/internal/testbin":         "test support: reads CI under go test only",
		"cmd/parley/internal/bench/gsm8ktest": "test support: reads CI under go test only",
		"debate/store/pgtest":                 "test support: reads CI under go test only",
	}
	reads := map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "Stdin": true, "Stdout": true, "Stderr": true}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "vendor" || name == "third_party") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if _, ok := allowed[filepath.ToSlash(rel)]; ok {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, use := range osReads(file, reads) {
			t.Errorf("%s: os.%s outside the factory: take it from the factory (f.Getenv, f.Env, f.IO) or a parameter it fills", fset.Position(use.Pos()), use.Sel.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 200 {
		t.Fatalf("only %d files checked: the walk missed the module", checked)
	}
}

// osReads are the selectors os.NAME (NAME in names) in file, whatever name
// it imports package os under.
func osReads(file *ast.File, names map[string]bool) []*ast.SelectorExpr {
	local := ""
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "os" {
			local = "os"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil
	}
	var found []*ast.SelectorExpr
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && names[sel.Sel.Name] {
				found = append(found, sel)
			}
		}
		return true
	})
	return found
}

// The check sees a read however os is imported, and nothing else.
func TestOSReadsFindsEveryForm(t *testing.T) {
	t.Parallel()
	src := `package p
import (
	sys "os"
	"strings"
)
func f() { _ = sys.Getenv("A"); _, _ = sys.LookupEnv("B"); _ = sys.Environ(); _ = sys.Stdout; _ = strings.Fields(""); _ = sys.Args }
`
	file, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range osReads(file, map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "Stdout": true}) {
		got = append(got, s.Sel.Name)
	}
	if strings.Join(got, " ") != "Getenv LookupEnv Environ Stdout" {
		t.Errorf("found %v", got)
	}
}
