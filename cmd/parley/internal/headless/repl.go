package headless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/sanitize"
	"github.com/parleyhq/parley/debate/spend"
)

// REPLOptions are the REPL's input and how it behaves.
type REPLOptions struct {
	In io.Reader
	// Interactive is true when In is a terminal, which echoes what is typed.
	Interactive bool
	// Interrupts delivers Ctrl+C, SIGTERM and SIGHUP (see Run).
	Interrupts <-chan os.Signal
}

// REPL reads lines until exit, quit or the end of input; each line is one
// exchange of the current mode, rendered by p. Ctrl+C follows the engine's
// one policy: it cancels the answer in flight (what arrived is kept); a
// second within two seconds, or one at the prompt, ends the REPL.
func REPL(ctx context.Context, e *debate.Engine, p *Printer, o REPLOptions) error {
	stdout, stderr := p.out, p.err
	unsubscribe := e.Subscribe(p.Sink)
	defer unsubscribe()
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case sig := <-o.Interrupts:
				if e.Interrupt() || sig != os.Interrupt { // SIGTERM, SIGHUP: end now
					quit()
				}
			}
		}
	}()
	interactive := o.Interactive
	lines, readErr := readLines(ctx, o.In)
	textOut := p.opts.Format == Text
	for {
		if interactive || textOut {
			fmt.Fprint(stdout, "> ")
		}
		var line string
		select {
		case <-ctx.Done():
			fmt.Fprintln(stderr)
			return nil
		case l, ok := <-lines:
			if !ok {
				if textOut {
					fmt.Fprintln(stdout)
				}
				return <-readErr
			}
			line = strings.TrimSpace(l)
		}
		if !interactive && textOut {
			// Piped input is not echoed by a terminal: echo it after the
			// prompt, so the output reads as a transcript ("> @all hi").
			fmt.Fprintln(stdout, sanitize.Text(line))
		}
		switch {
		case line == "":
			if mi, _ := e.Modes().Info(e.Current().Name()); !mi.StepOnEmpty {
				continue
			}
		case line == "exit" || line == "quit":
			return nil
		case strings.HasPrefix(line, "/mode"):
			name := strings.TrimSpace(strings.TrimPrefix(line, "/mode"))
			if err := e.SetMode(name); err != nil {
				fmt.Fprintln(stderr, "parley:", err)
			} else {
				fmt.Fprintf(stderr, "mode: %s\n", name)
			}
			continue
		}
		err := e.Submit(ctx, line)
		Drain(e)
		p.EndExchange(err)
		var unknown *debate.UnknownAgentError
		switch {
		case spend.IsCap(err):
			return err // the run's cap is reached: no further line can call (exit 4)
		case errors.As(err, &unknown):
			fmt.Fprintln(stderr, "parley:", err)
		case errors.Is(err, context.Canceled):
			fmt.Fprintln(stderr, "(cancelled)")
		case err != nil:
			fmt.Fprintln(stderr, "parley:", sanitize.Text(err.Error()))
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
