package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/dialogue"
	"github.com/parleyhq/parley/debate/sessionid"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// Summary is one line of the session list.
type Summary struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Mode      string   `json:"mode"`
	Topic     string   `json:"topic,omitempty"`
	Agents    []string `json:"agents"`
	Turns     int      `json:"turns"`
	TokensIn  int      `json:"tokens_in"`
	TokensOut int      `json:"tokens_out"`
	// Cost is what the priced turns cost; with PriceUnknown (a turn's
	// model had no price) it is a lower bound. Estimated: a turn's usage
	// was Parley's count (a cut or cancelled stream).
	Cost         float64 `json:"-"`
	PriceUnknown bool    `json:"price_unknown,omitempty"`
	Estimated    bool    `json:"estimated,omitempty"`
	// CostUSD is Cost in JSON, null when a price is unknown (never 0),
	// and CostAtLeast the priced part then.
	CostUSD      *float64  `json:"cost_usd"`
	CostAtLeast  float64   `json:"cost_usd_at_least,omitempty"`
	Created      time.Time `json:"created"`
	LastActivity time.Time `json:"last_activity"`
	Parent       string    `json:"parent,omitempty"`
	ForkAt       int       `json:"fork_at,omitempty"`
}

// setCost fills the JSON's cost fields from Cost and PriceUnknown.
func (s *Summary) setCost() {
	s.CostUSD, s.CostAtLeast = nil, 0
	if s.PriceUnknown {
		s.CostAtLeast = s.Cost
		return
	}
	c := s.Cost
	s.CostUSD = &c
}

// CostText is the cost as lists show it: "$0.0123", "~$0.0123"
// (estimated), "$?" or "≥ $0.0123" (a model had no price).
func (s Summary) CostText() string { return providers.FormatSpend(s.Cost, s.PriceUnknown, s.Estimated) }

// maxIDLen bounds a session ID or prefix a caller gives.
const maxIDLen = 64

// Resolve finds the session whose ID is id or starts with it.
func (s *Store) Resolve(ctx context.Context, id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", fmt.Errorf("%w: empty session ID", ErrNotFound)
	}
	if len(id) > maxIDLen { // before any query: a long LIKE pattern is an SQL error
		return "", fmt.Errorf("%w: a session ID has at most %d characters", ErrNotFound, maxIDLen)
	}
	if err := sessionid.Check(id); err != nil {
		return "", err // a --session, an API or MCP argument: said as it is
	}
	pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(id) + "%"
	rows, err := s.r.QueryContext(ctx, `SELECT conversation_id FROM conversation_meta
		WHERE conversation_id LIKE ? ESCAPE '\' ORDER BY conversation_id LIMIT 6`, pattern)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var matches []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return "", err
		}
		if m == id {
			return m, nil // an exact ID wins over longer ones it prefixes
		}
		matches = append(matches, m)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	// LIKE ignores ASCII case; IDs are compared exactly.
	matches = slices.DeleteFunc(matches, func(m string) bool { return !strings.HasPrefix(m, id) })
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w matches %q", ErrNotFound, id)
	case 1:
		return matches[0], nil
	}
	return "", &AmbiguousError{Prefix: id, Matches: matches}
}

// Latest is the ID of the most recently active session.
func (s *Store) Latest(ctx context.Context) (string, error) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT conversation_id FROM conversation_meta
		ORDER BY updated_time DESC, conversation_id LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: no session has been saved yet", ErrNotFound)
	}
	return id, err
}

// Load returns a session as engine.Restore takes it. A turn that was still
// streaming when Parley stopped comes back settled: partial with what
// arrived, or an error when nothing did, marked Interrupted.
func (s *Store) Load(ctx context.Context, id string) (debate.SessionInfo, []transcript.Entry, error) {
	info, err := s.meta(ctx, id)
	if err != nil {
		return info, nil, err
	}
	entries, err := s.entries(ctx, id)
	return info, entries, err
}

// meta reads a session's metadata.
func (s *Store) meta(ctx context.Context, id string) (debate.SessionInfo, error) {
	var info debate.SessionInfo
	var created, state string
	err := s.r.QueryRowContext(ctx, `SELECT conversation_id, title, mode, topic,
			COALESCE(CAST(start_time AS TEXT), ''), parent_id, fork_turn, state
		FROM conversation_meta WHERE conversation_id = ?`, id).
		Scan(&info.ID, &info.Title, &info.Mode, &info.Topic, &created, &info.Parent, &info.ForkAt, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return info, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return info, err
	}
	info.Created = parseTime(created)
	info.State = map[string]string{}
	if state != "" {
		if err := json.Unmarshal([]byte(state), &info.State); err != nil {
			return info, fmt.Errorf("session %s: unreadable mode state: %w", id, err)
		}
	}
	return info, nil
}

func (s *Store) entries(ctx context.Context, id string) ([]transcript.Entry, error) {
	return s.queryEntries(ctx, id, `WHERE conversation_id = ? ORDER BY turn_number`, id)
}

// logColumns are the conversation_log columns scanEntry reads, in order.
const logColumns = `turn_number, speaker_name, model_used, prompt, response, is_moderator,
	COALESCE(CAST(timestamp AS TEXT), ''), display_name, provider, mode, kind, round, vote, status,
	tokens_in, tokens_out, tokens_cached, cost_usd, tool_calls, error, finished_time,
	tokens_cache_write, tokens_reasoning, price_unknown, covers, origin, usage_estimated, warning, evidence`

