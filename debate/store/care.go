package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
)

// ErrDamaged marks a database that failed SQLite's quick_check (or is not
// a database at all): Parley refuses to write to it.
var ErrDamaged = errors.New("the database is damaged")

// damagedHint says how to get the sessions out of a damaged database.
func damagedHint(path string) string {
	return fmt.Sprintf("Parley writes nothing to it. Keep a copy, then recover what it holds with the sqlite3 shell: "+
		"sqlite3 %q .recover | sqlite3 recovered.db, and run parley --db recovered.db (or move %q aside to start a new one)", path, path)
}

// quickChecks counts the checks run (the tests see which opens skip one).
var quickChecks atomic.Int64

// checkExisting runs PRAGMA quick_check on an existing database through a
// read-only connection, before any connection that writes (even a pragma)
// touches it. Its cost grows with the file: see the README for a figure.
func checkExisting(ctx context.Context, path string) error {
	quickChecks.Add(1)
	db, err := openReader(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	return quickCheck(ctx, db)
}

// quickCheck returns nil when SQLite's quick_check says ok, else an
// ErrDamaged error quoting its first problems.
func quickCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(3)")
	if err != nil {
		return asDamaged(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return asDamaged(err)
		}
		problems = append(problems, p)
	}
	if err := rows.Err(); err != nil {
		return asDamaged(err)
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("%w (quick_check: %s)", ErrDamaged, strings.Join(problems, "; "))
}

// asDamaged marks the errors SQLite gives for a file that is not a sound
// database as ErrDamaged; others (a lock, a permission) stay as they are.
func asDamaged(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "corrupt") {
		return fmt.Errorf("%w (%v)", ErrDamaged, err)
	}
	return err
}

// readerDSN opens path read-only through a URI (mode=ro: nothing is
// created, not even the -wal and -shm files when they can be avoided);
// immutable says the file cannot change, which is how SQLite reads a WAL
// database on read-only media.
func readerDSN(path string, immutable bool) string {
	escaped := strings.NewReplacer("%", "%25", "#", "%23").Replace(path)
	dsn := "file:" + escaped + "?mode=ro&_pragma=busy_timeout(5000)&_pragma=query_only(1)"
	if immutable {
		dsn += "&immutable=1"
	}
	return dsn
}

// openReader opens a read-only pool on an existing database; on media
// where even the shared-memory file cannot be made it falls back to
// reading the file as immutable.
func openReader(ctx context.Context, path string) (*sql.DB, error) {
	var firstErr error
	for _, immutable := range []bool{false, true} {
		db, err := openDB(readerDSN(path, immutable))
		if err == nil {
			db.SetMaxOpenConns(4)
			var n int
			if err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n); err == nil {
				return db, nil
			}
			_ = db.Close()
		}
		if firstErr == nil {
			firstErr = err
		}
		if errors.Is(asDamaged(err), ErrDamaged) {
			break
		}
	}
	return nil, asDamaged(firstErr)
}

// OpenReadOnly opens an existing database for reading only (sessions
// list, show and export): nothing is created or written, so it works on
// read-only media and beside a running parley — except that a database an
// older Parley wrote is first brought up to this schema. Methods that
// write fail on it.
//
// On Postgres it is Open: a server's database is not on read-only media,
// and reading never writes.
func OpenReadOnly(location string) (*Store, error) {
	if IsPostgres(location) {
		return openPostgres(location)
	}
	path := SQLitePath(location)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	r, err := openReader(context.Background(), path)
	if errors.Is(err, ErrDamaged) {
		return nil, fmt.Errorf("store %s: %w: %s", path, err, damagedHint(path))
	}
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	if err := upgradeForReading(r, path); err != nil {
		_ = r.Close()
		return nil, err
	}
	return &Store{path: path, r: r}, nil
}

// upgradeForReading brings a database written by an older Parley up to this
// binary's schema before it is read: the read queries name this version's
// columns. The migrations only add, so this is safe beside an older
// process; on media that cannot be written the refusal says what to do.
func upgradeForReading(r *sql.DB, path string) error {
	version, err := schemaVersion(context.Background(), r)
	if err != nil || version >= SchemaVersion {
		return nil // no version table: a TalkTable file, read as it stands
	}
	w, err := Open(path)
	if err != nil {
		return fmt.Errorf("store %s: schema version %d is older than this parley's %d and could not be upgraded (%w); open it once where it can be written, or copy it to writable media", path, version, SchemaVersion, err)
	}
	return w.Close()
}
