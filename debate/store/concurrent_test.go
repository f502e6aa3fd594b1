package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Several processes (each its own Store, its own connections) append to
// one session at once: every turn gets its own number, 1 to N with none
// missing or doubled, and no append fails. On Postgres this is the write
// lock's work (pgdriver.go): without it two transactions read the same
// last turn and one fails on the unique index.
func TestConcurrentWritersFromSeveralProcesses(t *testing.T) {
	loc := testDB(t)
	const writers, each = 4, 15
	info := newInfo()
	first := newWriter(t, loc, "w0")
	first.appendTurn(t, info, question("start"), 0)
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wr := newWriter(t, loc, fmt.Sprintf("w%d", w+1))
		wr.rec.saved[info.ID] = true
		wg.Go(func() {
			for i := range each {
				if _, _, err := wr.rec.Append(info, question(fmt.Sprintf("w%d-%d", w, i)), 0); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, entries, err := first.st.Load(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	var turns []int
	texts := map[string]bool{}
	for _, en := range entries {
		turns = append(turns, en.Turn)
		texts[en.Text] = true
	}
	want := make([]int, 1+writers*each)
	for i := range want {
		want[i] = i + 1
	}
	if !slices.Equal(turns, want) || len(texts) != len(want) {
		t.Fatalf("turns %v (%d distinct texts), want 1..%d each once", turns, len(texts), len(want))
	}
}

// Replicas starting at once on an empty database each open it: the
// schema is applied once, under the write lock, and every one of them
// finds it current.
func TestStoresOpeningAtOnceMigrateOnce(t *testing.T) {
	loc := testDB(t)
	var wg sync.WaitGroup
	stores := make([]*Store, 4)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = Open(loc) })
	}
	wg.Wait()
	for i, st := range stores {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		defer st.Close()
		if err := st.Ready(context.Background()); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	var rows int
	if err := stores[0].r.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("schema_version has %d rows (%v), want 1", rows, err)
	}
}

// What a model sends is kept byte for byte on both databases, whatever
// the bytes (Postgres's text refuses NUL and invalid UTF-8: pgbytes.go),
// and a text that looks like the store's own escape comes back as it was.
func TestAnyBytesRoundTrip(t *testing.T) {
	st := openTemp(t)
	rec := st.Record()
	info := newInfo()
	texts := []string{"nul\x00inside", "\xff\xfe not utf-8", bytesMarker + "aGVsbG8=", "plain é 漢字", ""}
	for i, text := range texts {
		en := question(text)
		en.Prompt, en.Error = text, text
		if _, _, err := rec.Append(info, en, i); err != nil {
			t.Fatalf("append %q: %v", text, err)
		}
	}
	_, entries, err := st.Load(context.Background(), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, en := range entries {
		if en.Text != texts[i] || en.Prompt != texts[i] || en.Error != texts[i] {
			t.Errorf("turn %d came back %q / %q / %q, want %q", i+1, en.Text, en.Prompt, en.Error, texts[i])
		}
	}
}

// The Postgres schema has SQLite's tables and columns: the store's SQL,
// written once, finds every column it names on both.
func TestPostgresSchemaHasSQLitesColumns(t *testing.T) {
	if onPostgres == nil {
		t.Skip("compares with the Postgres run's schema")
	}
	pg := openTemp(t)
	lite, err := Open(t.TempDir() + "/parley.db")
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	tables := []string{"conversation_meta", "conversation_log", "bench_run", "bench_result", "session_owner",
		"custom_agent", "webhook_delivery", "session_lease", "schema_version"}
	for _, table := range tables {
		want := columnNames(t, lite.r, `SELECT name FROM pragma_table_info(?) ORDER BY name`, table)
		got := columnNames(t, pg.r, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? AND column_name <> 'rowid' ORDER BY column_name`, table)
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: Postgres has %v, SQLite %v", table, got, want)
		}
	}
}

func columnNames(t *testing.T, db *sql.DB, q, table string) []string {
	t.Helper()
	rows, err := db.Query(q, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// A process's connections are bounded by the URL's pool_max_conns, and a
// pool too small for the writers and a reader is refused with what to
// set, not left to hang.
func TestPostgresPoolIsBounded(t *testing.T) {
	if onPostgres == nil {
		t.Skip("a Postgres URL's setting")
	}
	loc := testDB(t)
	if _, err := Open(loc + "&pool_max_conns=2"); err == nil || !strings.Contains(err.Error(), "pool_max_conns must be at least 3") {
		t.Fatalf("a pool of 2: %v", err)
	}
	st, err := Open(loc + "&pool_max_conns=3")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.pg.pool.Config().MaxConns; got != 3 {
		t.Fatalf("pool of %d connections, want 3", got)
	}
	var wg sync.WaitGroup
	for range 8 { // more readers than connections: they wait their turn
		wg.Go(func() {
			if _, err := st.List(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := st.pg.pool.Stat().TotalConns(); n > 3 {
		t.Fatalf("%d connections open, the pool allows 3", n)
	}
}
