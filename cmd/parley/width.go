package main

import (
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"

	"github.com/parleyhq/parley/cmd/parley/internal/factory"
)

// outputWidth is how many columns a table printed to f's stdout may use:
// the terminal's width, else $COLUMNS, else 80.
func outputWidth(f *factory.Factory) int {
	if out, ok := f.IO.Out.(*os.File); ok && f.IO.OutTTY {
		if cols, _, err := term.GetSize(out.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(f.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}
