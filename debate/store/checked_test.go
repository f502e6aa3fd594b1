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
