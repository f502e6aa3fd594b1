package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// An open of a database as Parley last left it skips quick_check; an open
// after anything else changed the file, or without the note, checks it.
// Not parallel: it counts the checks of the whole package.
func TestOnlyAChangedDatabaseIsChecked(t *testing.T) {
	onlySQLite(t)
	path := filepath.Join(t.TempDir(), "p.db")
	fillDatabase(t, path, 3, 20) // its last close notes the file
	reopen := func() int64 {
		t.Helper()
		before := quickChecks.Load()
		st, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		return quickChecks.Load() - before
	}
	if n := reopen(); n != 0 {
		t.Fatalf("a database as Parley left it was checked %d times", n)
	}
	// Another program writes to it (here: SQLite through a connection of
	// the test's own, which notes nothing).
	db, err := openDB(dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), `UPDATE conversation_meta SET title = 'changed elsewhere'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := reopen(); n != 1 {
		t.Fatalf("a database another program changed was checked %d times, want 1", n)
	}
	if n := reopen(); n != 0 {
		t.Fatalf("checked %d times after the check passed and Parley closed it", n)
	}
	if err := os.Remove(path + checkedSuffix); err != nil {
		t.Fatal(err)
	}
	if n := reopen(); n != 1 {
		t.Fatalf("a database without its note was checked %d times, want 1", n)
	}
	// While another connection holds the file, closing notes nothing: the
	// last to close does.
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + checkedSuffix); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + checkedSuffix); !os.IsNotExist(err) {
		t.Fatalf("a close that was not the last noted the file (%v)", err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if n := reopen(); n != 0 {
		t.Fatalf("checked %d times after the last connection closed", n)
	}
}

// BenchmarkFileStamp measures what an open of an unchanged database pays
// instead of BenchmarkQuickCheck: reading the file through CRC-32.
func BenchmarkFileStamp(b *testing.B) {
	path := largeDatabase(b)
	for range b.N {
		if _, ok := fileStamp(path); !ok {
			b.Fatal("unreadable")
		}
	}
}

// BenchmarkOpenReadClose is what a one-shot command (a script's ask)
// pays the store around its own work: open a database as Parley left it,
// read through the readers' pool, write through the writer, close (the
// checkpoint, the file's stamp).
//
//	go test -run '^$' -bench OpenReadClose -benchmem ./debate/store/
func BenchmarkOpenReadClose(b *testing.B) {
	onlySQLite(b)
	path := filepath.Join(b.TempDir(), "p.db")
	fillDatabase(b, path, 20, 4)
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		st, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		id, err := st.Latest(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Rename(ctx, id, "renamed"); err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
