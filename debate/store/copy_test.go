package store

import (
	"bytes"
	"context"
	"testing"

	"github.com/parleyhq/parley/debate"
)

// A copy from a SQLite file writes every session, whole and the same
// (its JSON export is byte for byte the source's), with its owner; run
// again it writes nothing and says each was there; a session added to the
// source since is the only one the third run copies.
func TestCopyIsWholeAndIdempotent(t *testing.T) {
	ctx := context.Background()
	src, err := Open(t.TempDir() + "/history.db")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst := openTemp(t)
	golden := storeGolden(t)
	info, entries, err := golden.Load(ctx, "0123456789ab")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Import(ctx, info, entries, false); err != nil {
		t.Fatal(err)
	}
	if err := src.SetOwner(ctx, info.ID, "ana", false); err != nil {
		t.Fatal(err)
	}
	second := debate.SessionInfo{ID: "fedcba987654", Mode: "mention", Title: "second", Created: info.Created}
	if _, err := src.Import(ctx, second, entries[:2], false); err != nil {
		t.Fatal(err)
	}
	rep, err := Copy(ctx, src, dst)
	if err != nil || rep.Copied != 2 || rep.Skipped != 0 || rep.Turns != len(entries)+2 {
		t.Fatalf("first copy: %+v, %v", rep, err)
	}
	if got, want := exportOf(t, dst, info.ID), exportOf(t, src, info.ID); !bytes.Equal(got, want) {
		t.Errorf("the copy exports differently:\n%s\nwant\n%s", got, want)
	}
	if owner, _ := dst.Owner(ctx, info.ID); owner != "ana" {
		t.Errorf("owner %q, want ana", owner)
	}
	if rep, err := Copy(ctx, src, dst); err != nil || rep != (CopyReport{Skipped: 2}) {
		t.Fatalf("second copy: %+v, %v; want both skipped", rep, err)
	}
	third := debate.SessionInfo{ID: "aaaabbbbcccc", Mode: "mention", Title: "third", Created: info.Created}
	if _, err := src.Import(ctx, third, entries[:1], false); err != nil {
		t.Fatal(err)
	}
	if rep, err := Copy(ctx, src, dst); err != nil || rep != (CopyReport{Copied: 1, Skipped: 2, Turns: 1}) {
		t.Fatalf("third copy: %+v, %v", rep, err)
	}
	list, err := dst.List(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("destination lists %d sessions (%v), want 3", len(list), err)
	}
}
