package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A cluster starts, answers on its socket and over TCP, gives each test
// a schema of its own, and is gone once stopped. Another started at the
// same time is a copy of the same template, apart from it.
func TestClusterStartsAndStops(t *testing.T) {
	var other *Cluster
	started := make(chan error, 1)
	go func() {
		var err error
		other, err = Start(context.Background())
		started <- err
	}()
	c := Require(t)
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Stop)
	ctx := context.Background()
	a, b := c.Schema(t), c.Schema(t)
	for _, u := range []string{a, b, c.TCPURL("postgres")} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var schema string
		if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: schema %s", u, schema)
		_ = conn.Close(ctx)
	}
	if a == b {
		t.Fatal("two tests were given one schema")
	}
	for i, u := range []string{c.URL("postgres"), other.URL("postgres")} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		if i == 0 {
			_, err = conn.Exec(ctx, `CREATE TABLE only_here (n int)`)
		} else {
			err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_tables WHERE tablename = 'only_here')`).Scan(&found)
		}
		_ = conn.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if found {
			t.Fatal("a table made in one cluster is in the other: they share a data folder")
		}
	}
	c.Stop()
	if _, err := pgx.Connect(ctx, c.URL("postgres")); err == nil {
		t.Fatal("the cluster still answers after Stop")
	}
}
