package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/cmd/parley/internal/headless"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
)

func init() {
	subcommands = append(subcommands, newReplCmd)
}

func newReplCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "repl",
		Short: "Plain line REPL (no full screen)",
		Long: `A line-by-line REPL with the prompt "> ". In mention mode, @name lines ask
agents and plain lines are notes. /mode NAME switches the mode; exit or quit
ends it (so does end of input). Ctrl+C cancels the answer in flight; a
second Ctrl+C within two seconds, or one at the prompt, ends the REPL.
Works with stdin from a pipe.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := newApp(cmd, g, "")
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.requireKeys(); err != nil {
				return err
			}
			return a.repl(cmd.Context(), a.printer(headless.Conversation))
		},
	}
	addSessionFlag(cmd, g)
	return cmd
}

// repl reads lines until exit, quit or the end of input. Ctrl+C follows the
// engine's one policy: it cancels the answer in flight (what arrived is
// kept); a second within two seconds, or one at the prompt, ends the REPL.
func (a *app) repl(ctx context.Context, p *headless.Printer) error {
	unsubscribe := a.engine.Subscribe(p.Sink)
	defer unsubscribe()
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
				if a.engine.Interrupt() {
					quit()
				}
			}
		}
	}()
	in := a.stdin
	interactive := false
	if f, ok := in.(*os.File); ok {
		interactive = term.IsTerminal(f.Fd())
	}
	lines, readErr := readLines(ctx, in)
	textOut := a.format() == headless.Text
	for {
		if interactive || textOut {
			fmt.Fprint(a.stdout, "> ")
		}
		var line string
		select {
		case <-ctx.Done():
			fmt.Fprintln(a.stderr)
			return nil
		case l, ok := <-lines:
			if !ok {
				if textOut {
					fmt.Fprintln(a.stdout)
				}
				return <-readErr
			}
			line = strings.TrimSpace(l)
		}
		if !interactive && textOut {
			// Piped input is not echoed by a terminal: echo it after the
			// prompt, so the output reads as a transcript ("> @all hi").
			fmt.Fprintln(a.stdout, sanitize.Text(line))
		}
		switch {
		case line == "":
			if a.engine.Current().Name() != "alternate" {
				continue
			}
		case line == "exit" || line == "quit":
			return nil
		case strings.HasPrefix(line, "/mode"):
			name := strings.TrimSpace(strings.TrimPrefix(line, "/mode"))
			if err := a.engine.SetMode(name); err != nil {
				fmt.Fprintln(a.stderr, "parley:", err)
			} else {
				fmt.Fprintf(a.stderr, "mode: %s\n", name)
			}
			continue
		}
		err := a.engine.Submit(ctx, line)
		headless.Drain(a.engine)
		p.EndExchange(err)
		var unknown *debate.UnknownAgentError
		switch {
		case errors.As(err, &unknown):
			fmt.Fprintln(a.stderr, "parley:", err)
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(a.stderr, "(cancelled)")
		case err != nil:
			fmt.Fprintln(a.stderr, "parley:", sanitize.Text(err.Error()))
		}
	}
}

// readLines delivers the lines of in until its end (then the read error,
// nil at a clean end) or until ctx ends.
func readLines(ctx context.Context, in io.Reader) (<-chan string, <-chan error) {
	lines, readErr := make(chan string), make(chan error, 1)
	go func() {
		defer close(lines)
		scanner := bufio.NewScanner(in)
		scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
		for scanner.Scan() {
			select {
			case lines <- scanner.Text():
			case <-ctx.Done():
				readErr <- nil
				return
			}
		}
		readErr <- scanner.Err()
	}()
	return lines, readErr
}
