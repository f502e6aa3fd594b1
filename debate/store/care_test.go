package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/transcript"
)

// fillDatabase writes sessions sessions of turns entries of about 1 KB
// each, the way the recorder does, and closes the store.
func fillDatabase(tb testing.TB, path string, sessions, turns int) {
	tb.Helper()
	st, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	text := strings.Repeat("an answer of realistic length, ", 32)
	for s := range sessions {
		rec := st.RecordEvery(time.Hour)
		info := debate.SessionInfo{ID: fmt.Sprintf("%012x", s+1), Mode: "mention", Created: time.Now()}
		rec.Sink(debate.SessionStarted{Session: info})
		for turn := 1; turn <= turns; turn++ {
			rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: turn, Kind: transcript.KindReply, Speaker: "gemini",
				Text: text, Status: transcript.StatusComplete}})
		}
		if err := rec.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		tb.Fatal(err)
	}
}

// A database whose pages are damaged is refused before anything writes to
// it, with the way to recover it; the file is left byte for byte as it was.
func TestDamagedDatabaseIsRefusedUntouched(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "damaged.db")
	fillDatabase(t, path, 4, 50)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 64<<10 {
		t.Fatalf("database only %d bytes", len(data))
	}
	// Garbage over the middle pages, the header left sound: SQLite opens
	// the file, its b-trees are wrong.
	for i := 16 << 10; i < 48<<10; i++ {
		data[i] = 0xA5
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Open(path)
	if err == nil {
		st.Close()
		t.Fatal("a damaged database was opened for writing")
	}
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), ".recover") || !strings.Contains(err.Error(), "--db recovered.db") {
		t.Fatalf("error lacks the damage or the recovery hint: %v", err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, data) {
		t.Fatal("the damaged database was written to")
	}
	if _, err := OpenReadOnly(path); err != nil && !errors.Is(err, ErrDamaged) {
		t.Fatalf("read-only open: %v", err)
	}
}

// A file that is not a database at all is refused the same way.
func TestNotADatabaseIsDamaged(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("this is not sqlite ", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v, want ErrDamaged", err)
	}
}

// The read-only store reads everything and changes nothing: not the file,
// and no -wal or -shm file appears beside it.
func TestReadOnlyStoreWritesNothing(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "ro.db")
	fillDatabase(t, path, 2, 3)
	before, _ := os.ReadFile(path)
	st, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List(context.Background())
	if err != nil || len(list) != 2 {
		t.Fatalf("list %v, %v", list, err)
	}
	_, entries, err := st.Load(context.Background(), list[0].ID)
	if err != nil || len(entries) != 3 {
		t.Fatalf("load: %d entries, %v", len(entries), err)
	}
	var md bytes.Buffer
	if err := st.Export(context.Background(), &md, list[0].ID, "md"); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("the read-only store changed the file")
	}
	if _, err := OpenReadOnly(filepath.Join(dir, "missing.db")); err == nil {
		t.Fatal("a missing database opened read-only")
	}
}

// On read-only media SQLite cannot make the shared-memory file a WAL
// database needs; the read-only store then reads the file as immutable.
// (A directory in the -shm file's place makes it impossible to create,
// for root too.)
func TestReadOnlyStoreReadsWhereNoSideFileCanBeMade(t *testing.T) {
	onlySQLite(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "media.db")
	fillDatabase(t, path, 3, 2)
	for _, side := range []string{"-wal", "-shm"} {
		os.Remove(path + side)
		if err := os.Mkdir(path+side, 0o500); err != nil {
			t.Fatal(err)
		}
	}
	st, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if list, err := st.List(context.Background()); err != nil || len(list) != 3 {
		t.Fatalf("list %d sessions, %v", len(list), err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("opened for writing where nothing can be written")
	}
}

// Text streamed after the last checkpoint is saved when the store closes:
// the recorder's last write takes it.
func TestCloseSavesTextStreamedAfterTheLastCheckpoint(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := st.RecordEvery(time.Hour) // no timed checkpoint during the test
	info := debate.SessionInfo{ID: "c105e0000001", Mode: "mention", Created: time.Now()}
	rec.Sink(debate.SessionStarted{Session: info})
	rec.Sink(debate.EntryAdded{Entry: transcript.Entry{Turn: 1, Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@gemini hi", Status: transcript.StatusComplete}})
	rec.Sink(debate.TurnStarted{Entry: transcript.Entry{Turn: 2, Kind: transcript.KindReply, Speaker: "gemini", Status: transcript.StatusStreaming}})
	rec.Sink(debate.TextDelta{Turn: 2, Agent: "gemini", Text: "checkpointed "})
	if err := rec.Flush(); err != nil { // the last checkpoint
		t.Fatal(err)
	}
	rec.Sink(debate.TextDelta{Turn: 2, Agent: "gemini", Text: "and streamed after it"})
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, entries, err := st.Load(context.Background(), info.ID)
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries %+v, %v", entries, err)
	}
	if got := entries[1].Text; got != "checkpointed and streamed after it" {
		t.Fatalf("saved text %q: what streamed after the last checkpoint was lost", got)
	}
}

// BenchmarkQuickCheck measures the check Open runs on an existing
// database that is not as Parley left it (largeDatabase).
func BenchmarkQuickCheck(b *testing.B) {
	path := largeDatabase(b)
	for range b.N {
		if err := checkExisting(context.Background(), path); err != nil {
			b.Fatal(err)
		}
	}
}

// largeDatabase writes PARLEY_QUICKCHECK_SESSIONS sessions of 100 turns
// of ~1 KB (default 200: about 27 MB), reports its size and resets the
// benchmark's timer.
func largeDatabase(b *testing.B) string {
	sessions := 200
	if v := os.Getenv("PARLEY_QUICKCHECK_SESSIONS"); v != "" {
		fmt.Sscan(v, &sessions)
	}
	path := filepath.Join(b.TempDir(), "large.db")
	fillDatabase(b, path, sessions, 100)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.ReportMetric(float64(fi.Size())/(1<<20), "MB")
	return path
}
