package store

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parleyhq/parley/debate/store/pgtest"
	"github.com/parleyhq/parley/internal/testparallel"
)

// The conformance suite: every test of this package runs twice, on SQLite
// files and then on a throwaway Postgres cluster (one schema per test, a
// fresh database in milliseconds). A test that is about SQLite's file
// (damage, read-only media, WAL, its migrations) says so with onlySQLite
// and is skipped, visibly, on the second run. Without Postgres the second
// run is skipped with a line saying so; under CI=true it fails.

// onPostgres is the cluster of the second run (nil on the first).
var onPostgres *pgtest.Cluster

// TestMain runs each pass with more parallel tests than go test's default
// (internal/testparallel; -parallel wins): on Postgres most of a test's
// time is waiting on the server, not computing.
func TestMain(m *testing.M) {
	testparallel.Raise()
	code := m.Run()
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		os.Exit(code) // fuzzing: the targets are the same on both
	}
	if pg := runOnPostgres(m); pg > code {
		code = pg
	}
	os.Exit(code)
}

func runOnPostgres(m *testing.M) int {
	c, err := pgtest.Start(context.Background())
	if err != nil {
		fmt.Printf("--- SKIP: the store conformance suite on Postgres: %v\n", err)
		if os.Getenv("CI") == "true" {
			fmt.Println("FAIL: CI must run the store's tests on Postgres")
			return 1
		}
		return 0
	}
	defer c.Stop()
	fmt.Println("=== the store conformance suite on Postgres")
	onPostgres = c
	return m.Run()
}

// testDB is a fresh database for one test: a SQLite file in its temporary
// folder, or a schema of its own on the Postgres run. Opening it twice is
// two processes sharing one database.
func testDB(t testing.TB) string {
	t.Helper()
	if onPostgres != nil {
		return onPostgres.Schema(t)
	}
	return filepath.Join(t.TempDir(), "parley.db")
}

// onlySQLite skips a test about SQLite's file on the Postgres run.
func onlySQLite(t testing.TB) {
	t.Helper()
	if onPostgres != nil {
		t.Skip("about SQLite's file: not run on Postgres")
	}
}
