package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/parleyhq/parley/debate"
)

// What parley serve keeps beside the sessions (schema version 4): session
// owners, custom agents and webhook deliveries. The engine never sees these.

// SaveOwnedSession writes a new session's row and its owner now, in one
// transaction, before anything was said in it: a session created over
// HTTP is listed (and owned) from its creation, where the console's empty
// sessions leave no row; it is never listed without its owner; and a
// server creating one per OpenAI-door request commits once for it, not
// twice (issue 50).
func (s *Store) SaveOwnedSession(ctx context.Context, info debate.SessionInfo, user string, seed bool) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	now := time.Now()
	if err := upsertMeta(ctx, tx, info, formatTime(now)); err != nil {
		return err
	}
	if err := setOwner(ctx, tx, info.ID, user, seed, now); err != nil {
		return err
	}
	return tx.Commit()
}

// SetOwner records which user a session belongs to; seed marks the user's
// seed-001 alternate debate (the newest one is the active one).
func (s *Store) SetOwner(ctx context.Context, id, user string, seed bool) error {
	return setOwner(ctx, s.w, id, user, seed, time.Now())
}

func setOwner(ctx context.Context, db execer, id, user string, seed bool, now time.Time) error {
	_, err := db.ExecContext(ctx, `INSERT INTO session_owner (conversation_id, user_id, seed, created)
		VALUES (?, ?, ?, ?) ON CONFLICT(conversation_id) DO UPDATE SET user_id = excluded.user_id, seed = excluded.seed`,
		id, user, seed, formatTime(now))
	return err
}

// Owners maps every owned session to its user ("" sessions, the CLI's, are
// absent).
func (s *Store) Owners(ctx context.Context) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT conversation_id, user_id FROM session_owner`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, user string
		if err := rows.Scan(&id, &user); err != nil {
			return nil, err
		}
		out[id] = user
	}
	return out, rows.Err()
}

// Owner is the user a session belongs to ("" when none was recorded).
func (s *Store) Owner(ctx context.Context, id string) (string, error) {
	var user string
	err := s.r.QueryRowContext(ctx, `SELECT user_id FROM session_owner WHERE conversation_id = ?`, id).Scan(&user)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return user, err
}

// ActiveSeed is the user's newest seed-001 debate, ErrNotFound when none.
func (s *Store) ActiveSeed(ctx context.Context, user string) (string, error) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT o.conversation_id FROM session_owner o
		JOIN conversation_meta m ON m.conversation_id = o.conversation_id
		WHERE o.user_id = ? AND o.seed = 1 ORDER BY o.created DESC, o.rowid DESC LIMIT 1`, user).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: user %q has no active debate", ErrNotFound, user)
	}
	return id, err
}

// CustomAgent is an agent defined over the API, usable by name in new sessions.
type CustomAgent struct {
	Name     string    `json:"name"`
	Display  string    `json:"display"`
	Persona  string    `json:"persona"`
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Color    string    `json:"color"`
	Created  time.Time `json:"created"`
}

// SaveAgent creates or replaces a custom agent.
func (s *Store) SaveAgent(ctx context.Context, a CustomAgent) error {
	if a.Created.IsZero() {
		a.Created = time.Now()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO custom_agent (name, display, persona, provider, model, color, created)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET display = excluded.display, persona = excluded.persona,
		provider = excluded.provider, model = excluded.model, color = excluded.color`,
		a.Name, a.Display, a.Persona, a.Provider, a.Model, a.Color, formatTime(a.Created))
	return err
}

// Agents lists the custom agents by name.
func (s *Store) Agents(ctx context.Context) ([]CustomAgent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, display, persona, provider, model, color, created FROM custom_agent ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []CustomAgent{}
	for rows.Next() {
		var a CustomAgent
		var created string
		if err := rows.Scan(&a.Name, &a.Display, &a.Persona, &a.Provider, &a.Model, &a.Color, &created); err != nil {
			return nil, err
		}
		a.Created = parseTime(created)
		out = append(out, a)
	}
	return out, rows.Err()
}

// DeleteAgent removes a custom agent; ErrNotFound when there is none.
func (s *Store) DeleteAgent(ctx context.Context, name string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM custom_agent WHERE name = ?`, name)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: no custom agent %q", ErrNotFound, name)
	}
	return nil
}

// Delivery is one webhook delivery and its outcome.
type Delivery struct {
	ID        int64     `json:"id"`
	URL       string    `json:"url"`
	Event     string    `json:"event"`
	Session   string    `json:"session_id"`
	Attempts  int       `json:"attempts"`
	Status    int       `json:"status"` // the last HTTP status, 0 when none came back
	Delivered bool      `json:"delivered"`
	Error     string    `json:"error,omitempty"`
	Time      time.Time `json:"time"`
}

// AddDelivery records a finished delivery (after its last attempt).
func (s *Store) AddDelivery(ctx context.Context, d Delivery) error {
	if d.Time.IsZero() {
		d.Time = time.Now()
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO webhook_delivery (url, event, session_id, attempts, status, delivered, error, time)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, d.URL, d.Event, d.Session, d.Attempts, d.Status, d.Delivered, d.Error, formatTime(d.Time))
	return err
}

// Deliveries lists the newest deliveries first, at most limit (0: all).
func (s *Store) Deliveries(ctx context.Context, limit int) ([]Delivery, error) {
	if limit <= 0 {
		limit = math.MaxInt32 // all (Postgres has no LIMIT -1)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, url, event, session_id, attempts, status, delivered, error, time
		FROM webhook_delivery ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		var at string
		if err := rows.Scan(&d.ID, &d.URL, &d.Event, &d.Session, &d.Attempts, &d.Status, &d.Delivered, &d.Error, &at); err != nil {
			return nil, err
		}
		d.Time = parseTime(at)
		out = append(out, d)
	}
	return out, rows.Err()
}

// execer runs a statement on a database or in a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}
