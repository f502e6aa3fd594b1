package debate

import (
	"sync"
)

// A run of several exchanges: a door that runs more than one exchange as
// one command (headless alternate's --steps N: the start, then N steps,
// each an exchange) says before each how many of the run follow it
// (SetRunAhead). A mode reads it (Session.RunAhead) to offer its host a
// point between them — never after the last, where nothing follows — and a
// host's stop at any point ends the run: StoppedByHost tells the door to
// start no more of its exchanges. Doors that run one exchange at a time
// (the console, serve, MCP) never set it: nothing follows, nothing is asked.

// runPlan is the run's exchanges still to come and whether the host
// stopped it, under its own lock.
type runPlan struct {
	mu      sync.Mutex
	ahead   int
	stopped bool
}

// SetRunAhead says that n exchanges of the door's run follow the one it
// starts next (0: it is the last or the only one); a host's stop from the
// run's earlier exchanges is forgotten.
func (e *Engine) SetRunAhead(n int) {
	e.run.mu.Lock()
	defer e.run.mu.Unlock()
	e.run.ahead, e.run.stopped = max(n, 0), false
}

// RunAhead is how many exchanges of the door's run follow the running one.
func (e *Engine) RunAhead() int {
	e.run.mu.Lock()
	defer e.run.mu.Unlock()
	return e.run.ahead
}

// StoppedByHost reports whether the host stopped the run at a checkpoint
// of its latest exchange: the door runs no more of the run's exchanges.
func (e *Engine) StoppedByHost() bool {
	e.run.mu.Lock()
	defer e.run.mu.Unlock()
	return e.run.stopped
}

// stopRun ends the run at the host's stop: nothing follows.
func (e *Engine) stopRun() {
	e.run.mu.Lock()
	defer e.run.mu.Unlock()
	e.run.ahead, e.run.stopped = 0, true
}
