// Package manpage shows a page of the manual (`parley help TOPIC`): for a
// pipe or a file, the Markdown with its headings' `#` marks taken off;
// for a terminal, rendered with plain bold headings, through a pager
// ($PAGER, else `less -R`) when it is taller than the terminal.
package manpage

import (
	"bytes"
	"io"
	"os"
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/term"

	"github.com/parleyhq/parley/cmd/parley/internal/pager"
)

// Show writes page to w: rendered and paged when w is a terminal, as
// Plain text otherwise. getenv reads $PAGER.
func Show(w io.Writer, page []byte, getenv func(string) string) error {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		_, err := w.Write(Plain(page))
		return err
	}
	width, height := 100, 0
	if cols, rows, err := term.GetSize(f.Fd()); err == nil {
		if cols > 20 {
			width = min(cols, 100)
		}
		height = rows
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(Style()), glamour.WithWordWrap(width))
	if err != nil {
		return err
	}
	text, err := r.Render(string(page))
	if err != nil {
		return err
	}
	if height > 0 && strings.Count(text, "\n") >= height && pager.Run(f, text, getenv) {
		return nil
	}
	_, err = io.WriteString(f, text)
	return err
}

// Style is glamour's dark style with the headings bold and unmarked: no
// `## ` before them.
func Style() gansi.StyleConfig {
	s := gstyles.DarkStyleConfig
	bold := true
	for _, h := range []*gansi.StyleBlock{&s.H1, &s.H2, &s.H3, &s.H4, &s.H5, &s.H6} {
		h.Prefix, h.Suffix, h.BackgroundColor = "", "", nil
		h.Bold = &bold
	}
	return s
}

// Plain is the Markdown page with each heading's leading `#` marks taken
// off (outside fenced code blocks, where a `#` is a comment).
func Plain(page []byte) []byte {
	var out bytes.Buffer
	fenced := false
	for line := range bytes.Lines(page) {
		trimmed := bytes.TrimLeft(line, " ")
		if bytes.HasPrefix(trimmed, []byte("```")) || bytes.HasPrefix(trimmed, []byte("~~~")) {
			fenced = !fenced
		}
		if !fenced && bytes.HasPrefix(line, []byte("#")) {
			rest := bytes.TrimLeft(line, "#")
			if n := len(line) - len(rest); n <= 6 && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\n') {
				line = bytes.TrimLeft(rest, " ")
			}
		}
		out.Write(line)
	}
	return out.Bytes()
}
