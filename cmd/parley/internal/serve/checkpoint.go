package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/parleyhq/parley/cmd/parley/internal/hostwait"
	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
)

// The host in the loop over HTTP: a session created with a checkpoint
// policy waits for its host at its mode's checkpoints (state
// awaiting_host, the checkpoint event on its stream and webhooks), and
// POST /api/v1/sessions/{id}/checkpoint answers. A session waiting at a
// checkpoint saved by a process that ended (a restart, an eviction) goes
// on from it when answered. Sessions of the synchronous doors (/api/v1/magi,
// the seed, the OpenAI door) never wait: they have no policy.

// stateCheckpoint is the session state key of its checkpoint policy, so a
// session loaded again waits where it did.
const stateCheckpoint = "serve.checkpoint"

// Session statuses (GET /api/v1/sessions/{id}: status).
const (
	statusIdle         = "idle"
	statusRunning      = "running"
	statusAwaitingHost = "awaiting_host"
)

// attachHost gives the session its host when its policy pauses, or when
// its run waits at a point another door saved (a headless run's
// --checkpoint): then under the policy that run paused under, so the
// answer over the API goes on from it.
func (ss *session) attachHost() {
	pol := checkpoint.Policy(ss.eng.State(stateCheckpoint))
	if pending, ok := ss.eng.Pending(); ok && (pol == "" || pol == checkpoint.Never) {
		pol = cmp.Or(pending.Policy, checkpoint.EachRound) // saved before the policy was: it paused there
	}
	if pol == "" || pol == checkpoint.Never {
		ss.eng.SetHost(nil, "")
		return
	}
	h := hostwait.New()
	ss.mu.Lock()
	ss.host = h
	ss.mu.Unlock()
	ss.eng.SetHost(h, pol)
}

// hostOf is the session's host (nil: it never waits).
func (ss *session) hostOf() *hostwait.Host {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.host
}

// status is the session's state: awaiting_host while a run waits for its
// host (here or saved by a process that ended), running, or idle.
func (ss *session) status() string {
	if _, waiting := ss.eng.Pending(); waiting {
		return statusAwaitingHost
	}
	if h := ss.hostOf(); h != nil {
		if _, waiting := h.Waiting(); waiting {
			return statusAwaitingHost // a tool call
		}
	}
	if ss.busy() {
		return statusRunning
	}
	return statusIdle
}

// waitingPoint is the point the session's run waits at, if one does.
func (ss *session) waitingPoint() (checkpoint.Point, bool) {
	if h := ss.hostOf(); h != nil {
		if p, ok := h.Waiting(); ok {
			return p, true
		}
	}
	if p, ok := ss.eng.Pending(); ok {
		return p.Point, true
	}
	return checkpoint.Point{}, false
}

func (s *Server) answerCheckpoint(w http.ResponseWriter, r *http.Request) error {
	var a checkpoint.Answer
	if err := decode(w, r, s.opts.MaxBody, &a); err != nil {
		return err
	}
	a.TimedOut = false // the host's own answer
	user := userOf(r)
	ss, err := s.sessions.get(r.Context(), r.PathValue("id"), user)
	if err != nil {
		return err
	}
	if err := s.limit(w, r, user); err != nil {
		return err
	}
	host := ss.hostOf()
	if host == nil {
		return errorf(http.StatusConflict, "not_waiting", "session %s has no checkpoints (create it with \"checkpoint\": \"each_round\" or \"on_split\")", ss.id)
	}
	if ss.eng.Busy() { // the run is here: its host is asked, or about to be
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		if err := host.GiveWhenAsked(ctx, a); err != nil {
			return answerRefused(err)
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	}
	pending, ok := ss.eng.Pending()
	if !ok {
		return errorf(http.StatusConflict, "not_waiting", "%s", hostwait.ErrNotWaiting.Error())
	}
	// Saved by a process that ended: the run goes on from it here, and
	// this answer is its host's at the point.
	if err := host.Preset(pending.Point, a); err != nil {
		return answerRefused(err)
	}
	if err := s.sessions.resume(ss); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

func answerRefused(err error) error {
	if errors.Is(err, hostwait.ErrNotWaiting) {
		return errorf(http.StatusConflict, "not_waiting", "%s", err.Error())
	}
	return errorf(http.StatusBadRequest, "bad_answer", "%s", err.Error())
}

// resume runs the session's saved checkpoint on in the background.
func (m *manager) resume(ss *session) error {
	if err := ss.claim(); err != nil {
		return err
	}
	go func() {
		defer ss.release()
		err := ss.eng.ResumeCheckpoint(m.srv.ctx)
		if err != nil && !errors.Is(err, context.Canceled) {
			m.srv.logf("session %s: %v", ss.id, fmt.Errorf("resuming at its checkpoint: %w", err))
		}
	}()
	return nil
}

// checkpointPolicy reads a session request's checkpoint policy.
func checkpointPolicy(s string) (checkpoint.Policy, error) {
	p, err := checkpoint.ParsePolicy(s)
	if err != nil {
		return "", errorf(http.StatusBadRequest, "bad_field", "checkpoint: %s", err.Error())
	}
	return p, nil
}

// refuseWhileAsking refuses a question to a session whose run waits for
// its host in this process (a saved point is the engine's to refuse: it
// knows whether the run can still go on from it).
func (ss *session) refuseWhileAsking() error {
	if !ss.eng.Busy() {
		return nil
	}
	if p, ok := ss.waitingPoint(); ok {
		return awaitingHost(&debate.PendingError{Point: p})
	}
	return nil
}

// awaitingHost is the 409 for a question while the run waits for its
// host: the core's sentence, and where this door answers.
func awaitingHost(err error) error {
	return errorf(http.StatusConflict, "awaiting_host", "%s (POST /api/v1/sessions/{id}/checkpoint)", err.Error())
}
