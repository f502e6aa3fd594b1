package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// A database written by an older Parley (schema 7, before origins, leases
// and estimated usage) is listed and read by the read-only commands
// (sessions list, show, export) instead of failing on a missing column.
func TestReadOnlyOpenUpgradesAnOlderDatabase(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := raw.ExecContext(ctx, `CREATE TABLE schema_version (version INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, raw, migrations, 7); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("OpenReadOnly on a schema-7 database: %v", err)
	}
	defer st.Close()
	if _, err := st.List(ctx); err != nil {
		t.Fatalf("listing a database written by an older parley: %v", err)
	}
	if v, err := schemaVersion(ctx, st.r); err != nil || v != SchemaVersion {
		t.Errorf("schema version after the read-only open: %d (%v), want %d", v, err, SchemaVersion)
	}
}
