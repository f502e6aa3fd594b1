package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/parleyhq/parley/debate/spend"
	"github.com/parleyhq/parley/debate/transcript"
)

// SpendLimits are parley serve's spend windows (serve.max_cost_per_hour,
// serve.max_cost_per_day): what one user's sessions, and all the server's
// sessions together, may spend in a calendar hour and day (UTC). A
// session's meter counts under its user's windows, which count under the
// server's (spend.Meter.Under), so a call is admitted only when its worst
// case fits under every one. Each window is a row of spend_window
// (spendledger.go), its meter a client of it: every process serving the
// database (replicas on one Postgres, two servers on one SQLite file)
// reserves in the same row, so together they never pass a window, and
// restarting a server resets nothing. The row of the window in progress
// when the windows are built starts from the cost of the turns of
// sessions serve owns (session_owner) that finished in it.
type SpendLimits struct {
	st  *Store
	cfg Windows
	now func() time.Time

	mu     sync.Mutex
	server *spend.Meter            // the server's windows (nil when it has none)
	users  map[string]*spend.Meter // each user's windows, over the server's
}

// Windows are the limits in USD (0: none): each user's per hour and per
// day, and the whole server's.
type Windows struct {
	PerHour, PerDay             float64
	ServerPerHour, ServerPerDay float64
}

// SpendLimits builds the windows of w, nil when w sets none. now is the
// clock (time.Now when nil).
func (s *Store) SpendLimits(ctx context.Context, w Windows, now func() time.Time) (*SpendLimits, error) {
	if w == (Windows{}) {
		return nil, nil
	}
	if now == nil {
		now = time.Now
	}
	l := &SpendLimits{st: s, cfg: w, now: now, users: map[string]*spend.Meter{}}
	var err error
	l.server, err = l.windows(ctx, "this server", nil, nil)
	return l, err
}

// For is the meter a session of user counts under: the user's windows,
// then the server's.
func (l *SpendLimits) For(ctx context.Context, user string) (*spend.Meter, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := l.users[user]; m != nil {
		return m, nil
	}
	m, err := l.windows(ctx, ScopeOf(user), &user, l.server)
	if err != nil {
		return nil, err
	}
	if m == nil { // no window per user: the server's alone
		return l.server, nil
	}
	l.users[user] = m
	return m, nil
}

// Now is the windows' clock.
func (l *SpendLimits) Now() time.Time { return l.now() }

// ScopeOf names whose spend a user's windows bound.
func ScopeOf(user string) string {
	if user == "" {
		return "the default user (no user_id)"
	}
	return fmt.Sprintf("user %q", user)
}

// windows chains the hour and day windows of scope over parent (user nil:
// the server's, counting every owned session's turns); nil when scope has
// none.
func (l *SpendLimits) windows(ctx context.Context, scope string, user *string, parent *spend.Meter) (*spend.Meter, error) {
	hour, day := l.cfg.PerHour, l.cfg.PerDay
	hourKey, dayKey := spend.LimitPerHour, spend.LimitPerDay
	if user == nil {
		hour, day = l.cfg.ServerPerHour, l.cfg.ServerPerDay
		hourKey, dayKey = spend.ServerLimitPerHour, spend.ServerLimitPerDay
	}
	var head, tail *spend.Meter
	for _, w := range []struct {
		usd float64
		win spend.Window
	}{{hour, spend.Window{Limit: hourKey, Period: time.Hour, Scope: scope}},
		{day, spend.Window{Limit: dayKey, Period: 24 * time.Hour, Scope: scope}}} {
		if w.usd <= 0 {
			continue
		}
		// Only the window holding now starts from the turns: a database
		// written before the ledger keeps its hour; a later window's row
		// is made by its first call, so nothing was spent in it before.
		current := w.win.Start(l.now())
		ledger := &windowLedger{st: l.st, server: user == nil, setting: w.win.Limit,
			seed: func(ctx context.Context, start time.Time) (float64, error) {
				if !start.Equal(current) {
					return 0, nil
				}
				return l.st.ServedSpend(ctx, start, user)
			}}
		if user != nil {
			ledger.user = *user
		}
		if _, _, err := ledger.Held(current); err != nil {
			return nil, err
		}
		m := spend.NewSharedWindowMeter(w.usd, w.win, ledger, l.now)
		if tail == nil {
			head = m
		} else {
			tail.Under(m)
		}
		tail = m
	}
	if tail != nil && parent != nil {
		tail.Under(parent)
	}
	return head, nil
}

// Own records a session that another door of serve runs (its /mcp) as
// user's, unless it has an owner already: its spend then counts in the
// user's windows after a restart too.
func (l *SpendLimits) Own(ctx context.Context, id, user string) error {
	_, err := l.st.w.ExecContext(ctx, `INSERT INTO session_owner (conversation_id, user_id, seed, created)
		VALUES (?, ?, 0, ?) ON CONFLICT(conversation_id) DO NOTHING`, id, user, formatTime(time.Now()))
	return err
}

// ServedSpend is what the turns of serve's sessions (those with an owner)
// that finished at or after since cost: every user's, or user's alone. A
// turn still streaming is not counted yet (its running estimate is its
// writer's to settle; a dead writer's is settled by the next one, and
// counted then).
func (s *Store) ServedSpend(ctx context.Context, since time.Time, user *string) (float64, error) {
	q := `SELECT COALESCE(SUM(` + saneLogCost + `), 0) FROM conversation_log l
		JOIN session_owner o ON o.conversation_id = l.conversation_id
		WHERE COALESCE(NULLIF(l.finished_time, ''), l.timestamp) >= ? AND l.status <> ?`
	args := []any{formatTime(since), transcript.StatusStreaming}
	if user != nil {
		q += ` AND o.user_id = ?`
		args = append(args, *user)
	}
	var usd float64
	err := s.r.QueryRowContext(ctx, q, args...).Scan(&usd)
	return usd, err
}
