package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// On a terminal, `parley help TOPIC` renders the headings without their
// `## ` marks, and a page taller than the terminal goes through $PAGER; a
// terminal tall enough gets the page itself (issue 43, item 12). The real
// binary on a real pseudo-terminal.
func TestHelpOnATerminalPagesALongPage(t *testing.T) {
	bin := buildParley(t)
	dir := isolate(t)
	pager := filepath.Join(dir, "pager.sh")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\necho PAGED-BY-TEST\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	show := func(rows uint16) string {
		cmd := exec.Command(bin, "help", "console")
		cmd.Env = append(os.Environ(), "PAGER="+pager, "TERM=xterm-256color")
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, _ = io.Copy(&out, f) // until the child closes the terminal (EIO)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("help console: %v\n%s", err, out.String())
		}
		_ = f.Close()
		return out.String()
	}
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
