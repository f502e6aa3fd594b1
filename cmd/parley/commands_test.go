package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
	"github.com/parleyhq/parley/debate/modes"
)

// The commands are values: each built by its own constructor,
// NewCmdX(f *factory.Factory, …), called in one place (subcommands for the
// commands beside root, the group's constructor for a group's commands);
// no init function registers anything.
func TestCommandsAreListedInOnePlace(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var constructors, listed []string
	calls := map[string]int{}
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
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok {
						calls[id.Name]++
						if fn.Name.Name == "subcommands" {
							listed = append(listed, id.Name)
						}
					}
				}
				return true
			})
		}
	}
	if len(constructors) < 30 || len(listed) < 15 {
		t.Errorf("command constructors %v\nlisted in subcommands %v", constructors, listed)
	}
	for _, c := range constructors {
		if n := calls[c]; n != 1 && c != "NewCmdRoot" {
			t.Errorf("%s is called in %d places, want one", c, n)
		}
	}
	for _, c := range listed {
		if !slices.Contains(constructors, c) {
			t.Errorf("subcommands calls %s, not a command constructor", c)
		}
	}
	// Every listed command is on the tree, once.
	root := newRootCmd(testFactory(modes.All(), factory.NewMap(nil), nil, io.Discard, io.Discard))
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

// isCommandConstructor reports whether fn is func NewCmdX(*factory.Factory, …) *cobra.Command.
func isCommandConstructor(fn *ast.FuncDecl) bool {
	params := fn.Type.Params.List
	if !strings.HasPrefix(fn.Name.Name, "NewCmd") || len(params) == 0 {
		return false
	}
	star, ok := params[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Factory"
}
