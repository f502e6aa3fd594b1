package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is what the schema's triggers notify on a commit that
// changes a session (migrations/postgres), with the schema as payload.
const notifyChannel = "parley_changes"

// relisten is how long the listener waits before connecting again after
// losing its connection.
const relisten = time.Second

// listen is the watcher on Postgres: one connection of its own LISTENs,
// and every notification for this store's schema wakes every watch. The
// database stays the source of what changed; a notification only says
// to look. Each time the LISTEN is in place the watches are woken once:
// what was committed before it (between Watch and the first LISTEN, or
// while a lost connection was made again) was announced to nobody.
func (s *Store) listen(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.listenOnce(ctx); err != nil && ctx.Err() == nil {
			t := time.NewTimer(relisten)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
		}
	}
}

// listenOnce holds one LISTEN connection until it fails or ctx ends.
func (s *Store) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.pg.conn.Copy())
	if err != nil {
		return err
	}
	defer func() {
		closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(closing)
	}()
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+notifyChannel); err != nil {
		return err
	}
	s.wake()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Payload == schema {
			s.wake()
		}
	}
}
