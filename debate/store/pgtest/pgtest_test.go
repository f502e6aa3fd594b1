package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A cluster starts, answers on its socket and over TCP, gives each test
// a schema of its own, and is gone once stopped.
func TestClusterStartsAndStops(t *testing.T) {
	c := Require(t)
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
	c.Stop()
	if _, err := pgx.Connect(ctx, c.URL("postgres")); err == nil {
		t.Fatal("the cluster still answers after Stop")
	}
}
