package main

import (
	"bytes"
	"context"
	"database/sql"
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

	"github.com/parleyhq/parley/cmd/parley/internal/cli"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// syncBuffer is a buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until ok holds, failing the test after deadline.
func waitFor(t *testing.T, deadline time.Duration, what string, ok func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		if time.Now().After(end) {
			t.Fatalf("no %s within %v", what, deadline)
		}
		<-tick.C
	}
}

// SIGTERM (systemd, docker stop, CI) and SIGHUP (a closed ssh) end a real
// headless parley the Ctrl+C way: the text that arrived is printed and
// saved, its row is cancelled, not left streaming, and the exit is 1.
func TestStopSignalsKeepTheAnswer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildParley(t)
	chunks := make([]string, 2000)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("w%04d ", i)
	}
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: chunks, ChunkDelay: 10 * time.Millisecond}
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "s.db")
			cmd := exec.Command(bin, "--db", db, "ask", "@chatgpt a long answer please")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
				"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=")
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill()
				<-exited
			}()
			waitFor(t, 30*time.Second, "streamed text on stdout", func() bool { return strings.Contains(stdout.String(), "w0020") })
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
				exited <- err // for the deferred wait
			case <-time.After(20 * time.Second):
				t.Fatalf("parley still runs 20s after %v; stderr %q", sig, stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != cli.ExitRuntime {
				t.Fatalf("exit %v, want code 1; stderr %q", err, stderr.String())
			}
			out := stdout.String()
			if !strings.Contains(out, "[ChatGPT]: w0000") || !strings.Contains(out, "[cancelled]") {
				t.Fatalf("stdout lacks the kept text or the cancel mark:\n%.300s…%s", out, out[max(len(out)-200, 0):])
			}
			st, err := store.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			id, err := st.Latest(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			_, entries, err := st.Load(context.Background(), id)
			if err != nil || len(entries) != 2 {
				t.Fatalf("entries %+v, %v", entries, err)
			}
			if got := entries[1]; got.Status != transcript.StatusCancelled || !strings.Contains(got.Text, "w0020") || !strings.Contains(out, strings.TrimSpace(got.Text)) {
				t.Fatalf("saved turn: %s %q (%d bytes); printed %d bytes", got.Status, got.Text[:min(len(got.Text), 60)], len(got.Text), len(out))
			}
		})
	}
}

// A session that cannot be saved (here every insert is refused, as a locked
// or full database refuses it) is reported once on stderr, and the command
// exits 1 even though its answer came through.
func TestFailedSaveIsReportedOnceAndExitsNonZero(t *testing.T) {
	t.Parallel()
	dir := isolate(t)
	db := filepath.Join(dir, "refusing.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON conversation_meta BEGIN SELECT RAISE(ABORT, 'database is locked'); END`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	code, out, stderr := runCLI(t, "", "--demo", "--db", db, "ask", "@chatgpt hi")
	if code != cli.ExitRuntime {
		t.Fatalf("exit %d, want 1\nout %q\nerr %q", code, out, stderr)
	}
	if !strings.Contains(out, "[ChatGPT]:") {
		t.Fatalf("the answer was not printed: %q", out)
	}
	if n := strings.Count(stderr, "database is locked"); n != 1 || !strings.Contains(stderr, "parley: saving the session failed: ") {
		t.Fatalf("the failure is reported %d times:\n%s", n, stderr)
	}
}
