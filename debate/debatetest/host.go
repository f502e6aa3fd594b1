package debatetest

import (
	"context"
	"errors"
	"sync"

	"github.com/parleyhq/parley/debate/checkpoint"
)

// ScriptedHost is a run's host for tests: it answers the checkpoints it is
// asked with Answers in order, each checked against its point as a door
// checks what the host typed, and records the points in Asked. With no
// answer left it fails, as a host that is gone.
type ScriptedHost struct {
	mu      sync.Mutex
	Answers []checkpoint.Answer
	Asked   []checkpoint.Point
}

// Answer implements checkpoint.Host.
func (h *ScriptedHost) Answer(_ context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Asked = append(h.Asked, p)
	if len(h.Answers) == 0 {
		return checkpoint.Answer{}, errors.New("no answer left")
	}
	a := h.Answers[0]
	h.Answers = h.Answers[1:]
	if err := a.Check(p); err != nil {
		return checkpoint.Answer{}, err
	}
	return a, nil
}
