package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/parleyhq/parley/debate"
)

// Interrupted is the error recorded for a turn that was still streaming when
// Parley stopped (killed, crashed, power cut).
const Interrupted = "interrupted: parley stopped before the answer finished"

// settleDead marks the turns a stopped writer left streaming as
// interrupted: partial with what arrived, or an error when nothing did.
// Turns of a writer whose lease is still live are its own to finish; gen
// is the generation this recorder just took (0: none, a resume's settle).
func (r *Recorder) settleDead(ctx context.Context, tx *sql.Tx, session string, gen int64, now time.Time) error {
	l, _, err := readLease(ctx, tx, session)
	if err != nil {
		return err
	}
	if l.state(r.owner, gen, now) == leaseLive {
		return nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE conversation_log SET
		status = CASE WHEN response = '' THEN ? ELSE ? END, error = ?
		WHERE conversation_id = ? AND status = ? AND writer <> ?`,
		debate.StatusError, debate.StatusPartial, Interrupted, session, debate.StatusStreaming, r.owner)
	return err
}

// checkpoint saves the text a turn of this writer has streamed so far. Only
// a turn still streaming takes it: a checkpoint that comes late (it was read
// before the turn finished, committed after) never undoes a finish, nor the
// settling of another writer that took the session over.
func checkpoint(ctx context.Context, tx *sql.Tx, row int64, writer, text string) error {
	_, err := tx.ExecContext(ctx, `UPDATE conversation_log SET response = ?
		WHERE id = ? AND writer = ? AND status = ?`, text, row, writer, debate.StatusStreaming)
	return err
}
