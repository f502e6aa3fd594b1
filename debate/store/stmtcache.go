package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// openDB opens a pool on dsn whose connections keep their prepared
// statements: the store runs the same few dozen statements over and over,
// and SQLite parsing and planning each one anew was a third of a busy
// server's CPU (issue 50). database/sql prepares a statement per call
// unless told otherwise; here each connection keeps, by SQL text, the
// statements it prepared (modernc's statement resets for reuse instead of
// being finalized).
func openDB(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(stmtConnector{c}), nil
}

type stmtConnector struct{ driver.Connector }

func (c stmtConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stmtConn{Conn: conn, stmts: map[string]*cachedStmt{}}, nil
}

// maxStmts bounds the statements one connection keeps: the store's are a
// fixed set of texts, but a text built from the data (a list of
// placeholders) must not grow the cache without end.
const maxStmts = 128

// stmtConn is one connection and its prepared statements. database/sql
// uses a connection from one goroutine at a time; a statement whose rows
// are still being read (a query inside a transaction while another runs)
// is busy, and the same text is then prepared afresh and closed after.
type stmtConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

type cachedStmt struct {
	st   driver.Stmt
	busy bool
}

// stmt is the connection's statement for query, prepared the first time;
// release is called when the caller is done with it.
func (c *stmtConn) stmt(ctx context.Context, query string) (st driver.Stmt, release func(), err error) {
	if cs := c.stmts[query]; cs != nil && !cs.busy {
		cs.busy = true
		return cs.st, func() { cs.busy = false }, nil
	}
	st, err = c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	if _, taken := c.stmts[query]; taken || len(c.stmts) >= maxStmts {
		return st, func() { _ = st.Close() }, nil
	}
	cs := &cachedStmt{st: st, busy: true}
	c.stmts[query] = cs
	return st, func() { cs.busy = false }, nil
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, release, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	defer release()
	return st.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, release, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		release()
		return nil, err
	}
	return &releasingRows{Rows: rows, release: release}, nil
}

// releasingRows gives its statement back when closed.
type releasingRows struct {
	driver.Rows
	release func()
}

func (r *releasingRows) Close() error {
	err := r.Rows.Close()
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return err
}

func (c *stmtConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *stmtConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *stmtConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *stmtConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *stmtConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// Close finalizes the kept statements, then closes the connection.
func (c *stmtConn) Close() error {
	var errs []error
	for q, cs := range c.stmts {
		errs = append(errs, cs.st.Close())
		delete(c.stmts, q)
	}
	return errors.Join(append(errs, c.Conn.Close())...)
}
