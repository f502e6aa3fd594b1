package store

import (
	"context"
	"slices"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
)

// What a resume reads of a long session (LoadRecent): at least the newest
// RecentTurns turns, for the console's first screens, and every turn since
// the newest summary, for the prompts, up to maxTailTurns.
const (
	RecentTurns     = 200
	maxTailTurns    = 5000
	recentSummaries = 64
)

// LoadRecent returns a session as a resume needs it, in time and memory
// that do not grow with its length: the metadata, the newest summaries, the
// host's latest message, and the tail (every turn since the newest summary,
// and at least the newest RecentTurns). Entries keep their turn numbers;
// the older ones are read page by page with Page when someone scrolls to
// them. Engine.Restore takes the result as it is.
func (s *Store) LoadRecent(ctx context.Context, id string) (debate.SessionInfo, []transcript.Entry, error) {
	info, err := s.meta(ctx, id)
	if err != nil {
		return info, nil, err
	}
	var last int
	if err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(turn_number), 0) FROM conversation_log
		WHERE conversation_id = ?`, id).Scan(&last); err != nil {
		return info, nil, err
	}
	summaries, err := s.queryEntries(ctx, id, `WHERE conversation_id = ? AND kind = 'summary'
		ORDER BY turn_number DESC LIMIT ?`, id, recentSummaries)
	if err != nil {
		return info, nil, err
	}
	covered := 0
	for _, en := range summaries {
		if en.Status == transcript.StatusComplete && en.Covers > covered {
			covered = en.Covers
		}
	}
	from := min(covered, last-RecentTurns) // the tail is the turns after from
	tail, err := s.queryEntries(ctx, id, `WHERE conversation_id = ? AND turn_number > ?
		ORDER BY turn_number DESC LIMIT ?`, id, from, maxTailTurns)
	if err != nil {
		return info, nil, err
	}
	slices.Reverse(tail)
	if len(tail) == 0 || tail[0].Turn == 1 {
		return info, tail, nil // the whole session
	}
	start := tail[0].Turn
	older := summaries[:0:0]
	for _, en := range summaries {
		if en.Turn < start {
			older = append(older, en)
		}
	}
	user, err := s.queryEntries(ctx, id, `WHERE conversation_id = ? AND kind = 'user' AND turn_number < ?
		ORDER BY turn_number DESC LIMIT 1`, id, start)
	if err != nil {
		return info, nil, err
	}
	if len(user) == 1 && !slices.ContainsFunc(older, func(en transcript.Entry) bool { return en.Turn == user[0].Turn }) {
		older = append(older, user[0])
	}
	slices.SortFunc(older, func(a, b transcript.Entry) int { return a.Turn - b.Turn })
	return info, append(older, tail...), nil
}

// Page returns up to limit entries of session id before turn before,
// oldest first: keyset pagination on the turn number, so reading a page
// costs the same wherever it is in the session.
func (s *Store) Page(ctx context.Context, id string, before, limit int) ([]transcript.Entry, error) {
	out, err := s.queryEntries(ctx, id, `WHERE conversation_id = ? AND turn_number < ?
		ORDER BY turn_number DESC LIMIT ?`, id, before, limit)
	slices.Reverse(out)
	return out, err
}

// Totals sums a session's usage and cost over every turn.
func (s *Store) Totals(ctx context.Context, id string) (providers.Usage, float64, error) {
	var u providers.Usage
	var cost float64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(SUM(`+nonNegative("tokens_in")+`), 0), COALESCE(SUM(`+nonNegative("tokens_out")+`), 0),
			COALESCE(SUM(tokens_cached), 0), COALESCE(SUM(`+saneCostSQL+`), 0)
		FROM conversation_log WHERE conversation_id = ?`, id).Scan(&u.InputTokens, &u.OutputTokens, &u.CachedTokens, &cost)
	return u, cost, err
}
