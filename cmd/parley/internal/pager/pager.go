// Package pager shows text taller than the terminal through a pager
// ($PAGER, else `less -R`), as git and man do: the manual's pages and
// `parley sessions list`. Text for a pipe or a file, or shorter than the
// terminal, is written as it is.
package pager

import (
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/charmbracelet/x/term"
)

// Write writes text to w, through the pager when w is a terminal and text
// has at least as many lines as it has rows. getenv reads $PAGER.
func Write(w io.Writer, text string, getenv func(string) string) error {
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if _, rows, err := term.GetSize(f.Fd()); err == nil && rows > 0 && strings.Count(text, "\n") >= rows && Run(f, text, getenv) {
			return nil
		}
	}
	_, err := io.WriteString(w, text)
	return err
}

// Run runs the pager on text, its output (and its complaints) the
// terminal tty; false when no
// pager could start (the caller then writes the text itself). $PAGER is a
// shell command line, as git and man take it.
func Run(tty *os.File, text string, getenv func(string) string) bool {
	var cmd *exec.Cmd
	if p := strings.TrimSpace(getenv("PAGER")); p != "" {
		cmd = exec.Command("/bin/sh", "-c", p)
	} else {
		path, err := exec.LookPath("less")
		if err != nil {
			return false
		}
		cmd = exec.Command(path, "-R")
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), tty, tty
	if err := cmd.Start(); err != nil {
		return false
	}
	_ = cmd.Wait() // quitting the pager early (q) is no error of ours
	return true
}
