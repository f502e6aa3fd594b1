package main

import (
	"io"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
)

// outputWidth is how many columns a table printed to w may use: the
// terminal's width, else $COLUMNS, else 80.
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}
