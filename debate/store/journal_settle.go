package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
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
	res, err := tx.ExecContext(ctx, `UPDATE conversation_log SET
		status = CASE WHEN response = '' THEN ? ELSE ? END, error = ?
		WHERE conversation_id = ? AND status = ? AND writer <> ?`,
		transcript.StatusError, transcript.StatusPartial, Interrupted, session, transcript.StatusStreaming, r.owner)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	return touch(ctx, tx, session) // a turn changed: followers read it (Touched)
}

// checkpoint saves the text a turn of this writer has streamed so far. Only
// a turn still streaming takes it: a checkpoint that comes late (it was read
// before the turn finished, committed after) never undoes a finish, nor the
// settling of another writer that took the session over.
//
// With the text goes the turn's estimated spend so far (the prompt once
// sent, the output counted from what streamed; usage_estimated): a turn cut
// by kill -9 or a full disk keeps it when the next writer settles it, and
// is charged it, instead of $0.
func checkpoint(ctx context.Context, tx *sql.Tx, row int64, writer string, c pendingText) error {
	_, err := tx.ExecContext(ctx, `UPDATE conversation_log SET response = ?,
		tokens_in = ?, tokens_out = ?, cost_usd = ?, price_unknown = ?, usage_estimated = ?
		WHERE id = ? AND writer = ? AND status = ?`,
		c.text, c.usage.InputTokens, c.usage.OutputTokens, c.cost, c.usage.PriceUnknown, c.usage.Estimated,
		row, writer, transcript.StatusStreaming)
	return err
}

// pending is a streaming turn's checkpoint: its text, and its spend as
// estimated from what was sent and streamed. The caller holds r.mu.
func (r *Recorder) pending(k liveKey, lt *liveTurn) pendingText {
	text := lt.text.String() // String does not copy; later writes never change these bytes
	c := pendingText{key: k, text: text}
	if lt.input == 0 && text == "" {
		return c // nothing sent yet: nothing spent
	}
	c.usage = providers.Usage{InputTokens: lt.input,
		OutputTokens: providers.EstimateOutputTokens(providers.Streamed{Bytes: len(text), Chunks: lt.chunks}), Estimated: true}
	if r.price != nil {
		cost, priced := r.price(lt.model, c.usage, lt.started)
		c.usage.PriceUnknown = !priced && c.usage.Total() > 0
		c.cost = cost
	}
	return c
}

// Sent records that a turn's call went out with a prompt of about input
// tokens (debate.Journal): its next checkpoint carries its spend.
func (r *Recorder) Sent(session string, turn, input int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := liveKey{session, turn}
	if _, mine := r.rows[k]; !mine && r.attached {
		return
	}
	lt := r.live[k]
	if lt == nil {
		lt = &liveTurn{}
		r.live[k] = lt
	}
	lt.input = input
	r.markDirty(lt)
}
