package store

import (
	"context"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
)

// A session created over HTTP is saved with its owner at once: listed
// from its creation, its owner read back, the seed mark kept; saved again
// (another owner, a new title), the row and the owner follow.
func TestSavedOwnedSessionIsListedWithItsOwner(t *testing.T) {
	t.Parallel()
	st := openTemp(t)
	ctx := context.Background()
	info := debate.SessionInfo{ID: "a1b2c3d4e5f6", Mode: "mention", Title: "first", Created: time.Now()}
	if err := st.SaveOwnedSession(ctx, info, "ana", true); err != nil {
		t.Fatal(err)
	}
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != info.ID {
		t.Fatalf("listed %+v, %v; want the new session", list, err)
	}
	if owner, err := st.Owner(ctx, info.ID); err != nil || owner != "ana" {
		t.Fatalf("owner %q, %v; want ana", owner, err)
	}
	if seed, err := st.ActiveSeed(ctx, "ana"); err != nil || seed != info.ID {
		t.Fatalf("ana's seed session %q, %v; want %s", seed, err, info.ID)
	}
	info.Title = "renamed"
	if err := st.SaveOwnedSession(ctx, info, "bea", false); err != nil {
		t.Fatal(err)
	}
	if owner, _ := st.Owner(ctx, info.ID); owner != "bea" {
		t.Fatalf("owner after the second save %q, want bea", owner)
	}
	if list, _ := st.List(ctx); len(list) != 1 || list[0].Title != "renamed" {
		t.Fatalf("listed %+v after the second save, want one session titled renamed", list)
	}
}
