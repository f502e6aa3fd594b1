package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
)

// Break 7 of issue 42: an `ask --session` stopped (SIGSTOP) past its
// 3 s lease is overtaken by a second writer, which settles its answer as
// partial and answers after it. Woken (SIGCONT), the first process writes
// nothing more: it says the session was taken over and exits 1, and the
// answer stays partial with the text it had when it was stopped.
func TestPausedLeaseHolderIsFenced(t *testing.T) {
	t.Parallel()
	r := newSharedRig(t)
	r.env = append(r.env, "PARLEY_LEASE_TTL=3s")
	id := r.session()
	holder := exec.Command(r.bin, "--db", r.db, "ask", "--session", id, "@chatgpt slow answer")
	holder.Dir, holder.Env = r.dir, r.env
	var holderErr bytes.Buffer
	holder.Stderr = &holderErr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- holder.Wait() }()
	defer func() {
		_ = holder.Process.Signal(syscall.SIGCONT)
		_ = holder.Process.Kill()
		<-exited
	}()
	deadline := time.Now().Add(90 * time.Second)
	waitFor(t, 30*time.Second, "answer of the holder in the database", func() bool {
		en := r.entries(id)
		return len(en) == 4 && strings.HasPrefix(en[3].Text, "s00 ")
	})
	if err := holder.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// What the stopped process had saved: its last checkpoint.
	st, err := store.Open(r.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	raw, err := st.Record().Since(context.Background(), id, 4)
	if err != nil || len(raw) == 0 {
		t.Fatalf("turn 4: %v %v", raw, err)
	}
	kept := raw[0].Text

	if _, stderr, err := r.parley("ask", "--session", id, "--wait", "@chatgpt after"); err != nil {
		t.Fatalf("the second writer never got the session: %v\n%s", err, stderr)
	}
	if err := holder.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var werr error
	select {
	case werr = <-exited:
		exited <- werr // for the deferred cleanup
	case <-time.After(time.Until(deadline)):
		t.Fatal("the woken holder never exited")
	}
	var exit *exec.ExitError
	if !errors.As(werr, &exit) || exit.ExitCode() != 1 {
		t.Errorf("the woken holder exited with %v, want 1\n%s", werr, holderErr.String())
	}
	if msg := holderErr.String(); !strings.Contains(msg, "session "+id+" was taken over by ask (pid ") ||
		!strings.Contains(msg, "while this process was paused; its last answer was kept as partial") {
		t.Errorf("the woken holder said: %s", msg)
	}
	raw, err = st.Record().Since(context.Background(), id, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 6 {
		t.Fatalf("the session has %d turns, want 6: %+v", len(raw), raw)
	}
	if got := raw[3]; got.Status != transcript.StatusPartial || got.Error != store.Interrupted || got.Text != kept {
		t.Errorf("the paused answer is %s %q %q, want partial, interrupted, %q", got.Status, got.Error, got.Text, kept)
	}
	if q, a := raw[4], raw[5]; q.Text != "@chatgpt after" || a.Text != "A:after" || a.Status != transcript.StatusComplete {
		t.Errorf("the second writer's exchange is %q then %s %q", q.Text, a.Status, a.Text)
	}
}

// A forged far-future lease blocked a session forever and no command
// cleared it: `parley sessions unlock` clears one whose pid runs on no
// process here, and asks for --force when its holder runs (here: the
// test itself) or is on another host.
func TestSessionsUnlockClearsAForgedLease(t *testing.T) {
	t.Parallel()
	r := newSharedRig(t)
	id := r.session()
	forge := func(pid int, host string) {
		t.Helper()
		db, err := sql.Open("sqlite", r.db)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		far := time.Now().Add(24 * 365 * time.Hour).UTC().Format(time.RFC3339Nano)
		if _, err := db.Exec(`UPDATE session_lease SET owner = 'forged', door = 'ask', pid = ?, host = ?, expires = ?
			WHERE conversation_id = ?`, pid, host, far, id); err != nil {
			t.Fatal(err)
		}
	}
	host, _ := os.Hostname()
	forge(os.Getpid(), host)
	if _, stderr, err := r.parley("ask", "--session", id, "@chatgpt blocked"); err == nil || !strings.Contains(stderr, "is busy") {
		t.Fatalf("a forged lease did not hold the session: %v %s", err, stderr)
	}
	_, stderr, err := r.parley("sessions", "unlock", id)
	if err == nil || !strings.Contains(stderr, "still running") || !strings.Contains(stderr, "--force") {
		t.Errorf("unlocking a running holder: %v %s", err, stderr)
	}
	forge(os.Getpid(), "elsewhere.example")
	if _, stderr, err := r.parley("sessions", "unlock", id); err == nil || !strings.Contains(stderr, "--force") {
		t.Errorf("unlocking a holder on another host: %v %s", err, stderr)
	}
	if out, stderr, err := r.parley("sessions", "unlock", id, "--force"); err != nil || !strings.Contains(out, "cleared the lease") {
		t.Fatalf("unlock --force: %v %s %s", err, out, stderr)
	}
	if _, stderr, err := r.parley("ask", "--session", id, "@chatgpt free"); err != nil {
		t.Fatalf("after unlock the session is still blocked: %v %s", err, stderr)
	}

	forge(0, host) // no process runs with it
	if out, stderr, err := r.parley("sessions", "unlock", id); err != nil || !strings.Contains(out, "cleared the lease") {
		t.Errorf("unlocking a dead holder: %v %s %s", err, out, stderr)
	}
	if out, _, err := r.parley("sessions", "unlock", id); err != nil || !strings.Contains(out, "nothing to clear") {
		t.Errorf("unlocking a free session: %v %s", err, out)
	}
}
