package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
)

// The console is its runs' host: at a checkpoint the rule above the input
// becomes the checkpoint bar (the choices and their keys), the status line
// says what happened, the panels stay; the next line typed is the answer
// (checkpoint.ParseLine: Enter continues, stop, drop NAME, a note…).

// consoleHost answers checkpoints with the lines the console hands it.
type consoleHost struct {
	answers chan checkpoint.Answer
}

func newConsoleHost() *consoleHost { return &consoleHost{answers: make(chan checkpoint.Answer, 1)} }

// Answer implements checkpoint.Host.
func (h *consoleHost) Answer(ctx context.Context, _ checkpoint.Point) (checkpoint.Answer, error) {
	select {
	case a := <-h.answers:
		return a, nil
	case <-ctx.Done():
		return checkpoint.Answer{}, ctx.Err()
	}
}

// give hands the waiting run its answer (one at a time).
func (h *consoleHost) give(a checkpoint.Answer) {
	select {
	case h.answers <- a:
	default: // one is already waiting to be taken
	}
}

// forget drops an answer no run took (the run ended meanwhile).
func (h *consoleHost) forget() {
	select {
	case <-h.answers:
	default:
	}
}

// answerCheckpoint reads the input as the host's answer at the waiting
// point: a line the point does not take stays, with the reason.
func (m *Model) answerCheckpoint() tea.Cmd {
	a, err := checkpoint.ParseLine(m.in.Value(), m.waiting.Point)
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	m.in.Take()
	m.host.give(a)
	return nil
}

// checkpointRule is the bar above the input while a run waits.
func (m *Model) checkpointRule() string {
	return " ⏸ " + Sanitize(m.waiting.Point.Prompt()) + " "
}

// resumeCheckpoint goes on with the run the session waits at (a session
// resumed while its run waited for its host).
func (m *Model) resumeCheckpoint() tea.Cmd {
	if _, waiting := m.engine.Pending(); !waiting {
		return nil
	}
	e, ctx := m.engine, m.opts.Context
	return func() tea.Msg {
		err := e.ResumeCheckpoint(ctx)
		if err == debate.ErrNoPending {
			err = nil
		}
		return doneMsg{err: err}
	}
}