// queryEntries reads the log rows that where (with args) selects. A turn
// left streaming comes back settled as interrupted (see Load).
func (s *Store) queryEntries(ctx context.Context, id, where string, args ...any) ([]transcript.Entry, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+logColumns+` FROM conversation_log `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanEntries(rows, id, true)
}

// rowQuerier is what scanEntries' callers query: the reader pool or a
// write transaction.
type rowQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// liveEntries reads the log rows that where selects as they stand: a turn
// another process is still streaming stays streaming.
func liveEntries(ctx context.Context, q rowQuerier, id, where string, args ...any) ([]transcript.Entry, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+logColumns+` FROM conversation_log `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanEntries(rows, id, false)
}

// scanEntries reads log rows; settle marks turns left streaming interrupted.
func scanEntries(rows *sql.Rows, id string, settle bool) ([]transcript.Entry, error) {
	var out []transcript.Entry
	for rows.Next() {
		var en transcript.Entry
		var started, kind, status, calls, finished, records string
		var u providers.Usage
		if err := rows.Scan(&en.Turn, &en.Speaker, &en.Model, &en.Prompt, &en.Text, &en.IsModerator, &started,
			&en.Display, &en.Provider, &en.Mode, &kind, &en.Round, &en.Vote, &status,
			&u.InputTokens, &u.OutputTokens, &u.CachedTokens, &en.Cost, &calls, &en.Error, &finished,
			&u.CacheWriteTokens, &u.ReasoningTokens, &u.PriceUnknown, &en.Covers, &en.Origin, &u.Estimated, &en.Warning, &records); err != nil {
			return nil, err
		}
		en.Kind, en.Status, en.Usage = transcript.Kind(kind), transcript.Status(status), u
		en = saneEntry(en) // an old row holding +Inf reads as unknown
		en.Started, en.Finished = parseTime(started), parseTime(finished)
		if calls != "" {
			if err := json.Unmarshal([]byte(calls), &en.ToolCalls); err != nil {
				return nil, fmt.Errorf("session %s turn %d: unreadable tool calls: %w", id, en.Turn, err)
			}
		}
		if records != "" {
			if err := json.Unmarshal([]byte(records), &en.Evidence); err != nil {
				return nil, fmt.Errorf("session %s turn %d: unreadable evidence: %w", id, en.Turn, err)
			}
		}
		if settle && (en.Status == transcript.StatusStreaming || en.Status == "") {
			en.Status, en.Error = transcript.StatusPartial, Interrupted
			if en.Text == "" {
				en.Status = transcript.StatusError
			}
		}
		out = append(out, en)
	}
	return out, rows.Err()
}

// Delete removes a session, its log and its lease.
func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `DELETE FROM conversation_log WHERE conversation_id = ?`, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_owner WHERE conversation_id = ?`, id); err != nil {
		return err
	}
	// A writer holding the session finds its lease gone on its next write
	// and stops (journal_fence.go): a deleted session is never re-created.
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_lease WHERE conversation_id = ?`, id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM conversation_meta WHERE conversation_id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return tx.Commit()
}

// Fork copies session id up to and including turn at into a new session
// that records its parent, and returns the new session's metadata. The fork
// continues in any mode; the parent is untouched.
func (s *Store) Fork(ctx context.Context, id string, at int) (debate.SessionInfo, error) {
	info, entries, err := s.Load(ctx, id)
	if err != nil {
		return debate.SessionInfo{}, err
	}
	if at == 0 {
		at = len(entries) // the whole session
	}
	if at < 1 || at > len(entries) {
		return debate.SessionInfo{}, fmt.Errorf("%w: session %s has turns 1 to %d, not %d", ErrNoTurn, id, len(entries), at)
	}
	fork := info
	fork.ID = debate.NewSessionID()
	fork.Parent, fork.ForkAt = id, at
	fork.State = dialogue.ForkState(info.State)
	fork.Created = time.Now().UTC()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return debate.SessionInfo{}, err
	}
	defer func() { _ = tx.Rollback() }()
	now := formatTime(time.Now())
	if err := upsertMeta(ctx, tx, fork, now); err != nil {
		return debate.SessionInfo{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE conversation_meta SET
		(participant_a_name, participant_a_model, participant_b_name, participant_b_model, moderator_name, moderator_model) =
		(SELECT participant_a_name, participant_a_model, participant_b_name, participant_b_model, moderator_name, moderator_model
			FROM conversation_meta WHERE conversation_id = ?)
		WHERE conversation_id = ?`, id, fork.ID); err != nil {
		return debate.SessionInfo{}, err
	}
	// Entries are copied as loaded, so a turn the parent left streaming
	// arrives settled in the fork.
	for _, en := range entries[:at] {
		if _, err := insertEntry(ctx, tx, fork.ID, "", en); err != nil {
			return debate.SessionInfo{}, err
		}
	}
	return fork, tx.Commit()
}

// Rename sets a session's title (parley sessions rename). Renaming is not
// activity: the session keeps its place in the list.
func (s *Store) Rename(ctx context.Context, id, title string) error {
	title, err := debate.CheckTitle(title)
	if err != nil {
		return err
	}
	res, err := s.w.ExecContext(ctx, `UPDATE conversation_meta SET title = ? WHERE conversation_id = ?`, title, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return nil
}

// nonNegative is a column's value as sums count it: a negative count an
// older version wrote counts 0 (portable: no two-argument MAX on Postgres).
func nonNegative(col string) string {
	return "(CASE WHEN " + col + " > 0 THEN " + col + " ELSE 0 END)"
}
