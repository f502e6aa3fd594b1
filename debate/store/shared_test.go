package store

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/transcript"
)

// openShared opens the session of path in a store of its own with a fresh
// engine attached to it, as a second process would.
func openShared(t *testing.T, path, id, door string) (*Store, *debate.Engine) {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := testEngine(t, 0)
	if id != "" {
		info, entries, err := st.LoadRecent(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Restore(info, entries); err != nil {
			t.Fatal(err)
		}
	}
	st.Record().Attach(e, door)
	e.Start(id != "")
	return st, e
}

// Two engines on one session, each opened before the other wrote: their
// turns are numbered by the database, none is written over, each door's
// turns name it, and an exchange takes in the turns the other added first.
func TestTwoWritersKeepEveryTurn(t *testing.T) {
	path := testDB(t)
	ctx := context.Background()
	_, a := openShared(t, path, "", "console")
	if err := a.Submit(ctx, "@a one"); err != nil {
		t.Fatal(err)
	}
	id := a.Info().ID
	_, b := openShared(t, path, id, "ask")
	if err := a.Submit(ctx, "@a two"); err != nil { // b has not seen it
		t.Fatal(err)
	}
	if err := b.Submit(ctx, "@b three"); err != nil {
		t.Fatal(err)
	}
	if got := b.History().Len(); got != 6 {
		t.Fatalf("b's history ends at turn %d, want 6 (it took in a's turns 3-4)", got)
	}
	if en, _ := b.History().Get(3); en.Text != "@a two" || en.Origin != "console" {
		t.Errorf("b's turn 3 is %q from %q, want a's question from the console", en.Text, en.Origin)
	}
	if err := a.Submit(ctx, "@c four"); err != nil {
		t.Fatal(err)
	}
	settle(t, a)
	settle(t, b)
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, entries, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ text, origin string }{{"@a one", "console"}, {"", "console"}, {"@a two", "console"}, {"", "console"},
		{"@b three", "ask"}, {"", "ask"}, {"@c four", "console"}, {"", "console"}}
	if len(entries) != len(want) {
		t.Fatalf("%d turns saved, want %d: %+v", len(entries), len(want), entries)
	}
	for i, w := range want {
		en := entries[i]
		if en.Turn != i+1 || en.Origin != w.origin || (w.text != "" && en.Text != w.text) || en.Status != transcript.StatusComplete {
			t.Errorf("turn %d = %d %q %s from %q, want %q from %q", i+1, en.Turn, en.Text, en.Status, en.Origin, w.text, w.origin)
		}
	}
}

// A lease another live writer holds is refused with who, where and since
// when; given back, it is free; a lapsed one is taken over and the turns
// its dead holder left streaming are settled as interrupted.
func TestLeaseRefusesThenExpires(t *testing.T) {
	path := testDB(t)
	ctx := context.Background()
	st1, e := openShared(t, path, "", "console")
	if err := e.Submit(ctx, "@a one"); err != nil {
		t.Fatal(err)
	}
	id := e.Info().ID
	holder := st1.Record()
	holder.door = "ask"
	release, err := holder.Lease(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := openShared(t, path, id, "serve")
	other := st2.Record()
	_, err = other.Lease(ctx, id, nil)
	var busy *lease.BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("second lease: %v, want a BusyError", err)
	}
	host, _ := os.Hostname()
	if busy.Door != "ask" || busy.PID != os.Getpid() || busy.Host != host || time.Since(busy.Since) > time.Minute {
		t.Errorf("busy = %+v", busy)
	}
	release()
	release2, err := other.Lease(ctx, id, nil)
	if err != nil {
		t.Fatalf("lease after release: %v", err)
	}
	release2()

	// A holder that died: its lease lapsed, its answer still streaming.
	past := formatTime(time.Now().Add(-time.Minute))
	if _, err := st1.w.Exec(`INSERT INTO session_lease (conversation_id, owner, door, pid, host, since, heartbeat, expires)
		VALUES (?, 'dead', 'ask', 1, 'h', ?, ?, ?) ON CONFLICT(conversation_id) DO UPDATE SET owner = excluded.owner,
		door = excluded.door, pid = excluded.pid, host = excluded.host, since = excluded.since,
		heartbeat = excluded.heartbeat, expires = excluded.expires`, id, past, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := st1.w.Exec(`INSERT INTO conversation_log (conversation_id, turn_number, speaker_name, response, status, writer)
		VALUES (?, 3, 'a', 'half an ans', 'streaming', 'dead')`, id); err != nil {
		t.Fatal(err)
	}
	release3, err := other.Lease(ctx, id, nil)
	if err != nil {
		t.Fatalf("lease after the holder's expiry: %v", err)
	}
	defer release3()
	rows, err := other.Since(ctx, id, 3)
	if err != nil || len(rows) != 1 {
		t.Fatalf("turn 3: %v %v", rows, err)
	}
	if rows[0].Status != transcript.StatusPartial || rows[0].Error != Interrupted || rows[0].Text != "half an ans" {
		t.Errorf("the dead turn is %s %q %q, want partial, interrupted, its text", rows[0].Status, rows[0].Error, rows[0].Text)
	}
}
