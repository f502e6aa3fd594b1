package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// sharedRig is a session database and a fake OpenAI that answers each
// question with "A:" and the question, slowly enough that exchanges
// started at once overlap.
type sharedRig struct {
	t   *testing.T
	bin string
	dir string
	db  string
	srv *providertest.Server
	env []string
}

func newSharedRig(t *testing.T) *sharedRig {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	r := &sharedRig{t: t, bin: buildParley(t), dir: t.TempDir()}
	r.db = filepath.Join(r.dir, "shared.db")
	r.srv = providertest.OpenAI(t, func(req providertest.Request) providertest.Reply {
		q := ""
		if n := len(req.Messages); n > 0 {
			q = req.Messages[n-1].Content
		}
		if strings.HasPrefix(lastLine(q), "stall") {
			return providertest.Reply{Chunks: []string{"part1 ", "part2 ", "part3 ", "never"}, StallAfter: 3}
		}
		if strings.HasPrefix(lastLine(q), "slow") { // long enough to be paused in the middle
			chunks := make([]string, 30)
			for i := range chunks {
				chunks[i] = fmt.Sprintf("s%02d ", i)
			}
			return providertest.Reply{Chunks: chunks, ChunkDelay: 200 * time.Millisecond}
		}
		answer := "A:" + lastLine(q)
		return providertest.Reply{Chunks: []string{answer[:2], answer[2:]}, ChunkDelay: 150 * time.Millisecond}
	})
	r.env = append(os.Environ(), "HOME="+r.dir, "XDG_CONFIG_HOME="+filepath.Join(r.dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(r.dir, "data"), "OPENAI_API_KEY=sk-shared-test", "OPENAI_BASE_URL="+r.srv.URL,
		"ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=")
	return r
}

// lastLine is the question a prompt ends with (the history before it is
// prefixed lines such as "[Host]: …").
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.Index(s, "]: "); i >= 0 && strings.HasPrefix(s, "[") {
		s = s[i+3:]
	}
	return strings.TrimPrefix(strings.TrimSpace(s), "@chatgpt ")
}

// parley runs the built binary to its end.
func (r *sharedRig) parley(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(r.bin, append([]string{"--db", r.db}, args...)...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// session starts a session with one exchange and returns its ID.
func (r *sharedRig) session() string {
	r.t.Helper()
	if _, stderr, err := r.parley("ask", "@chatgpt q0"); err != nil {
		r.t.Fatalf("first ask: %v\n%s", err, stderr)
	}
	st, err := store.Open(r.db)
	if err != nil {
		r.t.Fatal(err)
	}
	defer st.Close()
	id, err := st.Latest(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return id
}

func (r *sharedRig) entries(id string) []transcript.Entry {
	r.t.Helper()
	st, err := store.Open(r.db)
	if err != nil {
		r.t.Fatal(err)
	}
	defer st.Close()
	_, entries, err := st.Load(context.Background(), id)
	if err != nil {
		r.t.Fatal(err)
	}
	return entries
}

// asked reports whether the fake was sent question q as the newest message.
func (r *sharedRig) asked(q string) bool {
	for _, req := range r.srv.Requests() {
		if n := len(req.Messages); n > 0 && lastLine(req.Messages[n-1].Content) == q {
			return true
		}
	}
	return false
}

type runOutcome struct {
	question string
	err      error
	stderr   string
}

// TestConcurrentAsksLoseNoTurn runs N `parley ask --session ID` at once on
// one session, as separate processes on one SQLite file: every question
// is either kept with its own answer right after it, or refused (exit ≠ 0,
// naming who holds the session) before any provider call. With --wait
// every one is kept.
func TestConcurrentAsksLoseNoTurn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		wait bool
	}{{2, false}, {8, false}, {8, true}} {
		t.Run(fmt.Sprintf("n=%d,wait=%v", tc.n, tc.wait), func(t *testing.T) {
			r := newSharedRig(t)
			id := r.session()
			outcomes := make([]runOutcome, tc.n)
			var wg sync.WaitGroup
			for i := range tc.n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					q := fmt.Sprintf("question-%d", i+1)
					args := []string{"ask", "--session", id}
					if tc.wait {
						args = append(args, "--wait")
					}
					_, stderr, err := r.parley(append(args, "@chatgpt "+q)...)
					outcomes[i] = runOutcome{question: q, err: err, stderr: stderr}
				}()
			}
			wg.Wait()
			checkShared(t, r, id, outcomes, tc.wait)
		})
	}
}

