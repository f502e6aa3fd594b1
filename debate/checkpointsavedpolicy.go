package debate

import "github.com/parleyhq/parley/debate/checkpoint"

// A run resumed from a saved checkpoint goes on under the policy it paused
// under (pendingCheckpoint.Policy) when the door resuming it sets none of
// its own: the console (`parley --resume ID`) leaves each mode's configured
// policy in force, which may be never, and the host would otherwise not be
// asked at the very point the run waits at, nor at the run's later ones.

// underSaved makes pol the run's policy while a resumed run goes on, when
// the door set none; the returned func puts things back.
func (h *hosting) underSaved(pol checkpoint.Policy) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.policy != "" || pol == "" {
		return func() {}
	}
	h.policy = pol
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.policy == pol {
			h.policy = ""
		}
	}
}
