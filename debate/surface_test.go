package debate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// maxRootNames bounds what debate's root exports (issue 44: "at most
// ~200"), counted as the issue counted: every exported top-level name and
// every exported method, whatever its receiver. A concern that grows past
// it belongs in a room of its own (transcript, verdict, dialogue, …).
const maxRootNames = 200

// The root's exported surface stays small: read from its source, test
// files excluded.
func TestRootSurface(t *testing.T) {
	t.Parallel()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var top, methods, onExported int
	for _, f := range files {
		name := f.Name()
		if f.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				switch {
				case !d.Name.IsExported():
				case d.Recv == nil:
					top++
				default:
					methods++
					if receiverExported(d.Recv.List[0].Type) {
						onExported++
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							top++
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								top++
							}
						}
					}
				}
			}
		}
	}
	t.Logf("debate exports %d top-level names and %d methods (%d of them on exported types, as go doc lists them): %d in all",
		top, methods, onExported, top+methods)
	if top == 0 || methods == 0 {
		t.Fatal("read no declarations: the test no longer runs in the package's folder")
	}
	if top+methods > maxRootNames {
		t.Errorf("debate's root exports %d names, more than %d: move a concern into a room of its own", top+methods, maxRootNames)
	}
}

func receiverExported(expr ast.Expr) bool {
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	switch x := expr.(type) {
	case *ast.IndexExpr:
		expr = x.X
	case *ast.IndexListExpr:
		expr = x.X
	}
	id, ok := expr.(*ast.Ident)
	return ok && id.IsExported()
}