// checkShared checks the session after concurrent runs and reports the counts.
func checkShared(t *testing.T, r *sharedRig, id string, outcomes []runOutcome, wait bool) {
	t.Helper()
	entries := r.entries(id)
	for i, en := range entries {
		if en.Turn != i+1 {
			t.Fatalf("turn numbers not contiguous at %d: %+v", i, en)
		}
	}
	at := map[string]int{} // question → its position
	for i, en := range entries {
		if en.Kind == transcript.KindUser {
			q := strings.TrimPrefix(en.Text, "@chatgpt ")
			if _, dup := at[q]; dup {
				t.Errorf("question %q saved twice", q)
			}
			at[q] = i
		}
	}
	kept, refused := 0, 0
	for _, o := range outcomes {
		pos, saved := at[o.question]
		var exit *exec.ExitError
		switch {
		case o.err == nil:
			if !saved || pos+1 >= len(entries) {
				t.Errorf("%s exited 0 but is not in the session", o.question)
				continue
			}
			ans := entries[pos+1]
			if ans.Speaker != "chatgpt" || ans.Text != "A:"+o.question || ans.Status != transcript.StatusComplete {
				t.Errorf("%s is followed by %s %s %q, want its own complete answer", o.question, ans.Speaker, ans.Status, ans.Text)
			}
			kept++
		case errors.As(o.err, &exit):
			if wait {
				t.Errorf("%s with --wait failed: %v\n%s", o.question, o.err, o.stderr)
			}
			if !strings.Contains(o.stderr, "is busy") || !strings.Contains(o.stderr, "--wait") || !strings.Contains(o.stderr, "pid ") {
				t.Errorf("%s refused without saying who holds the session: %s", o.question, o.stderr)
			}
			if saved {
				t.Errorf("%s was refused but saved", o.question)
			}
			if r.asked(o.question) {
				t.Errorf("%s was refused after a provider call", o.question)
			}
			refused++
		default:
			t.Fatalf("%s: %v", o.question, o.err)
		}
	}
	if want := 2 + 2*kept; len(entries) != want {
		t.Errorf("session has %d turns, want %d (2 before + 2 per kept run)", len(entries), want)
	}
	if kept == 0 {
		t.Errorf("no run was kept")
	}
	t.Logf("runs %d, turns expected %d, turns kept %d, refusals %d", len(outcomes), 2+2*kept, len(entries), refused)
}

// TestKilledLeaseHolder kills (SIGKILL) a parley that holds a session's
// lease mid-answer: the next writer is refused while the lease is live,
// gets the session once it expires (--wait), and the dead answer is
// settled as interrupted with the text that had arrived.
func TestKilledLeaseHolder(t *testing.T) {
	t.Parallel()
	r := newSharedRig(t)
	r.env = append(r.env, "PARLEY_LEASE_TTL=3s")
	id := r.session()
	holder := exec.Command(r.bin, "--db", r.db, "ask", "--session", id, "@chatgpt stall here")
	holder.Dir, holder.Env = r.dir, r.env
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = holder.Process.Kill()
			_ = holder.Wait()
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		if time.Now().After(deadline) {
			t.Fatal("the holder's answer never reached the database")
		}
		<-poll.C
		if en := r.entries(id); len(en) == 4 && strings.HasPrefix(en[3].Text, "part1 part2 part3") {
			break
		}
	}
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	killed = true

	_, stderr, err := r.parley("ask", "--session", id, "@chatgpt too soon")
	if err == nil || !strings.Contains(stderr, "is busy") {
		t.Logf("a writer right after the kill was not refused (the 3s lease may already have lapsed on a loaded machine): %v %s", err, stderr)
	}
	if _, stderr, err := r.parley("ask", "--session", id, "--wait", "@chatgpt after"); err != nil {
		t.Fatalf("the next writer never got the session: %v\n%s", err, stderr)
	}
	entries := r.entries(id)
	st, err := store.Open(r.db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	raw, err := st.Record().Since(context.Background(), id, 4) // as saved, not as a resume settles it
	if err != nil || len(raw) == 0 {
		t.Fatalf("turn 4: %v %v", raw, err)
	}
	dead := raw[0]
	if dead.Status != transcript.StatusPartial || dead.Error != store.Interrupted || dead.Text != "part1 part2 part3 " {
		t.Errorf("the killed answer is %s %q %q, want partial, interrupted, its text", dead.Status, dead.Error, dead.Text)
	}
	// It is charged its estimate (the prompt and what streamed), not $0.
	if !dead.Usage.Estimated || dead.Usage.InputTokens == 0 || dead.Usage.OutputTokens == 0 || dead.Cost <= 0 {
		t.Errorf("the killed answer is charged $%g for %+v, want its estimated spend", dead.Cost, dead.Usage)
	}
	last := entries[len(entries)-1]
	if q := entries[len(entries)-2]; q.Text != "@chatgpt after" || last.Text != "A:after" || last.Status != transcript.StatusComplete {
		t.Errorf("the next writer's exchange is %q then %q %s", q.Text, last.Text, last.Status)
	}
}
