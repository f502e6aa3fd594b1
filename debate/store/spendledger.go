package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// windowLedger keeps one spend window of parley serve (the server's or a
// user's, one setting) in the spend_window table, a row per hour or day:
// the spend.Ledger every replica on the database shares. A call is held
// by one conditional UPDATE (reserve), which SQLite's single writer and
// Postgres's row lock (the WHERE re-checked on the row as committed)
// each make atomic, so two replicas never both take the last room.
type windowLedger struct {
	st      *Store
	server  bool   // the server's window; else user's
	user    string // the user whose window it is ("" for the server's)
	setting string // spend.LimitPerHour, …
	// seed is what the window already spent when its row is created: the
	// turns of serve's sessions that finished in it (ServedSpend), so a
	// database written before the ledger existed keeps its hour.
	seed func(ctx context.Context, start time.Time) (float64, error)

	mu    sync.Mutex
	known time.Time // the newest window whose row is known to exist
}

// ledgerTimeout bounds every ledger statement: a call waits at most this
// long for the database before it is refused (the meter fails closed).
const ledgerTimeout = 10 * time.Second

// keepWindows is how long a window's row is kept after it starts.
const keepWindows = 48 * time.Hour

func (l *windowLedger) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), ledgerTimeout)
}

// key is the row's key columns for the window starting at start.
func (l *windowLedger) key(start time.Time) []any {
	return []any{l.server, l.user, l.setting, formatTime(start)}
}

const windowKey = `server = ? AND user_id = ? AND setting = ? AND window_start = ?`

// ensure creates the row of the window starting at start unless it
// exists, seeded with what the window spent before; rows of windows
// older than keepWindows go.
func (l *windowLedger) ensure(ctx context.Context, start time.Time) error {
	l.mu.Lock()
	known := !l.known.Before(start)
	l.mu.Unlock()
	if known {
		return nil
	}
	var one int
	switch err := l.st.r.QueryRowContext(ctx, `SELECT 1 FROM spend_window WHERE `+windowKey, l.key(start)...).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		spent, err := l.seed(ctx, start)
		if err != nil {
			return err
		}
		if _, err := l.st.w.ExecContext(ctx, `INSERT INTO spend_window (server, user_id, setting, window_start, spent, reserved)
			VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING`, append(l.key(start), finiteUSD(spent))...); err != nil {
			return err
		}
		if _, err := l.st.w.ExecContext(ctx, `DELETE FROM spend_window WHERE window_start < ?`, formatTime(start.Add(-keepWindows))); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	l.mu.Lock()
	if start.After(l.known) {
		l.known = start
	}
	l.mu.Unlock()
	return nil
}

// Reserve holds worst in the window starting at start when spent +
// reserved + worst <= capUSD, in one UPDATE.
func (l *windowLedger) Reserve(start time.Time, worst, capUSD float64) (ok bool, spent, reserved float64, err error) {
	if err := checkAmounts(worst, capUSD); err != nil {
		return false, 0, 0, err
	}
	ctx, cancel := l.ctx()
	defer cancel()
	if err := l.ensure(ctx, start); err != nil {
		return false, 0, 0, err
	}
	err = l.st.w.QueryRowContext(ctx, `UPDATE spend_window SET reserved = reserved + ?5
		WHERE server = ?1 AND user_id = ?2 AND setting = ?3 AND window_start = ?4
		AND spent + reserved + ?5 <= ?6 RETURNING spent, reserved`,
		append(l.key(start), worst, capUSD)...).Scan(&spent, &reserved)
	if errors.Is(err, sql.ErrNoRows) { // refused: the figures that refused it
		spent, reserved, err = l.held(ctx, start)
		return false, spent, reserved, err
	}
	return err == nil, spent, reserved, err
}

// Settle releases worst from the window starting at held and counts cost
// in the one starting at start, in one transaction.
func (l *windowLedger) Settle(held, start time.Time, worst, cost float64) (spent, reserved float64, err error) {
	if err := checkAmounts(worst, cost); err != nil {
		return 0, 0, err
	}
	ctx, cancel := l.ctx()
	defer cancel()
	if err := l.ensure(ctx, start); err != nil {
		return 0, 0, err
	}
	tx, err := l.st.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = tx.Rollback() }()
	// What is left of the hold, down to nothing: float sums of worst
	// cases would otherwise leave crumbs that refuse the last call.
	if _, err := tx.ExecContext(ctx, `UPDATE spend_window SET reserved = CASE WHEN reserved - ?5 > ?6 THEN reserved - ?5 ELSE 0 END
		WHERE server = ?1 AND user_id = ?2 AND setting = ?3 AND window_start = ?4`,
		append(l.key(held), worst, holdCrumb)...); err != nil {
		return 0, 0, err
	}
	if err := tx.QueryRowContext(ctx, `UPDATE spend_window SET spent = spent + ?5
		WHERE server = ?1 AND user_id = ?2 AND setting = ?3 AND window_start = ?4 RETURNING spent, reserved`,
		append(l.key(start), cost)...).Scan(&spent, &reserved); err != nil {
		return 0, 0, err
	}
	return spent, reserved, tx.Commit()
}

// holdCrumb is the least hold the ledger keeps: less is rounding.
const holdCrumb = 1e-12

// Held is what the window starting at start spent and holds.
func (l *windowLedger) Held(start time.Time) (spent, reserved float64, err error) {
	ctx, cancel := l.ctx()
	defer cancel()
	if err := l.ensure(ctx, start); err != nil {
		return 0, 0, err
	}
	return l.held(ctx, start)
}

func (l *windowLedger) held(ctx context.Context, start time.Time) (spent, reserved float64, err error) {
	err = l.st.r.QueryRowContext(ctx, `SELECT spent, reserved FROM spend_window WHERE `+windowKey, l.key(start)...).Scan(&spent, &reserved)
	return spent, reserved, err
}

// checkAmounts refuses an amount no ledger may hold: a NaN or an infinity
// would make every later comparison false (or every call refused), and a
// negative one would give room that was never paid back.
func checkAmounts(amounts ...float64) error {
	for _, v := range amounts {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("spend window: %v is not an amount in USD", v)
		}
	}
	return nil
}

// finiteUSD is v when it is a finite amount, else 0.
func finiteUSD(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0
	}
	return v
}
