package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"
)

// LeaseHolder is who holds (or held) a session's lease.
type LeaseHolder struct {
	Door       string    `json:"door"`
	PID        int       `json:"pid"`
	Host       string    `json:"host"`
	Since      time.Time `json:"since"`
	Expires    time.Time `json:"expires"`
	Generation int64     `json:"generation"`
}

func (h LeaseHolder) String() string {
	return fmt.Sprintf("%s (pid %d on %s)", h.Door, h.PID, h.Host)
}

// ErrNoLease: nothing holds the session (parley sessions unlock has
// nothing to clear).
var ErrNoLease = errors.New("no process holds the session")

// HolderAliveError refuses to clear a lease whose holder may still run:
// clearing it would let two processes write one session.
type HolderAliveError struct {
	Session string
	Holder  LeaseHolder
	// Unknown: the holder is on another host (or this system cannot tell
	// whether a process runs), so nobody here can say it is dead.
	Unknown bool
}

func (e *HolderAliveError) Error() string {
	if e.Unknown {
		return fmt.Sprintf("session %s is held by %s; parley cannot tell from %s whether it still runs: "+
			"if it does not, run parley sessions unlock %s --force", e.Session, e.Holder, hostname(), e.Session)
	}
	return fmt.Sprintf("session %s is held by %s, which is still running: stop it, or let it finish "+
		"(parley sessions unlock %s --force clears the lease anyway, and that process's later writes are refused)",
		e.Session, e.Holder, e.Session)
}

// Unlock clears the lease of session when its holder is not alive: a
// process on this host whose pid no longer runs, or a lease already
// lapsed. A holder that runs, or one on another host, is cleared only with
// force. A lease clearing leaves its generation: the cleared holder, if it
// ever runs again, finds its writes refused (journal_fence.go), and the
// next writer settles the turns it left streaming.
func (s *Store) Unlock(ctx context.Context, session string, force bool) (LeaseHolder, error) {
	var held LeaseHolder
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		exists, err := sessionExists(ctx, tx, session)
		if err != nil {
			return err
		}
		l, ok, err := readLease(ctx, tx, session)
		if err != nil {
			return err
		}
		if !exists && !ok {
			return fmt.Errorf("%w: %s", ErrNotFound, session)
		}
		if !ok || l.owner == "" {
			return fmt.Errorf("%w: %s", ErrNoLease, session)
		}
		held = LeaseHolder{Door: l.door, PID: l.pid, Host: l.host, Since: l.since, Expires: l.expires, Generation: l.gen}
		if !force && l.state("", 0, time.Now()) == leaseLive {
			switch alive, known := holderAlive(l.host, l.pid); {
			case !known:
				return &HolderAliveError{Session: session, Holder: held, Unknown: true}
			case alive:
				return &HolderAliveError{Session: session, Holder: held}
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE session_lease SET owner = '', door = '', pid = 0, expires = ?
			WHERE conversation_id = ? AND owner = ? AND generation = ?`,
			formatTime(time.Now()), session, l.owner, l.gen)
		return err
	})
	return held, err
}

// holderAlive says whether process pid on host runs; known is false when
// this process cannot tell (another host, or no way to ask).
func holderAlive(host string, pid int) (alive, known bool) {
	if host != hostname() {
		return false, false
	}
	if pid <= 0 {
		return false, true // no process has it: a forged or broken lease
	}
	if pid == os.Getpid() {
		return true, true
	}
	return processAlive(pid)
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}
