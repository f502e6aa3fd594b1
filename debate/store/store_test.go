package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/sessionid"
)

func openTemp(t testing.TB) *Store {
	t.Helper()
	st, err := Open(testDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestOpenCreatesSchemaInWALMode(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "dir", "parley.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if v, err := schemaVersion(ctx, st.r); err != nil || v != SchemaVersion {
		t.Fatalf("schema version = %d, %v; want %d", v, err, SchemaVersion)
	}
	var mode string
	if err := st.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var timeout int
	if err := st.r.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&timeout); err != nil || timeout != 5000 {
		t.Fatalf("busy_timeout = %d, %v", timeout, err)
	}
	for table, cols := range map[string][]string{
		"conversation_meta": {"conversation_id", "topic", "participant_a_name", "participant_a_model", "participant_b_name",
			"participant_b_model", "moderator_name", "moderator_model", "start_time", "mode", "title", "state", "parent_id", "fork_turn"},
		"conversation_log": {"id", "conversation_id", "turn_number", "speaker_name", "model_used", "prompt", "response",
			"is_moderator", "timestamp", "mode", "kind", "round", "vote", "status", "tokens_in", "tokens_out", "cost_usd",
			"latency_ms", "tool_calls", "error"},
	} {
		have := columns(t, st.r, table)
		for _, c := range cols {
			if !have[c] {
				t.Errorf("%s has no column %s", table, c)
			}
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("database file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if err := st.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func columns(t *testing.T, db *sql.DB, table string) map[string]bool {
	t.Helper()
	rows, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[n] = true
	}
	return out
}

// The database and its WAL hold what users typed: nobody else may read them.
func TestDatabaseFilesArePrivate(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := testDB(t)
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range []string{path, path + "-wal"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v, want no access for group and others", filepath.Base(name), perm)
		}
	}
}

func TestReopenKeepsDataAndVersion(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	for i := 0; i < 3; i++ {
		st, err := Open(path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if _, err := st.w.Exec(`INSERT INTO conversation_meta(conversation_id, start_time, updated_time) VALUES (?, '', '')`, strings.Repeat("a", i+1)); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil || len(list) != 3 {
		t.Fatalf("list = %v, %v; want 3 sessions", list, err)
	}
}

// A TalkTable database at schema version 1 (what the first binary wrote, or
// TalkTable itself) is migrated in place and its talks load.
func TestMigrateFromVersion1(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := db.Exec(`CREATE TABLE schema_version (version INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, db, migrations, 1); err != nil {
		t.Fatal(err)
	}
	if v, _ := schemaVersion(ctx, db); v != 1 {
		t.Fatalf("version = %d, want 1", v)
	}
	_, err = db.Exec(`INSERT INTO conversation_meta (conversation_id, topic, participant_a_name, participant_a_model,
			participant_b_name, participant_b_model, moderator_name, moderator_model, start_time)
			VALUES ('talk1', 'Is tea better than coffee?', 'chatgpt', 'gpt-5', 'gemini', 'gemini-3', 'mc', 'gpt-5', '2025-03-01 10:00:00');
		INSERT INTO conversation_log (conversation_id, turn_number, speaker_name, model_used, prompt, response, is_moderator, timestamp)
			VALUES ('talk1', 1, 'mc', 'gpt-5', 'open', 'Welcome to the debate.', 1, '2025-03-01 10:00:01'),
			       ('talk1', 2, 'chatgpt', 'gpt-5', 'argue', 'Tea, clearly.', 0, '2025-03-01 10:00:05');`)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, _ := schemaVersion(ctx, st.r); v != SchemaVersion {
		t.Fatalf("after migration version = %d, want %d", v, SchemaVersion)
	}
	info, entries, err := st.Load(ctx, "talk1")
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode != "talk" || info.Title != "Is tea better than coffee?" || !info.Created.Equal(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("info = %+v", info)
	}
	if len(entries) != 2 || entries[0].Kind != "moderator" || !entries[0].IsModerator || entries[1].Kind != "reply" ||
		entries[1].Text != "Tea, clearly." || entries[1].Status != "complete" || entries[1].Display != "chatgpt" {
		t.Errorf("entries = %+v", entries)
	}
	if err := st.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	newer := SchemaVersion + 1
	if st.IsPostgres() {
		newer = PostgresSchemaVersion + 1
	}
	if _, err := st.w.Exec(`UPDATE schema_version SET version = ?`, newer); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	_, err = Open(path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("open of a newer database: %v, want a refusal naming it newer", err)
	}
}

func TestOpenRejectsBadPaths(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	if _, err := Open(""); err == nil {
		t.Error("empty path accepted")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "a?b.db")); err == nil {
		t.Error("path with ? accepted")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(file, "parley.db")); err == nil {
		t.Error("path under a regular file accepted")
	}
}

func TestNotADatabase(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("this is not sqlite ", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := Open(path); err == nil {
		st.Close()
		t.Fatal("opened a file that is not a database")
	}
}

func TestDefaultPath(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"PARLEY_DB": "/x/p.db", "XDG_DATA_HOME": "/d"}, "/x/p.db"},
		{map[string]string{"XDG_DATA_HOME": "/d", "HOME": "/h"}, "/d/parley/parley.db"},
		{map[string]string{"HOME": "/h"}, "/h/.local/share/parley/parley.db"},
	}
	for _, c := range cases {
		got, err := DefaultPath(env(c.env))
		if err != nil || got != c.want {
			t.Errorf("DefaultPath(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
}

func TestParseTimeForms(t *testing.T) {
	t.Parallel()
	want := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{"2025-03-01 10:00:00", "2025-03-01T10:00:00Z", "2025-03-01T11:00:00+01:00", formatTime(want)} {
		if got := parseTime(s); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v", s, got)
		}
	}
	if !parseTime("garbage").IsZero() || !parseTime("").IsZero() {
		t.Error("garbage parsed as a time")
	}
	// Stored text sorts as time does (fixed width fraction).
	a, b := formatTime(want), formatTime(want.Add(500*time.Millisecond))
	if !(a < b) {
		t.Errorf("%q !< %q", a, b)
	}
}

func TestResolveAndLatest(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	if _, err := st.Latest(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("latest on empty db: %v", err)
	}
	for i, id := range []string{"abc123000000", "abd456000000", "abc999000000"} {
		if _, err := st.w.Exec(`INSERT INTO conversation_meta(conversation_id, start_time, updated_time) VALUES (?, '', ?)`,
			id, formatTime(time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC))); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := st.Resolve(ctx, "abd"); err != nil || id != "abd456000000" {
		t.Errorf("resolve abd = %q, %v", id, err)
	}
	var amb *AmbiguousError
	if _, err := st.Resolve(ctx, "abc"); !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Errorf("resolve abc = %v, want ambiguous between two", err)
	}
	if _, err := st.Resolve(ctx, "zzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("resolve zzz = %v", err)
	}
	if _, err := st.Resolve(ctx, "ABD"); !errors.Is(err, ErrNotFound) {
		t.Errorf("resolve is case-insensitive: %v", err)
	}
	var bad *sessionid.Error
	if _, err := st.Resolve(ctx, "%"); !errors.As(err, &bad) || bad.Char != '%' {
		t.Errorf("resolve %% = %v, want the ID refused naming '%%'", err)
	}
	if id, err := st.Latest(ctx); err != nil || id != "abc999000000" {
		t.Errorf("latest = %q, %v", id, err)
	}
}

// Reads use their own connections: a command listing sessions while a
// recorder holds the write lock must not wait for it.
func TestReadsDoNotWaitForAWrite(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO conversation_meta(conversation_id, start_time, updated_time) VALUES ('x', '', '')`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.List(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("List waited for the open write transaction")
	}
}
