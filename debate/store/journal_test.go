package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/lease"
	"github.com/parleyhq/parley/debate/transcript"
)

// These tests play several processes on one database file: each writer
// has its own Store (its own connections) and Recorder, as `parley ask`,
// the console and serve do. A paused holder is one whose lease row is
// made to lapse (its heartbeat never ran) while it still means to write.

// writer is one process's view of the database.
type writer struct {
	st   *Store
	rec  *Recorder
	lost chan error // what the journal told the holder's engine
}

func newWriter(t *testing.T, path, door string) *writer {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	rec := st.Record()
	rec.door = door
	return &writer{st: st, rec: rec, lost: make(chan error, 4)}
}

// lease takes the session or fails the test.
func (w *writer) lease(t *testing.T, id string) func() {
	t.Helper()
	release, err := w.rec.Lease(context.Background(), id, func(err error) { w.lost <- err })
	if err != nil {
		t.Fatalf("%s's lease: %v", w.rec.door, err)
	}
	return release
}

// told is the loss the journal told this holder's engine (Lease's lost
// is called before the refused write returns).
func (w *writer) told(t *testing.T) error {
	t.Helper()
	select {
	case err := <-w.lost:
		return err
	default:
		t.Errorf("%s's engine was not told its lease is lost", w.rec.door)
		return nil
	}
}

// appendTurn saves en as the next turn, after turn after.
func (w *writer) appendTurn(t *testing.T, info debate.SessionInfo, en transcript.Entry, after int) transcript.Entry {
	t.Helper()
	saved, _, err := w.rec.Append(info, en, after)
	if err != nil {
		t.Fatalf("%s's append: %v", w.rec.door, err)
	}
	return saved
}

// lapse makes the session's lease expire, as a holder paused past its
// lease would leave it.
func lapse(t *testing.T, st *Store, id string) {
	t.Helper()
	past := formatTime(time.Now().Add(-time.Second))
	if _, err := st.w.Exec(`UPDATE session_lease SET expires = ? WHERE conversation_id = ?`, past, id); err != nil {
		t.Fatal(err)
	}
}

// rowAt is turn n of the session as saved (not as a resume settles it).
func rowAt(t *testing.T, st *Store, id string, n int) transcript.Entry {
	t.Helper()
	rows, err := liveEntries(context.Background(), st.r, id, `WHERE conversation_id = ? AND turn_number = ?`, id, n)
	if err != nil || len(rows) != 1 {
		t.Fatalf("turn %d: %v %v", n, rows, err)
	}
	return rows[0]
}

func question(text string) transcript.Entry {
	return transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: text, Status: transcript.StatusComplete, Started: time.Now()}
}

func streaming(agent string) transcript.Entry {
	return transcript.Entry{Kind: transcript.KindReply, Speaker: agent, Model: "demo-" + agent, Status: transcript.StatusStreaming, Started: time.Now()}
}

func newInfo() debate.SessionInfo {
	return debate.SessionInfo{ID: debate.NewSessionID(), Mode: "mention", Title: "journal", Created: time.Now()}
}

