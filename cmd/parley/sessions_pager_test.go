package main

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// On a terminal, `parley sessions list` taller than the terminal goes
// through $PAGER; shorter, or into a pipe, it is written as it is (issue
// 50). The real binary on a real pseudo-terminal.
func TestSessionsListPagesATallListAtATerminal(t *testing.T) {
	bin := buildParley(t)
	t.Parallel()
	dir := isolate(t)
	for range 3 {
		if code, _, errOut := runCLI(t, "", "--demo", "ask", "@chatgpt hi"); code != 0 {
			t.Fatalf("ask: exit %d: %s", code, errOut)
		}
	}
	pager := testPager(t, dir)
	list := func(rows uint16) string { return onTerminal(t, bin, rows, pager, "sessions", "list") }
	// A header and three sessions: four lines.
	if out := list(4); !strings.Contains(out, "PAGED-BY-TEST") || strings.Count(out, "mention") < 3 {
		t.Fatalf("four lines on a terminal of four rows were not paged whole:\n%s", out)
	}
	if out := list(5); strings.Contains(out, "PAGED-BY-TEST") || strings.Count(out, "mention") < 3 {
		t.Fatalf("four lines on a terminal of five rows were paged, or lost:\n%s", out)
	}
	cmd := exec.Command(bin, "sessions", "list")
	cmd.Env, cmd.Dir = environ(t, "PAGER="+pager), workdir(t)
	out, err := cmd.Output()
	if err != nil || strings.Contains(string(out), "PAGED-BY-TEST") || strings.Count(string(out), "\n") != 4 {
		t.Fatalf("into a pipe: %v\n%s", err, out)
	}
}

// testPager writes a $PAGER that marks what it pages.
func testPager(t *testing.T, dir string) string {
	t.Helper()
	pager := filepath.Join(dir, "pager.sh")
	writeExecutable(t, pager, []byte("#!/bin/sh\necho PAGED-BY-TEST\ncat\n"))
	return pager
}

// onTerminal runs the binary with args on a pseudo-terminal of rows rows
// and 100 columns, $PAGER set to pager, and returns what it showed.
func onTerminal(t *testing.T, bin string, rows uint16, pager string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = environ(t, "PAGER="+pager, "TERM=xterm-256color"), workdir(t)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, _ = io.Copy(&out, f) // until the child closes the terminal (EIO)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out.String())
	}
	_ = f.Close()
	return out.String()
}
