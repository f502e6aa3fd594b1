package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/parleyhq/parley/debate"
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
ends it (so does end of input). Ctrl+C cancels the answer in flight.
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
			p := a.printer(g.json)
			a.engine.Subscribe(p.Sink)
			return a.repl(cmd.Context(), p)
		},
	}
	addSessionFlag(cmd, g)
	return cmd
}

func (a *app) repl(ctx context.Context, p *printer) error {
	in := a.stdin
	interactive := false
	if f, ok := in.(*os.File); ok {
		interactive = term.IsTerminal(f.Fd())
	}
	// Ctrl+C cancels the exchange in flight; at the prompt it ends the REPL.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
			if a.engine.Busy() {
				a.engine.Cancel()
				continue
			}
			fmt.Fprintln(a.stderr)
			a.Close() // the store writes what is pending
			os.Exit(exitOK)
		}
	}()
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for {
		if interactive || !a.flags.json {
			fmt.Fprint(a.stdout, "> ")
		}
		if !scanner.Scan() {
			if !a.flags.json {
				fmt.Fprintln(a.stdout)
			}
			return scanner.Err()
		}
		line := strings.TrimSpace(scanner.Text())
		if !interactive && !a.flags.json {
			// Piped input is not echoed by a terminal: echo it after the
			// prompt, so the output reads as a transcript ("> @all hi").
			fmt.Fprintln(a.stdout, sanitize(line))
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
		p.summary()
		var unknown *debate.UnknownAgentError
		switch {
		case errors.As(err, &unknown):
			fmt.Fprintln(a.stderr, "parley:", err)
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(a.stderr, "(cancelled)")
		case err != nil:
			fmt.Fprintln(a.stderr, "parley:", err)
		}
	}
}
