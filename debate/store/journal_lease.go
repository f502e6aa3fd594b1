package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"time"

	"github.com/parleyhq/parley/debate/lease"
)

// LeaseTTL is how long a session's lease outlives its holder's last
// heartbeat: a holder killed outright (kill -9, a power cut) keeps the
// session that long, then the next writer takes it and settles the turns it
// left streaming. PARLEY_LEASE_TTL (a Go duration, 1s to 1h) changes it:
// main sets it once, through ParseLeaseTTL, before any command runs.
var LeaseTTL = ParseLeaseTTL("")

// ParseLeaseTTL reads PARLEY_LEASE_TTL: a Go duration from 1s to 1h, else
// (unset, unreadable, out of bounds) the default of 15s.
func ParseLeaseTTL(v string) time.Duration {
	if d, err := time.ParseDuration(v); err == nil && d >= time.Second && d <= time.Hour {
		return d
	}
	return 15 * time.Second
}

// leaseRetry is how often a writer that waits (--wait) asks again.
const leaseRetry = 200 * time.Millisecond

// WaitForLease makes Lease wait for a busy session (--wait) instead of
// refusing at once.
func (r *Recorder) WaitForLease(wait bool) {
	r.mu.Lock()
	r.wait = wait
	r.mu.Unlock()
}

// Lease takes the session for one exchange (debate.Journal). A session
// another live writer holds is refused with a *lease.BusyError, or with
// WaitForLease waited for until ctx ends. Taking a lease settles the turns
// a dead writer left streaming. lost is called once if the lease is found
// lost while held (see fence).
func (r *Recorder) Lease(ctx context.Context, session string, lost func(error)) (func(), error) {
	r.mu.Lock()
	wait, gone := r.wait, r.lost[session]
	r.mu.Unlock()
	if gone != nil {
		return nil, gone
	}
	for {
		gen, err := r.tryLease(ctx, session)
		var busy *lease.BusyError
		if err == nil || !errors.As(err, &busy) || !wait {
			if err != nil {
				return nil, err
			}
			return r.hold(session, gen, lost), nil
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

// tryLease takes the lease in one transaction, with the next generation,
// or says who holds it. A session this recorder knew to exist and that is
// gone is refused as deleted: a lease never re-creates a session.
func (r *Recorder) tryLease(ctx context.Context, session string) (gen int64, err error) {
	host, _ := os.Hostname()
	r.mu.Lock()
	door, saved := r.door, r.saved[session]
	r.mu.Unlock()
	err = r.st.inTx(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		if saved {
			if exists, err := sessionExists(ctx, tx, session); err != nil || !exists {
				if err == nil {
					err = &lease.DeletedError{Session: session}
				}
				return err
			}
		}
		l, _, err := readLease(ctx, tx, session)
		if err != nil {
			return err
		}
		if l.state(r.owner, 0, now) == leaseLive {
			return l.busy(session)
		}
		gen = l.gen + 1
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_lease
			(conversation_id, owner, door, pid, host, since, heartbeat, expires, generation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(conversation_id) DO UPDATE SET owner = excluded.owner, door = excluded.door, pid = excluded.pid,
				host = excluded.host, since = excluded.since, heartbeat = excluded.heartbeat, expires = excluded.expires,
				generation = excluded.generation`,
			session, r.owner, door, os.Getpid(), host, formatTime(now), formatTime(now), formatTime(now.Add(LeaseTTL)), gen); err != nil {
			return err
		}
		return r.settleDead(ctx, tx, session, gen, now)
	})
	return gen, err
}

// hold starts the heartbeat of a lease just taken and returns its release.
func (r *Recorder) hold(session string, gen int64, lost func(error)) func() {
	h := &heldLease{gen: gen, lost: lost, stop: make(chan struct{}), done: make(chan struct{})}
	r.mu.Lock()
	r.leases[session] = h
	r.mu.Unlock()
	go r.heartbeat(session, h)
	return func() { r.release(session, h) }
}

// heartbeat pushes the lease's expiry on while the exchange runs. A beat
// that finds the lease no longer this holder's (taken over while this
// process was paused, cleared, or the session deleted) loses the session.
func (r *Recorder) heartbeat(session string, h *heldLease) {
	defer close(h.done)
	tick := time.NewTicker(LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
			if err := r.beat(session, h.gen); err != nil {
				r.refused(session, err)
				if lease.IsLost(err) {
					return
				}
			}
		}
	}
}

// beat pushes the expiry of the lease of generation gen on. A beat that
// updates no row has lost the lease: the error says to whom.
func (r *Recorder) beat(session string, gen int64) error {
	ctx := context.Background()
	now := time.Now()
	res, err := r.st.w.ExecContext(ctx, `UPDATE session_lease SET heartbeat = ?, expires = ?
		WHERE conversation_id = ? AND owner = ? AND generation = ?`,
		formatTime(now), formatTime(now.Add(LeaseTTL)), session, r.owner, gen)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	l, ok, err := readLease(ctx, r.st.w, session)
	if err != nil {
		return err
	}
	return lostTo(ctx, r.st.w, session, l, ok)
}

// release stops the heartbeat and gives the lease back: its row stays,
// with no owner, so the generation goes on counting. Only the holder of
// this generation gives it back: a writer whose lease was taken over
// leaves the new holder's alone.
func (r *Recorder) release(session string, h *heldLease) {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
		// Out of the map first: a write from now on is fenced as one
		// made without a lease, never by a lease being given back.
		r.mu.Lock()
		if r.leases[session] == h {
			delete(r.leases, session)
		}
		r.mu.Unlock()
		if _, err := r.st.w.Exec(`UPDATE session_lease SET owner = '', expires = ?
			WHERE conversation_id = ? AND owner = ? AND generation = ?`,
			formatTime(time.Now()), session, r.owner, h.gen); err != nil {
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
