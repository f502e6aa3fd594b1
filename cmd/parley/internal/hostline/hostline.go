// Package hostline is the headless commands' host: at each checkpoint it
// prints what happened and the choices on stderr and reads exactly one
// line from stdin (checkpoint.ParseLine says what the line means). A
// stdin at its end is an error naming --checkpoint, so a script never
// hangs at a checkpoint it did not answer.
package hostline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate/checkpoint"
	"github.com/parleyhq/parley/debate/sanitize"
)

// maxLine bounds one answer line (a note is at most checkpoint.MaxText
// runes, four bytes each at worst).
const maxLine = 4*checkpoint.MaxText + 64

// ErrNoAnswer is a checkpoint reached with stdin at its end.
var ErrNoAnswer = errors.New("--checkpoint: the run reached a checkpoint and stdin is at its end; give one line per checkpoint on stdin (empty: continue, stop, drop NAME, swap NAME AGENT, approve, deny REASON, or a note), or run without --checkpoint")

// Host reads the host's answers from one reader, one line a checkpoint.
type Host struct {
	out io.Writer

	once  sync.Once
	in    io.Reader
	lines chan line // read ahead by one line at most
	want  chan struct{}
	// pending: a line was asked for and not yet taken (a run cancelled
	// while waiting); the next point takes it. The engine asks one point
	// at a time.
	pending bool
}

type line struct {
	text string
	err  error
}

// New is a host reading in and prompting on out.
func New(in io.Reader, out io.Writer) *Host {
	return &Host{in: in, out: out, lines: make(chan line), want: make(chan struct{})}
}

// read reads one line each time it is asked, on its own goroutine: a run
// cancelled while its host waits (Ctrl+C) does not wait for a line.
func (h *Host) read() {
	sc := bufio.NewScanner(h.in)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for range h.want {
		if sc.Scan() {
			h.lines <- line{text: sc.Text()}
			continue
		}
		err := sc.Err()
		if err == nil {
			err = io.EOF
		}
		h.lines <- line{err: err}
		for range h.want { // at its end it stays there
			h.lines <- line{err: err}
		}
		return
	}
}

// Answer implements checkpoint.Host: it prints the point and reads a line
// until one is an answer the point takes.
func (h *Host) Answer(ctx context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
	h.once.Do(func() { go h.read() })
	fmt.Fprintf(h.out, "parley: %s\nparley: %s\n> ", sanitize.Text(checkpoint.PointSentence(p)), sanitize.Text(p.Prompt()))
	for {
		if !h.pending {
			h.want <- struct{}{} // the reader waits for nothing else
			h.pending = true
		}
		var l line
		select {
		case l = <-h.lines:
			h.pending = false
		case <-ctx.Done():
			fmt.Fprintln(h.out)
			return checkpoint.Answer{}, ctx.Err()
		}
		if errors.Is(l.err, io.EOF) {
			fmt.Fprintln(h.out)
			return checkpoint.Answer{}, cli.Usage(ErrNoAnswer)
		}
		if l.err != nil {
			fmt.Fprintln(h.out)
			return checkpoint.Answer{}, cli.Usage(fmt.Errorf("--checkpoint: reading the host's answer: %w", l.err))
		}
		a, err := checkpoint.ParseLine(l.text, p)
		if err == nil {
			return a, nil
		}
		fmt.Fprintf(h.out, "parley: %s; try again\n> ", sanitize.Text(err.Error()))
	}
}
