package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/lease"
)

// The session journal's protocol (docs/development.md, "The session
// journal"): a writer takes a session's lease before an exchange; every
// take makes the lease's generation one more; every write the holder makes
// (a turn inserted, a checkpoint, a turn finished, a meta update) runs in
// a transaction that first checks, with fence, that the lease still names
// this holder and the generation it took. A holder paused past its expiry
// and overtaken, or whose session was deleted, finds out on its next write
// or heartbeat, and from then on writes nothing into that session.

// leaseState is what a session's lease row means to one writer at one
// moment.
type leaseState int

const (
	leaseFree   leaseState = iota // no row, or given back or cleared (owner '')
	leaseMine                     // this writer's, the generation it took
	leaseLive                     // another writer's, its heartbeat not lapsed
	leaseLapsed                   // another writer's (or an older take of this one), past its expiry: may be taken over
)

// leaseRow is a session_lease row.
type leaseRow struct {
	owner, door, host    string
	pid                  int
	gen                  int64
	since, beat, expires time.Time
}

// readLease reads a session's lease row; ok is false when there is none.
func readLease(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, session string) (l leaseRow, ok bool, err error) {
	var since, beat, expires string
	err = q.QueryRowContext(ctx, `SELECT owner, door, pid, host, generation, since, heartbeat, expires
		FROM session_lease WHERE conversation_id = ?`, session).
		Scan(&l.owner, &l.door, &l.pid, &l.host, &l.gen, &since, &beat, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	if err != nil {
		return l, false, err
	}
	l.since, l.beat, l.expires = parseTime(since), parseTime(beat), parseTime(expires)
	return l, true, nil
}

// state is what the row means to writer owner holding generation gen (0:
// holding none) at now.
func (l leaseRow) state(owner string, gen int64, now time.Time) leaseState {
	switch {
	case l.owner == "":
		return leaseFree
	case l.owner == owner && l.gen == gen:
		return leaseMine
	case l.expires.After(now):
		return leaseLive
	}
	return leaseLapsed
}

// busy is the refusal a writer gets for a lease another live writer holds.
func (l leaseRow) busy(session string) *lease.BusyError {
	return &lease.BusyError{Session: session, Door: l.door, PID: l.pid, Host: l.host,
		Since: l.since, Heartbeat: l.beat, Expires: l.expires}
}

// fence refuses a holder's write, inside the write's own transaction, once
// the lease it took (owner, gen) is no longer its own: the error says who
// took the session, or that it was deleted.
func fence(ctx context.Context, tx *sql.Tx, session, owner string, gen int64) error {
	l, ok, err := readLease(ctx, tx, session)
	if err != nil {
		return err
	}
	if ok && (l.state(owner, gen, time.Now()) == leaseMine || l.givenBack(gen)) {
		return nil
	}
	return lostTo(ctx, tx, session, l, ok)
}

// givenBack reports whether the row is generation gen given back and not
// taken since: a write of its holder racing its own release (a note while
// the exchange ends) overwrites nobody's. A cleared lease (unlock) has no
// door: that is a loss.
func (l leaseRow) givenBack(gen int64) bool {
	return l.owner == "" && l.gen == gen && l.door != ""
}

// lostTo words a lost lease: the session is gone, or someone else took
// its lease (and may have given it back since: a released row keeps its
// last holder), or it was cleared.
func lostTo(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, session string, l leaseRow, ok bool) error {
	exists, err := sessionExists(ctx, q, session)
	if err != nil {
		return err
	}
	if !exists {
		return &lease.DeletedError{Session: session}
	}
	if !ok || l.door == "" { // cleared by parley sessions unlock
		return &lease.TakenOverError{Session: session}
	}
	return &lease.TakenOverError{Session: session, Door: l.door, PID: l.pid, Host: l.host}
}

// sessionExists reports whether the session's row is there.
func sessionExists(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, session string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM conversation_meta WHERE conversation_id = ?`, session).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// heldLease is a lease this recorder holds, kept alive by its heartbeat.
type heldLease struct {
	gen  int64
	lost func(error) // the engine's, told once when the lease is found lost
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// writeGuard is how one of this recorder's writes to session is fenced:
// by the lease it holds there, or (no lease: a note, a bare Sink) by the
// session's existence once it is known to exist. A session already lost
// refuses at once.
func (r *Recorder) writeGuard(session string) (guard func(context.Context, *sql.Tx) error, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.lost[session]; err != nil {
		return nil, err
	}
	if h := r.leases[session]; h != nil {
		gen := h.gen
		return func(ctx context.Context, tx *sql.Tx) error { return fence(ctx, tx, session, r.owner, gen) }, nil
	}
	if r.saved[session] {
		return func(ctx context.Context, tx *sql.Tx) error {
			exists, err := sessionExists(ctx, tx, session)
			if err == nil && !exists {
				err = &lease.DeletedError{Session: session}
			}
			return err
		}, nil
	}
	return func(context.Context, *sql.Tx) error { return nil }, nil
}

// lose marks session as lost to this recorder: nothing is written into it
// again. The engine holding its lease is told (it cancels its calls and
// ends the exchange with err); without a holder the loss is a failed
// save, reported once through OnError.
func (r *Recorder) lose(session string, err error) {
	r.mu.Lock()
	if r.lost[session] != nil {
		r.mu.Unlock()
		return
	}
	r.lost[session] = err
	var tell func(error)
	if h := r.leases[session]; h != nil && h.lost != nil {
		tell = h.lost
	}
	r.mu.Unlock()
	if tell != nil {
		tell(err)
		return
	}
	r.fail(err)
}

// refused handles a write's error: a loss marks the session lost (and is
// reported there); any other error is a failed save.
func (r *Recorder) refused(session string, err error) {
	if lease.IsLost(err) {
		r.lose(session, err)
		return
	}
	r.fail(err)
}