// A holder paused past its lease is overtaken: the taker gets the next
// generation and settles the paused answer as partial with its last
// checkpoint; the paused holder's finish, late checkpoint, next turn and
// heartbeat are all refused, naming who took the session, and its engine
// is told once; its release leaves the new holder's lease alone.
func TestJournalTakeoverFencesThePausedHolder(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	a, b := newWriter(t, path, "ask"), newWriter(t, path, "console")
	info := newInfo()
	id := info.ID
	releaseA := a.lease(t, id)
	a.appendTurn(t, info, question("@a q"), 0)
	ans := a.appendTurn(t, info, streaming("a"), 1)
	if err := a.rec.apply(ctx, nil, []pendingText{{key: liveKey{id, ans.Turn}, text: "half "}}); err != nil {
		t.Fatal(err)
	}
	genA := a.rec.leases[id].gen

	if _, err := b.rec.Lease(ctx, id, nil); !lease.IsBusy(err) {
		t.Fatalf("a live lease was not refused: %v", err)
	}
	lapse(t, a.st, id)
	releaseB := b.lease(t, id)
	defer releaseB()
	l, _, err := readLease(ctx, b.st.r, id)
	if err != nil || l.gen != genA+1 || l.door != "console" {
		t.Fatalf("after the takeover the lease is %+v (%v), want console's, generation %d", l, err, genA+1)
	}
	if got := rowAt(t, b.st, id, ans.Turn); got.Status != transcript.StatusPartial || got.Text != "half " || got.Error != Interrupted {
		t.Fatalf("the paused answer is %s %q %q, want partial, its checkpoint, interrupted", got.Status, got.Text, got.Error)
	}

	// The paused holder wakes up and finishes its answer.
	done := ans
	done.Text, done.Status = "half and whole", transcript.StatusComplete
	err = a.rec.Finish(id, done)
	var taken *lease.TakenOverError
	if !errors.As(err, &taken) || taken.Door != "console" || taken.PID != os.Getpid() {
		t.Fatalf("the paused holder's finish: %v, want taken over by console", err)
	}
	if told := a.told(t); !errors.As(told, &taken) {
		t.Errorf("the engine was told %v", told)
	}
	if err := a.rec.apply(ctx, nil, []pendingText{{key: liveKey{id, ans.Turn}, text: "half and whole"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.rec.Append(info, question("@a more"), ans.Turn); !lease.IsLost(err) {
		t.Errorf("the paused holder's next turn: %v, want refused", err)
	}
	if err := a.rec.beat(id, genA); !errors.As(err, &taken) {
		t.Errorf("the paused holder's heartbeat: %v, want taken over", err)
	}
	if got := rowAt(t, b.st, id, ans.Turn); got.Status != transcript.StatusPartial || got.Text != "half " {
		t.Errorf("after the paused holder woke its answer is %s %q, want still partial %q", got.Status, got.Text, "half ")
	}
	select {
	case again := <-a.lost:
		t.Errorf("the engine was told twice: %v", again)
	default:
	}

	// The paused holder gives its lease back: the new holder keeps it.
	releaseA()
	c := newWriter(t, path, "serve")
	if _, err := c.rec.Lease(ctx, id, nil); !lease.IsBusy(err) {
		t.Fatalf("after the overtaken writer's release a third writer got the lease (%v): it freed the new holder's", err)
	}
	next := b.appendTurn(t, info, question("@b go on"), ans.Turn)
	if next.Turn != ans.Turn+1 {
		t.Errorf("the new holder's turn is %d, want %d", next.Turn, ans.Turn+1)
	}
}

// A checkpoint read before a turn finished and committed after it never
// undoes the finish.
func TestJournalLateCheckpointKeepsTheFinish(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	a := newWriter(t, path, "ask")
	info := newInfo()
	defer a.lease(t, info.ID)()
	a.appendTurn(t, info, question("@a q"), 0)
	ans := a.appendTurn(t, info, streaming("a"), 1)
	ans.Text, ans.Status = "the whole answer", transcript.StatusComplete
	if err := a.rec.Finish(info.ID, ans); err != nil {
		t.Fatal(err)
	}
	if err := a.rec.apply(ctx, nil, []pendingText{{key: liveKey{info.ID, ans.Turn}, text: "the wh"}}); err != nil {
		t.Fatal(err)
	}
	if got := rowAt(t, a.st, info.ID, ans.Turn); got.Text != "the whole answer" || got.Status != transcript.StatusComplete {
		t.Errorf("after a late checkpoint the answer is %s %q", got.Status, got.Text)
	}
}

// A turn another process saved between this writer's last read and its
// next turn comes back with that turn, for the engine to take in.
func TestJournalAppendReportsAnotherProcessesTurn(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	a, b := newWriter(t, path, "console"), newWriter(t, path, "ask")
	info := newInfo()
	a.appendTurn(t, info, question("@a one"), 0)
	note := b.appendTurn(t, info, question("a note from elsewhere"), 1)
	saved, missed, err := a.rec.Append(info, question("@a two"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Turn != 3 || len(missed) != 1 || missed[0].Turn != note.Turn || missed[0].Text != "a note from elsewhere" || missed[0].Origin != "ask" {
		t.Errorf("saved as turn %d with missed %+v, want turn 3 after ask's note (turn %d)", saved.Turn, missed, note.Turn)
	}
}

// A lease is live until its expiry and lapsed after it, both for a writer
// taking it and for a resumed session settling the turns left streaming:
// a live holder's answer is its own to finish.
func TestJournalLeaseExpiry(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	a, b := newWriter(t, path, "ask"), newWriter(t, path, "console")
	info := newInfo()
	id := info.ID
	defer a.lease(t, id)()
	a.appendTurn(t, info, question("@a q"), 0)
	ans := a.appendTurn(t, info, streaming("a"), 1)

	b.rec.Sink(debate.SessionStarted{Session: info, Resumed: true}) // the console resumes it
	if err := b.rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := rowAt(t, b.st, id, ans.Turn); got.Status != transcript.StatusStreaming {
		t.Fatalf("a resume settled a live holder's answer: %s", got.Status)
	}
	_, err := b.rec.Lease(ctx, id, nil)
	var busy *lease.BusyError
	if !errors.As(err, &busy) || busy.Door != "ask" || !busy.Expires.After(time.Now()) {
		t.Fatalf("a live lease: %v, want busy until a later expiry", err)
	}

	lapse(t, a.st, id)
	b.rec.Sink(debate.SessionStarted{Session: info, Resumed: true})
	if err := b.rec.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := rowAt(t, b.st, id, ans.Turn); got.Status != transcript.StatusError || got.Error != Interrupted {
		t.Errorf("a lapsed holder's empty answer is %s %q, want error, interrupted", got.Status, got.Error)
	}
	release, err := b.rec.Lease(ctx, id, nil)
	if err != nil {
		t.Fatalf("a lapsed lease was not taken: %v", err)
	}
	release()
}

// A session deleted while a writer has it open is never re-created: its
// next turn, its lease, its session updates and its holder's finish are
// refused as deleted, and the holder's engine is told.
func TestJournalDeletedSessionStaysDeleted(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	a, other := newWriter(t, path, "console"), newWriter(t, path, "ask")
	info := newInfo()
	id := info.ID
	a.rec.Sink(debate.SessionStarted{Session: info})
	a.appendTurn(t, info, question("@a one"), 0)

	// The holder mid-answer.
	releaseA := a.lease(t, id)
	ans := a.appendTurn(t, info, streaming("a"), 1)
	if err := other.st.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	ans.Text, ans.Status = "answered", transcript.StatusComplete
	var gone *lease.DeletedError
	if err := a.rec.Finish(id, ans); !errors.As(err, &gone) {
		t.Errorf("finishing a turn of a deleted session: %v, want deleted", err)
	}
	if told := a.told(t); !errors.As(told, &gone) {
		t.Errorf("the engine was told %v", told)
	}
	releaseA()

	// Then the console's next question, and its session updates.
	if _, _, err := a.rec.Append(info, question("@a two"), 2); !errors.As(err, &gone) {
		t.Errorf("a turn in a deleted session: %v", err)
	}
	if _, err := a.rec.Lease(ctx, id, nil); !errors.As(err, &gone) {
		t.Errorf("a lease on a deleted session: %v", err)
	}
	renamed := info
	renamed.Title = "renamed"
	a.rec.Sink(debate.SessionUpdated{Session: renamed})
	_ = a.rec.Flush()
	if _, _, err := other.st.Load(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("the deleted session came back: %v", err)
	}

	// A session this writer never saw saved is a new one: written freely.
	fresh := newInfo()
	defer other.lease(t, fresh.ID)()
	other.appendTurn(t, fresh, question("@b new"), 0)
	if _, _, err := other.st.Load(ctx, fresh.ID); err != nil {
		t.Errorf("a new session was not saved: %v", err)
	}
}

// sessions unlock clears a lease whose holder is dead (its pid runs no
// more, or the pid is no process's), refuses a live one or one on another
// host without --force, and clears a forged far-future lease with it.
func TestJournalUnlock(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	a, b := newWriter(t, path, "ask"), newWriter(t, path, "console")
	info := newInfo()
	id := info.ID
	a.appendTurn(t, info, question("@a q"), 0)
	forge := func(pid int, host string) {
		t.Helper()
		future := formatTime(time.Now().Add(1000 * time.Hour))
		if _, err := a.st.w.Exec(`INSERT INTO session_lease (conversation_id, owner, door, pid, host, since, heartbeat, expires, generation)
			VALUES (?, 'forged', 'ask', ?, ?, ?, ?, ?, 7) ON CONFLICT(conversation_id) DO UPDATE SET owner = excluded.owner,
			pid = excluded.pid, host = excluded.host, expires = excluded.expires`, id, pid, host, future, future, future); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.st.Unlock(ctx, id, false); !errors.Is(err, ErrNoLease) {
		t.Errorf("unlocking a free session: %v", err)
	}

	var alive *HolderAliveError
	forge(os.Getpid(), hostname()) // a holder that runs: this test
	if _, err := a.st.Unlock(ctx, id, false); !errors.As(err, &alive) || alive.Unknown {
		t.Errorf("unlocking a running holder: %v, want refused as alive", err)
	}
	forge(os.Getpid(), "elsewhere.example")
	if _, err := a.st.Unlock(ctx, id, false); !errors.As(err, &alive) || !alive.Unknown {
		t.Errorf("unlocking a holder on another host: %v, want refused as unknown", err)
	}
	if _, err := b.rec.Lease(ctx, id, nil); !lease.IsBusy(err) {
		t.Fatalf("a forged far-future lease did not hold: %v", err)
	}
	held, err := a.st.Unlock(ctx, id, true)
	if err != nil || held.Host != "elsewhere.example" || held.Generation != 7 {
		t.Fatalf("unlock --force: %+v %v", held, err)
	}
	release := b.lease(t, id)
	release()

	forge(0, hostname()) // no process has pid 0's lease
	if _, err := a.st.Unlock(ctx, id, false); err != nil {
		t.Errorf("unlocking a dead holder: %v", err)
	}
	release = b.lease(t, id)
	l, _, _ := readLease(ctx, b.st.r, id)
	if l.gen <= 7 {
		t.Errorf("the generation went back to %d after an unlock", l.gen)
	}
	release()
	if _, err := a.st.Unlock(ctx, "nosuchsession", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("unlocking an unknown session: %v", err)
	}
}

// PARLEY_LEASE_TTL is read within bounds: anything else is the default.
func TestLeaseTTLBounds(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"3s": 3 * time.Second, "1h": time.Hour, "": 15 * time.Second,
		"500ms": 15 * time.Second, "2h": 15 * time.Second, "-5s": 15 * time.Second, "NaN": 15 * time.Second,
		"9999999h": 15 * time.Second} {
		if got := ParseLeaseTTL(v); got != want {
			t.Errorf("ParseLeaseTTL(%q) = %v, want %v", v, got, want)
		}
	}
}

// A write of the holder that races its own release (a note while the
// exchange ends, the recorder's queue) is fenced by a lease given back,
// not taken: it goes through. Once another writer took the lease, it is
// refused.
func TestJournalWriteRacingItsOwnRelease(t *testing.T) {
	t.Parallel()
	path := testDB(t)
	ctx := context.Background()
	a, b := newWriter(t, path, "console"), newWriter(t, path, "ask")
	info := newInfo()
	release := a.lease(t, info.ID)
	a.appendTurn(t, info, question("@a q"), 0)
	guard, err := a.rec.writeGuard(info.ID) // read while the lease is held
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := a.st.inTx(ctx, func(tx *sql.Tx) error { return guard(ctx, tx) }); err != nil {
		t.Errorf("a write racing its own release was refused: %v", err)
	}
	defer b.lease(t, info.ID)()
	err = a.st.inTx(ctx, func(tx *sql.Tx) error { return guard(ctx, tx) })
	var taken *lease.TakenOverError
	if !errors.As(err, &taken) || taken.Door != "ask" {
		t.Errorf("a write fenced by a lease another took since: %v, want taken over by ask", err)
	}
}
