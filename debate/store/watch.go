package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// FollowEvery is how often the store's watcher asks SQLite whether another
// connection (another process, or another handle on the same file)
// committed.
const FollowEvery = 250 * time.Millisecond

// watcher is the store's one poll of PRAGMA data_version, shared by every
// door that follows the database (the console's engine, serve's live
// sessions, MCP's subscriptions).
type watcher struct {
	mu   sync.Mutex
	subs map[int]chan struct{}
	next int
	stop context.CancelFunc // ends the poll; nil while none runs
	// polls counts running polls, so Close waits for the last one's
	// connection before it closes the pool (and a test's folder is removed).
	polls sync.WaitGroup
}

// Watch tells the caller whenever another connection committed to the
// database. On Postgres it is woken by LISTEN/NOTIFY (watch_pg.go). On
// SQLite ONE goroutine per store reads SQLite's PRAGMA data_version
// every FollowEvery on a connection of its own — a counter that moves only
// when another connection commits, so nothing is scanned — and wakes every
// watch. A channel holds one pending wake: changes between two reads fold
// into one. The watcher wakes every watch once when it first looks (the
// poll's first read, each LISTEN in place): a commit made before it looked
// is then read, never missed; a caller re-reads the database on a wake. stop ends the watch; the poll ends with the last watch or when
// the store closes.
func (s *Store) Watch() (changed <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs == nil {
		w.subs = map[int]chan struct{}{}
	}
	id := w.next
	w.next++
	w.subs[id] = ch
	if w.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		w.stop = cancel
		if s.pg != nil {
			w.polls.Go(func() { s.listen(ctx) })
		} else {
			w.polls.Go(func() { s.poll(ctx) })
		}
	}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			delete(w.subs, id)
			if len(w.subs) == 0 && w.stop != nil {
				w.stop()
				w.stop = nil
			}
		})
	}
}

// poll reads data_version until ctx ends or the store closes.
func (s *Store) poll(ctx context.Context) {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	tick := time.NewTicker(FollowEvery)
	defer tick.Stop()
	last := int64(-1)
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		var v int64
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
			return
		}
		// The first read wakes too: a commit between Watch and this read
		// moved a version nobody had read yet (a replica following a
		// session missed its first exchange so).
		if v != last {
			s.wake()
		}
		last = v
	}
}

func (s *Store) wake() {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range w.subs {
		select {
		case ch <- struct{}{}:
		default: // a wake is already pending
		}
	}
}

// stopWatching ends the poll and waits for it (the store is closing).
func (s *Store) stopWatching() {
	w := &s.watch
	w.mu.Lock()
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.mu.Unlock()
	w.polls.Wait() // outside mu: a poll's wake takes it
}

// Stamp is what moves whenever a turn is added to session id or settled:
// its number of turns and its last update. A door that watches a session
// (MCP's resource subscriptions) compares stamps after a wake of Watch.
func (s *Store) Stamp(ctx context.Context, id string) (string, error) {
	var turns int
	var updated string
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM conversation_log WHERE conversation_id = ?),
		COALESCE((SELECT updated_time FROM conversation_meta WHERE conversation_id = ?), '')`, id, id).Scan(&turns, &updated)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d@%s", turns, updated), nil
}

// Touched lists the sessions whose last update (updated_time) is at or
// after since, with that time: every commit that adds a turn, checkpoints
// its text, finishes or settles it moves it. A door that follows many
// sessions after a wake of Watch reads this one indexed query and syncs
// only the sessions that changed, instead of every session it holds.
func (s *Store) Touched(ctx context.Context, since time.Time) (map[string]time.Time, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT conversation_id, updated_time FROM conversation_meta WHERE updated_time >= ?`, formatTime(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id, at string
		if err := rows.Scan(&id, &at); err != nil {
			return nil, err
		}
		out[id] = parseTime(at)
	}
	return out, rows.Err()
}
