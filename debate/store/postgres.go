package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// Sessions on Postgres (issue 49): the same Store, its SQL written once,
// over a pgx pool instead of a SQLite file. What differs is here and in
// pgdriver.go (parameters, the write lock), watch_pg.go (LISTEN/NOTIFY)
// and migrations/postgres (the schema).
//
// Why one Store and not an interface with two implementations: every
// promise the store keeps (turns numbered in the transaction that inserts
// them, fenced leases, dead writers settled, costs kept finite) lives in
// its SQL and the Go around it; a second implementation would be a second
// copy of all of it, free to drift. The doors keep *store.Store and never
// learn which database is under it; the conformance suite runs every
// store test on both (TestMain).

// IsPostgres reports whether a database location names Postgres
// (postgres:// or postgresql://) rather than a SQLite file.
func IsPostgres(location string) bool {
	l := strings.ToLower(location)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// SQLitePath is the file a location names: a plain path, or one written
// sqlite:PATH.
func SQLitePath(location string) string {
	return strings.TrimPrefix(location, "sqlite:")
}

// Redact is a location fit to print: a Postgres URL's password (in its
// user part or its query) replaced by xxxxx; a path as it is.
func Redact(location string) string {
	if !IsPostgres(location) {
		return location
	}
	u, err := url.Parse(location)
	if err != nil {
		return "postgres://(unreadable URL)" // it may hold the password anywhere
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// pgMigrations are migrations/postgres/*.sql in name order: version i+1 is
// file i. Never edit a released file: add the next one, and the step that
// matches it in schema.go's migrations for SQLite.
//
//go:embed migrations/postgres/*.sql
var pgMigrationFiles embed.FS

var pgMigrations = func() []string {
	names, err := fs.Glob(pgMigrationFiles, "migrations/postgres/*.sql")
	if err != nil {
		panic(err)
	}
	slices.Sort(names)
	steps := make([]string, len(names))
	for i, n := range names {
		b, err := pgMigrationFiles.ReadFile(n)
		if err != nil {
			panic(err)
		}
		steps[i] = string(b)
	}
	return steps
}()

// PostgresSchemaVersion is the version of the Postgres schema this binary
// writes.
var PostgresSchemaVersion = len(pgMigrations)

// pgBackend is what a Store on Postgres holds beyond its two pools.
type pgBackend struct {
	pool     *pgxpool.Pool
	conn     *pgx.ConnConfig // for the LISTEN connection
	password string          // scrubbed from every error
}

// writerConns is how many of the pool's connections the writer side may
// use: writes take the database's write lock one at a time anyway.
const writerConns = 2

// openPostgres connects to the database at rawURL (pool settings such as
// pool_max_conns in its query, see pgxpool) and brings its schema up to
// date, refusing one newer than this binary.
func openPostgres(rawURL string) (*Store, error) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", Redact(rawURL), scrub(err, passwordOf(rawURL)))
	}
	if cfg.MaxConns < writerConns+1 {
		return nil, fmt.Errorf("store %s: pool_max_conns must be at least %d (the writers' %d and one reader)", Redact(rawURL), writerConns+1, writerConns)
	}
	b := &pgBackend{conn: cfg.ConnConfig.Copy(), password: cfg.ConnConfig.Password}
	fail := func(err error) (*Store, error) {
		return nil, fmt.Errorf("store %s: %w", Redact(rawURL), scrub(err, b.password))
	}
	if b.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return fail(err)
	}
	w := sql.OpenDB(pgConnector{inner: stdlib.GetPoolConnector(b.pool), lockWrite: true})
	w.SetMaxOpenConns(writerConns)
	w.SetMaxIdleConns(0) // idle connections belong to the pool
	r := sql.OpenDB(pgConnector{inner: stdlib.GetPoolConnector(b.pool)})
	r.SetMaxOpenConns(int(cfg.MaxConns) - writerConns)
	r.SetMaxIdleConns(0)
	st := &Store{path: Redact(rawURL), w: w, r: r, pg: b}
	if err := migratePostgres(ctx, w); err != nil {
		_ = st.Close()
		return fail(err)
	}
	return st, nil
}

// migratePostgres creates the version table and applies the missing
// steps, each in a transaction holding the write lock: replicas starting
// at once apply each step once.
func migratePostgres(ctx context.Context, w *sql.DB) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return migrateTo(ctx, w, pgMigrations, len(pgMigrations))
}

// passwordOf is the password a URL carries, "" when none or unreadable.
func passwordOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	if p, ok := u.User.Password(); ok {
		return p
	}
	return u.Query().Get("password")
}

// scrub is err with the password, wherever a driver quoted it, replaced
// by xxxxx.
func scrub(err error, password string) error {
	if err == nil || password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), password, "xxxxx"))
}
