package main

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// On a terminal, `parley help TOPIC` renders the headings without their
// `## ` marks, and a page taller than the terminal goes through $PAGER; a
// terminal tall enough gets the page itself (issue 43, item 12). The real
// binary on a real pseudo-terminal.
func TestHelpOnATerminalPagesALongPage(t *testing.T) {
	bin := buildParley(t)
	t.Parallel()
	dir := isolate(t)
	pager := testPager(t, dir)
	show := func(rows uint16) string { return onTerminal(t, bin, rows, pager, "help", "console") }
	short := show(24)
	if !strings.Contains(short, "PAGED-BY-TEST") {
		t.Fatalf("a page taller than 24 rows was not paged:\n%.2000s", short)
	}
	tall := show(60000)
	if strings.Contains(tall, "PAGED-BY-TEST") {
		t.Fatal("a page shorter than the terminal was paged")
	}
	for _, l := range strings.Split(tall, "\n") {
		if plain := strings.TrimSpace(ansi.Strip(l)); strings.HasPrefix(plain, "## ") || strings.HasPrefix(plain, "### ") {
			t.Fatalf("a heading with its marks: %q", plain)
		}
	}
	if !strings.Contains(ansi.Strip(tall), "parley") {
		t.Fatalf("no page:\n%.2000s", tall)
	}
}
