package store

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"
)

// The store's SQL is written once, in SQLite's spelling of parameters (?
// and ?N); on Postgres every statement passes through pgConnector, which
// rewrites them as $N, and turns Go booleans into 0 and 1 (the flag
// columns are integers in both databases, as SQLite keeps them). The
// writer pool's connector also takes the database's write lock at the
// start of every transaction (writeLockSQL): one writer at a time, as
// SQLite's BEGIN IMMEDIATE gives, across every process and machine.

// writeLockSQL takes the advisory lock every write transaction holds on
// Postgres until it ends: an arbitrary key, the same in every Parley
// (0x50524c59, "PRLY").
const writeLockSQL = `SELECT pg_advisory_xact_lock(1347570777)`

// pgConnector wraps pgx's database/sql connector.
type pgConnector struct {
	inner     driver.Connector
	lockWrite bool // take the write lock at every BEGIN (the writer pool)
}

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: conn, lockWrite: c.lockWrite}, nil
}

func (c pgConnector) Driver() driver.Driver { return c.inner.Driver() }

// pgConn is one connection of pgx's driver with the store's SQL rewritten.
type pgConn struct {
	driver.Conn
	lockWrite bool
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, rebind(query))
}

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil || !c.lockWrite || opts.ReadOnly {
		return tx, err
	}
	if _, err := c.Conn.(driver.ExecerContext).ExecContext(ctx, writeLockSQL, nil); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, rebind(query), args)
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.(driver.QueryerContext).QueryContext(ctx, rebind(query), args)
	if err != nil {
		return nil, err
	}
	return pgRows{rows}, nil
}

func (c *pgConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

func (c *pgConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

// CheckNamedValue passes values to pgx as they are, but for booleans
// (the store's flag columns are integers) and strings Postgres's text
// cannot hold (pgbytes.go).
func (c *pgConn) CheckNamedValue(v *driver.NamedValue) error {
	v.Value = toPG(v.Value)
	if b, ok := v.Value.(bool); ok {
		v.Value = int64(0)
		if b {
			v.Value = int64(1)
		}
	}
	return nil
}

// rebind rewrites SQLite's parameters as Postgres's: ?N becomes $N and
// each bare ? the next number. Quoted strings and identifiers are left
// alone.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		switch ch := q[i]; ch {
		case '\'', '"':
			j := strings.IndexByte(q[i+1:], ch)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j])
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
			i = j - 1
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
