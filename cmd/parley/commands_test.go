package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate/modes"
)

// The commands are values: each built by its own constructor and listed in
// subcommands, nowhere else; no init function registers anything.
func TestCommandsAreListedInOnePlace(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var constructors, listed []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			if fn.Name.Name == "init" {
				t.Errorf("%s: an init function (commands are listed in subcommands)", fset.Position(fn.Pos()))
			}
			if isCommandConstructor(fn) {
				constructors = append(constructors, fn.Name.Name)
			}
			if fn.Name.Name == "subcommands" {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						if id, ok := call.Fun.(*ast.Ident); ok {
							listed = append(listed, id.Name)
						}
					}
					return true
				})
			}
		}
	}
	slices.Sort(constructors)
	slices.Sort(listed)
	if len(constructors) < 15 || !slices.Equal(constructors, listed) {
		t.Errorf("command constructors %v\nlisted in subcommands %v", constructors, listed)
	}
	// Every listed command is on the tree, once.
	root := newRootCmd(testPace, modes.All())
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	for _, want := range []string{"agent", "alternate", "ask", "bench", "config", "council", "doctor", "magi", "mcp", "models", "repl", "serve", "sessions", "talk", "version", "webhooks"} {
		if n := strings.Count(" "+strings.Join(names, " ")+" ", " "+want+" "); n != 1 {
			t.Errorf("%q is on the command tree %d times (tree: %v)", want, n, names)
		}
	}
}

// isCommandConstructor reports whether fn is func newXCmd(*globalFlags) *cobra.Command.
func isCommandConstructor(fn *ast.FuncDecl) bool {
	name := fn.Name.Name
	if !strings.HasPrefix(name, "new") || !strings.HasSuffix(name, "Cmd") || name == "newRootCmd" || name == "newHelpCmd" {
		return false
	}
	params := fn.Type.Params.List
	if len(params) != 1 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "globalFlags"
}
