// Package store keeps Parley's sessions in SQLite: one row per session in
// conversation_meta and one row per history entry in conversation_log (the
// TalkTable tables, extended). It consumes the engine's events through a
// Recorder and gives sessions back as debate.SessionInfo + []transcript.Entry for
// engine.Restore. API keys never reach it: the engine does not carry them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go)
)

// Store is an open session database. Writes go through one connection
// (SQLite has one writer anyway); reads use their own pool so a command that
// lists sessions never waits behind a recorder's transaction (WAL lets
// readers and the writer run at once).
type Store struct {
	path string
	w    *sql.DB // one connection, BEGIN IMMEDIATE
	r    *sql.DB // readers

	mu sync.Mutex
	// recorders are the open ones (Close writes what they hold); a closed
	// one leaves, with the engine it was attached to.
	recorders map[*Recorder]struct{}
	closed    bool
	watch     watcher

	pg *pgBackend // nil: SQLite

	noted string // the file's stamp its note held at open, "" if none (checked.go)
}

// ErrNotFound is returned when no session matches an ID or prefix.
var ErrNotFound = errors.New("no such session")

// ErrNoTurn is returned when a fork names a turn the session does not have.
var ErrNoTurn = errors.New("no such turn")

// AmbiguousError is returned when a prefix matches several sessions.
type AmbiguousError struct {
	Prefix  string
	Matches []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session prefix %q is ambiguous: %s", e.Prefix, strings.Join(e.Matches, ", "))
}

// DefaultPath is where the database lives unless --db or PARLEY_DB say
// otherwise: $XDG_DATA_HOME/parley/parley.db, else ~/.local/share/parley/parley.db.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv("PARLEY_DB"); p != "" {
		return p, nil
	}
	dir, err := DataDir(getenv)
	if err != nil {
		return "", fmt.Errorf("cannot find the session database: set --db, PARLEY_DB or XDG_DATA_HOME (%w)", err)
	}
	return filepath.Join(dir, "parley", "parley.db"), nil
}

// DataDir is $XDG_DATA_HOME, else ~/.local/share: where Parley keeps its
// files (the database, an installed GSM8K).
func DataDir(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_DATA_HOME"); dir != "" {
		return dir, nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		home = h
	}
	return filepath.Join(home, ".local", "share"), nil
}

// dsn builds the driver's connection string: a plain path (no "file:"
// prefix, so no URI escaping applies) with pragmas run on every connection.
// synchronous=NORMAL in WAL mode keeps every commit safe from a killed
// process; only a power cut can lose the last commits, never consistency.
func dsn(path string, write bool) string {
	q := "?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	if write {
		return path + q + "&_pragma=journal_mode(WAL)&_txlock=immediate"
	}
	return path + q + "&_pragma=query_only(1)"
}

// Open opens (creating when needed) the database at location — a SQLite
// file (a path, or sqlite:PATH) or a Postgres URL (postgres://…) — and
// brings its schema up to date.
func Open(location string) (*Store, error) {
	if IsPostgres(location) {
		return openPostgres(location)
	}
	path := SQLitePath(location)
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("store: database path %q must not contain '?'", path)
	}
	// Sessions hold what users typed: the file is private from its
	// creation, and SQLite gives the -wal and -shm files the same mode.
	// Opened for writing here, a file Parley may not write is refused
	// before any work; the same open reads it for its stamp (one open of
	// the file, not three calls, on every command: issue 50).
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	stamp, unchanged := unchangedSinceChecked(f, path)
	_ = f.Close()
	// An existing database is checked before anything writes to it, unless
	// it is as Parley last left it (checked.go): a damaged one is refused,
	// with how to recover it, instead of being written over. An empty file
	// (one just made) has nothing to check.
	if !unchanged && stamp != "" && !strings.HasPrefix(stamp, "0 ") {
		if err := checkExisting(context.Background(), path); err != nil {
			if errors.Is(err, ErrDamaged) {
				return nil, fmt.Errorf("store %s: %w: %s", path, err, damagedHint(path))
			}
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
		noteChecked(path, stamp)
		unchanged = true
	}
	noted := ""
	if unchanged {
		noted = stamp
	}
	w, err := openDB(dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	if err := migrate(context.Background(), w); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	r, err := openDB(dsn(path, false))
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	r.SetMaxOpenConns(4)
	return &Store{path: path, w: w, r: r, noted: noted}, nil
}

// Path is the database file, or a Postgres URL without its password.
func (s *Store) Path() string { return s.path }

// IsPostgres reports whether the store is on Postgres.
func (s *Store) IsPostgres() bool { return s.pg != nil }

// Close writes what every recorder still holds, then closes the database.
// The first error met (a failed write included) is returned.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	recs := s.recorders
	s.recorders = nil
	s.mu.Unlock()
	s.stopWatching()
	var errs []error
	for rec := range recs {
		errs = append(errs, rec.Close())
	}
	errs = append(errs, s.r.Close())
	if s.w != nil { // nil when opened read-only
		errs = append(errs, s.w.Close())
		if s.pg == nil && errors.Join(errs...) == nil {
			noteCleanClose(s.path, s.noted)
		}
	}
	if s.pg != nil && s.pg.pool != nil {
		s.pg.pool.Close()
	}
	return errors.Join(errs...)
}

// Check runs SQLite's integrity check and returns an error unless it says
// ok; on Postgres (which checks its own pages) it checks the database
// answers at this binary's schema version.
func (s *Store) Check(ctx context.Context) error {
	if s.pg != nil {
		return s.Ready(ctx)
	}
	rows, err := s.r.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Timestamps are stored as RFC 3339 text in UTC: readable in the sqlite3
// shell and sortable as text. TalkTable's CURRENT_TIMESTAMP form is read too.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// Ready reports whether the database answers and its schema is the one
// this binary writes (serve's /readyz).
func (s *Store) Ready(ctx context.Context) error {
	v, err := schemaVersion(ctx, s.r)
	if err != nil {
		if s.pg != nil {
			err = scrub(err, s.pg.password)
		}
		return fmt.Errorf("database unreachable: %w", err)
	}
	want := SchemaVersion
	if s.pg != nil {
		want = PostgresSchemaVersion
	}
	if v != want {
		return fmt.Errorf("database schema version %d, this parley writes %d: run parley db migrate", v, want)
	}
	return nil
}
