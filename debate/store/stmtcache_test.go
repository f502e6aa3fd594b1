package store

import (
	"context"
	"path/filepath"
	"testing"
)

// A kept statement is reused, and the same text run again while its rows
// are still being read (a query inside a transaction) gets a statement of
// its own: both read their own rows, and later runs see later data.
func TestKeptStatementsReadTheirOwnRows(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	const insert, list = `INSERT INTO t (n) VALUES (?)`, `SELECT n FROM t WHERE n >= ? ORDER BY n`
	for n := range 3 {
		if _, err := tx.ExecContext(ctx, insert, n); err != nil {
			t.Fatal(err)
		}
	}
	outer, err := tx.QueryContext(ctx, list, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var n int
		if err := outer.Scan(&n); err != nil {
			t.Fatal(err)
		}
		var inner []int
		rows, err := tx.QueryContext(ctx, list, n) // the same text, its rows open
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var m int
			_ = rows.Scan(&m)
			inner = append(inner, m)
		}
		rows.Close()
		if len(inner) != 3-n {
			t.Fatalf("the inner query from %d read %v", n, inner)
		}
		got = append(got, n)
	}
	if err := outer.Close(); err != nil || len(got) != 3 {
		t.Fatalf("the outer query read %v (%v)", got, err)
	}
	if _, err := tx.ExecContext(ctx, insert, 7); err != nil {
		t.Fatal(err)
	}
	var last int
	if err := tx.QueryRowContext(ctx, `SELECT max(n) FROM t WHERE n >= ?`, 0).Scan(&last); err != nil || last != 7 {
		t.Fatalf("a reused statement read %d (%v), want 7", last, err)
	}
}
