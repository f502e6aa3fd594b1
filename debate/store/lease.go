package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate"
)

// LeaseTTL is how long a session's lease outlives its holder's last
// heartbeat: a holder killed outright (kill -9, a power cut) keeps the
// session that long, then the next writer takes it and settles the turns it
// left streaming. PARLEY_LEASE_TTL (a Go duration, at least 1s) changes it.
var LeaseTTL = leaseTTL(os.Getenv("PARLEY_LEASE_TTL"))

func leaseTTL(v string) time.Duration {
	if d, err := time.ParseDuration(v); err == nil && d >= time.Second {
		return d
	}
	return 15 * time.Second
}

// leaseRetry is how often a writer that waits (--wait) asks again.
const leaseRetry = 200 * time.Millisecond

// heldLease is a lease this recorder holds, kept alive by its heartbeat.
type heldLease struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// WaitForLease makes Lease wait for a busy session (--wait) instead of
// refusing at once.
func (r *Recorder) WaitForLease(wait bool) {
	r.mu.Lock()
	r.wait = wait
	r.mu.Unlock()
}

// Lease takes the session for one exchange (debate.Journal). A session
// another live writer holds is refused with a *debate.BusyError, or with
// WaitForLease waited for until ctx ends. Taking a lease settles the turns
// a dead writer left streaming.
func (r *Recorder) Lease(ctx context.Context, session string) (func(), error) {
	r.mu.Lock()
	wait := r.wait
	r.mu.Unlock()
	for {
		err := r.tryLease(ctx, session)
		var busy *debate.BusyError
		if err == nil || !errors.As(err, &busy) || !wait {
			if err != nil {
				return nil, err
			}
			return r.hold(session), nil
		}
		t := time.NewTimer(leaseRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}

// tryLease takes the lease in one transaction, or says who holds it.
func (r *Recorder) tryLease(ctx context.Context, session string) error {
	host, _ := os.Hostname()
	r.mu.Lock()
	door := r.door
	r.mu.Unlock()
	return r.st.inTx(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		var b debate.BusyError
		var owner, since, beat, expires string
		err := tx.QueryRowContext(ctx, `SELECT owner, door, pid, host, since, heartbeat, expires
			FROM session_lease WHERE conversation_id = ?`, session).
			Scan(&owner, &b.Door, &b.PID, &b.Host, &since, &beat, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case owner != r.owner && parseTime(expires).After(now):
			b.Session, b.Since, b.Heartbeat, b.Expires = session, parseTime(since), parseTime(beat), parseTime(expires)
			return &b
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_lease
			(conversation_id, owner, door, pid, host, since, heartbeat, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(conversation_id) DO UPDATE SET owner = excluded.owner, door = excluded.door, pid = excluded.pid,
				host = excluded.host, since = excluded.since, heartbeat = excluded.heartbeat, expires = excluded.expires`,
			session, r.owner, door, os.Getpid(), host, formatTime(now), formatTime(now), formatTime(now.Add(LeaseTTL))); err != nil {
			return err
		}
		return settleDead(ctx, tx, session, r.owner, formatTime(now))
	})
}

// hold starts the heartbeat of a lease just taken and returns its release.
func (r *Recorder) hold(session string) func() {
	h := &heldLease{stop: make(chan struct{}), done: make(chan struct{})}
	r.mu.Lock()
	r.leases[session] = h
	r.mu.Unlock()
	go r.heartbeat(session, h)
	return func() { r.release(session, h) }
}

// heartbeat pushes the lease's expiry on while the exchange runs.
func (r *Recorder) heartbeat(session string, h *heldLease) {
	defer close(h.done)
	tick := time.NewTicker(LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
			now := time.Now()
			_, err := r.st.w.Exec(`UPDATE session_lease SET heartbeat = ?, expires = ?
				WHERE conversation_id = ? AND owner = ?`, formatTime(now), formatTime(now.Add(LeaseTTL)), session, r.owner)
			if err != nil {
				r.fail(err)
			}
		}
	}
}

// release stops the heartbeat and gives the lease back.
func (r *Recorder) release(session string, h *heldLease) {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
		r.mu.Lock()
		if r.leases[session] == h {
			delete(r.leases, session)
		}
		r.mu.Unlock()
		if _, err := r.st.w.Exec(`DELETE FROM session_lease WHERE conversation_id = ? AND owner = ?`, session, r.owner); err != nil {
			r.fail(err)
		}
	})
}

// releaseAll gives back every lease still held (Close).
func (r *Recorder) releaseAll() {
	r.mu.Lock()
	held := make(map[string]*heldLease, len(r.leases))
	for s, h := range r.leases {
		held[s] = h
	}
	r.mu.Unlock()
	for s, h := range held {
		r.release(s, h)
	}
}
