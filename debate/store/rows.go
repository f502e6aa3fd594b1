package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// The rows a Recorder writes in its transactions: a session's metadata,
// its entries (inserted, then updated as a streaming answer grows) and
// its participants.

// upsertMeta writes a session's row.
func upsertMeta(ctx context.Context, tx *sql.Tx, info debate.SessionInfo, now string) error {
	state := ""
	if len(info.State) > 0 {
		b, err := json.Marshal(info.State)
		if err != nil {
			return err
		}
		state = string(b)
	}
	created := info.Created
	if created.IsZero() {
		created = time.Now()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO conversation_meta
		(conversation_id, topic, start_time, mode, title, state, parent_id, fork_turn, updated_time)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(conversation_id) DO UPDATE SET topic = excluded.topic, mode = excluded.mode,
			title = excluded.title, state = excluded.state, updated_time = excluded.updated_time`,
		info.ID, info.Topic, formatTime(created), info.Mode, info.Title, state, info.Parent, info.ForkAt, now)
	return err
}

const entryColumns = `turn_number, speaker_name, model_used, prompt, response, is_moderator, timestamp,
	display_name, provider, mode, kind, round, vote, status, tokens_in, tokens_out, tokens_cached,
	cost_usd, latency_ms, tool_calls, error, finished_time, tokens_cache_write, tokens_reasoning, price_unknown, covers,
	origin, usage_estimated, warning, evidence`

// entryValues are an entry's values in entryColumns order.
func entryValues(en transcript.Entry) ([]any, error) {
	en = saneEntry(en) // a cost is never stored unless finite
	calls := ""
	if len(en.ToolCalls) > 0 {
		b, err := json.Marshal(en.ToolCalls)
		if err != nil {
			return nil, err
		}
		calls = string(b)
	}
	records := ""
	if len(en.Evidence) > 0 {
		b, err := json.Marshal(en.Evidence)
		if err != nil {
			return nil, err
		}
		records = string(b)
	}
	return []any{en.Turn, en.Speaker, en.Model, en.Prompt, en.Text, en.IsModerator, formatTime(en.Started),
		en.Display, en.Provider, en.Mode, string(en.Kind), en.Round, en.Vote, string(en.Status),
		en.Usage.InputTokens, en.Usage.OutputTokens, en.Usage.CachedTokens, en.Cost, en.Latency().Milliseconds(),
		calls, en.Error, formatTime(en.Finished), en.Usage.CacheWriteTokens, en.Usage.ReasoningTokens, en.Usage.PriceUnknown, en.Covers,
		en.Origin, en.Usage.Estimated, en.Warning, records}, nil
}

// insertEntry adds a new row for en under its turn number and returns the
// row's id. A number already taken fails on the unique index: a turn is
// never written over another.
func insertEntry(ctx context.Context, tx *sql.Tx, session, writer string, en transcript.Entry) (int64, error) {
	vals, err := entryValues(en)
	if err != nil {
		return 0, err
	}
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO conversation_log (conversation_id, writer, `+entryColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		append([]any{session, writer}, vals...)...).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("saving turn %d: %w", en.Turn, err)
	}
	return id, nil
}

// updateEntry rewrites the row this writer created (a turn's final state);
// a row another writer created is never touched.
func updateEntry(ctx context.Context, tx *sql.Tx, row int64, writer string, en transcript.Entry) error {
	vals, err := entryValues(en)
	if err != nil {
		return err
	}
	cols := strings.Split(entryColumns, ",")
	sets := make([]string, 0, len(cols))
	for _, c := range cols[1:] { // the turn number never changes
		sets = append(sets, strings.TrimSpace(c)+" = ?")
	}
	_, err = tx.ExecContext(ctx, `UPDATE conversation_log SET `+strings.Join(sets, ", ")+` WHERE id = ? AND writer = ?`,
		append(vals[1:], row, writer)...)
	if err != nil {
		return fmt.Errorf("saving turn %d: %w", en.Turn, err)
	}
	return nil
}

// noteParticipant fills TalkTable's participant and moderator columns with
// the first agents that speak, so tools written for TalkTable read them:
// their display names ("ChatGPT"), as the seed stores them.
func noteParticipant(ctx context.Context, tx *sql.Tx, session string, en transcript.Entry) error {
	if !en.IsAgentTurn() {
		return nil
	}
	name := en.Display
	if name == "" {
		name = en.Speaker
	}
	var q string
	var args []any
	if en.IsModerator {
		q = `UPDATE conversation_meta SET moderator_name = ?, moderator_model = ? WHERE conversation_id = ? AND moderator_name = ''`
		args = []any{name, en.Model, session}
	} else {
		q = `UPDATE conversation_meta SET
			participant_b_name = CASE WHEN participant_a_name <> '' AND participant_a_name <> ?1 AND participant_b_name = '' THEN ?1 ELSE participant_b_name END,
			participant_b_model = CASE WHEN participant_a_name <> '' AND participant_a_name <> ?1 AND participant_b_name = '' THEN ?2 ELSE participant_b_model END,
			participant_a_model = CASE WHEN participant_a_name = '' THEN ?2 ELSE participant_a_model END,
			participant_a_name = CASE WHEN participant_a_name = '' THEN ?1 ELSE participant_a_name END
			WHERE conversation_id = ?3`
		args = []any{name, en.Model, session}
	}
	_, err := tx.ExecContext(ctx, q, args...)
	return err
}
