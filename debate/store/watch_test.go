package store

import (
	"context"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
)

// A commit through another handle on the same file (as another process)
// wakes every watch of the store, through its one poll; a stopped watch
// is woken no more, and the poll ends with the last watch.
func TestWatchWakesOnAnotherConnectionsCommit(t *testing.T) {
	path := testDB(t)
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	a, stopA := st.Watch()
	b, stopB := st.Watch()
	defer stopB()
	commit := func(id string) {
		t.Helper()
		if err := other.SaveOwnedSession(context.Background(), debate.SessionInfo{ID: id, Mode: "mention", Created: time.Now()}, "", false); err != nil {
			t.Fatal(err)
		}
	}
	woken := func(ch <-chan struct{}, what string) {
		t.Helper()
		deadline := time.NewTimer(20 * time.Second) // a loaded machine
		defer deadline.Stop()
		for {
			commit("w" + what) // until the poll has read a first version and sees it move
			select {
			case <-ch:
				return
			case <-time.After(2 * FollowEvery):
			case <-deadline.C:
				t.Fatalf("%s was not woken by another connection's commit", what)
			}
		}
	}
	woken(a, "a")
	woken(b, "b")
	stopA()
	stopA() // twice is fine
	for len(a) > 0 {
		<-a
	}
	woken(b, "b2")
	select {
	case <-a:
		t.Fatal("a stopped watch was woken")
	default:
	}
	stopB()
	st.watch.mu.Lock()
	running := st.watch.stop != nil
	st.watch.mu.Unlock()
	if running {
		t.Fatal("the poll runs on with no watch")
	}
}

// A commit made at once after Watch — before the watcher has looked (the
// poll's first read of data_version, the LISTEN on Postgres) — still wakes
// the watch: one commit, no retry. Without the first look's wake a replica
// following a session missed its first exchange for good
// (TestReplicasShareSessionsOnPostgres under load).
func TestAWatchMissesNoCommitBeforeTheWatcherLooks(t *testing.T) {
	path := testDB(t)
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	changed, stop := st.Watch()
	defer stop()
	if err := other.SaveOwnedSession(context.Background(), debate.SessionInfo{ID: "early", Mode: "mention", Created: time.Now()}, "", false); err != nil {
		t.Fatal(err)
	}
	deadline := time.NewTimer(20 * time.Second) // a loaded machine
	defer deadline.Stop()
	select {
	case <-changed:
	case <-deadline.C:
		t.Fatal("a commit made before the watcher first looked woke no watch")
	}
}
