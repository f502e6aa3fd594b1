// Package hostwait is the host of a run answered from elsewhere (the HTTP
// API, the web page, MCP): a checkpoint waits until Give hands it an
// answer, and Waiting says which point waits meanwhile. An answer for a
// run that waits at a saved checkpoint no process is running (Preset)
// is taken by the resumed run's first question.
package hostwait

import (
	"context"
	"errors"
	"sync"

	"github.com/parleyhq/parley/debate/checkpoint"
)

// ErrNotWaiting: no run waits for its host.
var ErrNotWaiting = errors.New("no run of this session waits for its host")

// Host is a checkpoint.Host answered through Give.
type Host struct {
	mu      sync.Mutex
	point   *checkpoint.Point
	answers chan checkpoint.Answer // the waiting point's, one slot
	preset  *checkpoint.Answer
	// asked is closed when a point is next published (GiveWhenAsked).
	asked chan struct{}
}

// New returns a host with nothing waiting.
func New() *Host { return &Host{asked: make(chan struct{})} }

// Answer implements checkpoint.Host: it waits for Give (or takes the
// preset answer at once).
func (h *Host) Answer(ctx context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
	h.mu.Lock()
	if h.preset != nil {
		a := *h.preset
		h.preset = nil
		h.mu.Unlock()
		return a, nil
	}
	ch := make(chan checkpoint.Answer, 1)
	h.point, h.answers = &p, ch
	close(h.asked)
	h.asked = make(chan struct{})
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		if h.answers == ch {
			h.point, h.answers = nil, nil
		}
		h.mu.Unlock()
	}()
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		return checkpoint.Answer{}, ctx.Err()
	}
}

// Waiting is the point a run waits at, if one does.
func (h *Host) Waiting() (checkpoint.Point, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.point == nil {
		return checkpoint.Point{}, false
	}
	return *h.point, true
}

// Give answers the waiting point; an answer it does not take is refused
// with the reason and changes nothing.
func (h *Host) Give(a checkpoint.Answer) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.point == nil {
		return ErrNotWaiting
	}
	if err := a.Check(*h.point); err != nil {
		return err
	}
	h.answers <- a
	h.point, h.answers = nil, nil
	return nil
}

// Preset keeps a for the next point asked (a resumed run asks its saved
// point again), after checking it against that point.
func (h *Host) Preset(p checkpoint.Point, a checkpoint.Answer) error {
	if err := a.Check(p); err != nil {
		return err
	}
	h.mu.Lock()
	h.preset = &a
	h.mu.Unlock()
	return nil
}

// GiveWhenAsked is Give once a point waits: a run that announced its
// checkpoint may not be asking yet (its doors are still catching up).
// It gives up when ctx ends.
func (h *Host) GiveWhenAsked(ctx context.Context, a checkpoint.Answer) error {
	for {
		h.mu.Lock()
		waiting, asked := h.point != nil, h.asked
		h.mu.Unlock()
		if waiting {
			return h.Give(a)
		}
		select {
		case <-asked:
		case <-ctx.Done():
			return ErrNotWaiting
		}
	}
}
