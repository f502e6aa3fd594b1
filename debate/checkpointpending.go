package debate

import (
	"errors"

	"github.com/parleyhq/parley/debate/checkpoint"
)

// A run waiting for its host is not abandoned by a new question: the
// question is refused (PendingError) with one sentence every door prints
// (checkpoint.PendingSentence), naming the point and its choices, and the
// run still waits there. Answering the point (stop included) frees the
// session for the next question.

// PendingError refuses a new question while the session's run waits for
// its host at Point (asked in this process, or saved by one that ended).
type PendingError struct{ Point checkpoint.Point }

func (e *PendingError) Error() string { return checkpoint.PendingSentence(e.Point) }

// IsPending reports whether err refused a question because the run waits
// at a checkpoint.
func IsPending(err error) bool {
	var p *PendingError
	return errors.As(err, &p)
}

// Waiting is the point the session's run waits at: the one its host is
// being asked now in this process, or the one a process saved.
func (e *Engine) Waiting() (checkpoint.Point, bool) {
	if p, ok := e.askedNow(); ok {
		return p, true
	}
	if p, ok := e.Pending(); ok {
		return p.Point, true
	}
	return checkpoint.Point{}, false
}

// refusePending is the refusal of a question while the run waits. A
// saved point no mode can go on from (saved without its mode's state) is
// let go: nothing could ever answer it.
func (e *Engine) refusePending() error {
	if p, live := e.askedNow(); live {
		return refused(&PendingError{Point: p})
	}
	saved, ok := e.Pending()
	if !ok {
		return nil
	}
	if _, can := e.pendingMode(saved).(CheckpointResumer); (!can || saved.Resume == "") && !resumableTool(saved) {
		e.savePending(nil)
		return nil
	}
	return refused(&PendingError{Point: saved.Point})
}

func (e *Engine) askedNow() (checkpoint.Point, bool) {
	e.hosting.mu.Lock()
	defer e.hosting.mu.Unlock()
	if e.hosting.asked == nil {
		return checkpoint.Point{}, false
	}
	return *e.hosting.asked, true
}

func (h *hosting) setAsked(p *checkpoint.Point) {
	h.mu.Lock()
	h.asked = p
	h.mu.Unlock()
}
