package debate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/checkpoint"
)

// A run waiting at a checkpoint is durable: the point and what its mode
// needs to go on from it are saved in the session's state (statePending,
// written by the store like every mode state) before the host is asked, the
// session's lease is given back while it waits, and a later process
// resumes the run from the point (Engine.ResumeCheckpoint).

// statePending is the session state key of the checkpoint a run waits at.
const statePending = "checkpoint"

// pendingCheckpoint is a run waiting for its host, as saved.
type pendingCheckpoint struct {
	checkpoint.Point
	// Resume is the mode's own state to go on from the point.
	Resume string    `json:"resume,omitempty"`
	Since  time.Time `json:"since"`
	// Deadline is when checkpoint_timeout answers for the host (zero: none).
	Deadline time.Time `json:"deadline,omitzero"`
	// Policy is the policy the run paused under, so a door that did not
	// start the run (serve answering a point a headless run saved) asks
	// the host where the run's own policy says.
	Policy checkpoint.Policy `json:"policy,omitempty"`
	// Mode is the mode the run waits in ("": the current one, as saved
	// before it was kept): the run goes on in it even after the session
	// was switched to another.
	Mode string `json:"mode,omitempty"`
}

// CheckpointResumer is a mode that can go on from a saved checkpoint: it
// restores its run from resume, asks the host at p again (Session.Checkpoint)
// and goes on as if it had never stopped.
type CheckpointResumer interface {
	ResumeCheckpoint(ctx context.Context, p checkpoint.Point, resume string) error
}

// ErrNoPending refuses a resumption of a session that waits at no checkpoint.
var ErrNoPending = errors.New("no run of this session waits at a checkpoint")

// savePending saves the point a run waits at (nil: none), and reports
// whether it did: a state over maxPendingState is not saved, and the run
// keeps a note saying so (checkpointcap.go).
func (e *Engine) savePending(p *pendingCheckpoint) bool {
	if p == nil {
		e.SetState(statePending, "")
		return true
	}
	b, err := json.Marshal(p)
	if err != nil || len(b) > maxPendingState {
		e.AddEntry(tooLargeToSave(p.Point, len(b)))
		return false
	}
	e.SetState(statePending, string(b))
	return true
}

// Pending is the checkpoint the session's run waits at, if one does: once
// it is saved and the session's lease given back (hosting.saving).
func (e *Engine) Pending() (pendingCheckpoint, bool) {
	if e.hosting.isSaving() {
		return pendingCheckpoint{}, false
	}
	raw := e.State(statePending)
	if raw == "" || len(raw) > maxPendingState {
		return pendingCheckpoint{}, false
	}
	var p pendingCheckpoint
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return pendingCheckpoint{}, false
	}
	p.Point.Resume = p.Resume
	return p, true
}

// ResumeCheckpoint goes on with the run that waits at the session's saved
// checkpoint, as one exchange of the mode it waits in: the host is asked
// at the point again and the run goes on from there.
func (e *Engine) ResumeCheckpoint(ctx context.Context) error {
	p, ok := e.Pending()
	if !ok {
		return ErrNoPending
	}
	m := e.pendingMode(p)
	if resumableTool(p) { // the engine's own: a turn waiting on a call (toolresume.go)
		return e.exchangeOf(ctx, m, "", func(ctx context.Context, _ string) error {
			defer e.hosting.underSaved(p.Policy)()
			return e.resumeToolTurn(ctx, p)
		})
	}
	r, ok := m.(CheckpointResumer)
	if !ok || p.Point.Resume == "" {
		return fmt.Errorf("the run waiting at a checkpoint cannot go on in %s mode", m.Name())
	}
	return e.exchangeOf(ctx, m, "", func(ctx context.Context, _ string) error {
		defer e.hosting.underSaved(p.Policy)()
		return r.ResumeCheckpoint(ctx, p.Point, p.Resume)
	})
}

// leaseHold is an exchange's hold on the session's lease, which a
// checkpoint gives back and takes again.
type leaseHold struct {
	mu      sync.Mutex
	release func() // nil while not held
	take    func(ctx context.Context) (func(), error)
}

func (h *leaseHold) drop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.release != nil {
		h.release()
		h.release = nil
	}
}

func (h *leaseHold) retake(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.release != nil {
		return nil
	}
	r, err := h.take(ctx)
	if err != nil {
		return err
	}
	h.release = r
	return nil
}

// pendingMode is the mode the saved point's run waits in: its own when it
// is known and still configured, else the current one.
func (e *Engine) pendingMode(p pendingCheckpoint) Mode {
	if p.Mode != "" {
		if m, err := e.Mode(p.Mode); err == nil {
			return m
		}
	}
	return e.Current()
}
