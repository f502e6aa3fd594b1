package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// The Recorder is the engine's debate.Journal: the database numbers every
// new turn inside the transaction that inserts it, so processes sharing a
// session (the console, headless commands, serve, MCP) never write two
// turns under one number, and a row is only ever updated by the recorder
// that created it. Every write is fenced by the session's lease
// (journal_fence.go); the lease is taken and kept in journal_lease.go, dead
// writers' turns settled and checkpoints written in journal_settle.go.

// Attach makes the recorder keep eng's turns (numbered by the database)
// and record its events; door names where its turns come from ("console",
// "ask", "serve", "mcp"). The returned function detaches it.
func (r *Recorder) Attach(eng *debate.Engine, door string) (detach func()) {
	r.mu.Lock()
	r.attached, r.door = true, door
	r.price = eng.Config.CostAt
	r.mu.Unlock()
	eng.SetJournal(r)
	unsub := eng.Subscribe(r.Sink)
	return func() {
		eng.SetJournal(nil)
		unsub()
	}
}

// inTx runs f in a write transaction.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) (err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err = f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Append saves en as the session's next turn (debate.Journal), fenced by
// the lease this recorder holds (see writeGuard).
func (r *Recorder) Append(info debate.SessionInfo, en transcript.Entry, after int) (transcript.Entry, []transcript.Entry, error) {
	r.mu.Lock()
	en.Origin = r.door
	r.mu.Unlock()
	guard, err := r.writeGuard(info.ID)
	if err != nil {
		return en, nil, err
	}
	ctx := context.Background()
	var missed []transcript.Entry
	var row int64
	err = r.st.inTx(ctx, func(tx *sql.Tx) error {
		if err := guard(ctx, tx); err != nil {
			return err
		}
		if err := saveMetaOnce(ctx, tx, info); err != nil {
			return err
		}
		var last int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(turn_number), 0) FROM conversation_log
			WHERE conversation_id = ?`, info.ID).Scan(&last); err != nil {
			return err
		}
		en.Turn = last + 1
		var err error
		if row, err = insertEntry(ctx, tx, info.ID, r.owner, en); err != nil {
			return err
		}
		if en.IsAgentTurn() {
			if err := noteParticipant(ctx, tx, info.ID, en); err != nil {
				return err
			}
		}
		if last > after {
			if missed, err = liveEntries(ctx, tx, info.ID, `WHERE conversation_id = ? AND turn_number > ?
				AND turn_number <= ? ORDER BY turn_number`, info.ID, after, last); err != nil {
				return err
			}
		}
		return touch(ctx, tx, info.ID)
	})
	if err != nil {
		r.refused(info.ID, err)
		return en, nil, err
	}
	r.mu.Lock()
	r.rows[liveKey{info.ID, en.Turn}] = row
	r.saved[info.ID] = true
	r.mu.Unlock()
	return en, missed, nil
}

// Finish saves a turn's final state in the row this recorder created
// (debate.Journal), before the engine announces it: a lease given back
// after the exchange leaves no turn of it unsettled on disk. A lease lost
// meanwhile refuses it: the turn stays as the new holder settled it.
func (r *Recorder) Finish(session string, en transcript.Entry) error {
	row, ok := r.rowOf(liveKey{session, en.Turn})
	if !ok {
		return nil // never saved (its Append failed and was reported)
	}
	guard, err := r.writeGuard(session)
	if err != nil {
		return err
	}
	ctx := context.Background()
	err = r.st.inTx(ctx, func(tx *sql.Tx) error {
		if err := guard(ctx, tx); err != nil {
			return err
		}
		if err := updateEntry(ctx, tx, row, r.owner, en); err != nil {
			return err
		}
		return touch(ctx, tx, session)
	})
	if err != nil {
		r.refused(session, err)
	}
	return err
}

// Since returns the session's turns from turn from on as they stand
// (debate.Journal): other processes' streaming turns stay streaming.
func (r *Recorder) Since(ctx context.Context, session string, from int) ([]transcript.Entry, error) {
	return liveEntries(ctx, r.st.r, session, `WHERE conversation_id = ? AND turn_number >= ?
		ORDER BY turn_number`, session, from)
}

// saveMetaOnce writes a new session's row; an existing row is left to the
// recorder's SessionUpdated writes.
func saveMetaOnce(ctx context.Context, tx *sql.Tx, info debate.SessionInfo) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM conversation_meta WHERE conversation_id = ?`, info.ID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return upsertMeta(ctx, tx, info, formatTime(time.Now()))
	}
	return err
}

// touch marks the session as active now.
func touch(ctx context.Context, tx *sql.Tx, session string) error {
	_, err := tx.ExecContext(ctx, `UPDATE conversation_meta SET updated_time = ? WHERE conversation_id = ?`,
		formatTime(time.Now()), session)
	return err
}

// Follow shows eng the turns other processes save in its session while it
// is open (the console): on every wake of the store's watcher (see Watch)
// eng.Sync takes the new turns in and announces them. It stops when ctx
// ends or the recorder closes.
func (r *Recorder) Follow(ctx context.Context, eng *debate.Engine) {
	changed, stop := r.st.Watch()
	go func() {
		defer stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-r.stop:
				return
			case <-changed:
				_ = eng.Sync(ctx)
			}
		}
	}()
}
