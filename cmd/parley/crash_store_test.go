package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// A real parley streaming from a slow fake is killed with SIGKILL mid-answer:
// the answer's row holds at least what its last checkpoint seen before the
// kill had saved (checked without a clock: it once compared stream time with
// stored text and failed on a loaded machine), the database passes its integrity check, the turn
// resumes as interrupted, and the fake key is in no byte of any file.
func TestCrashMidAnswerKeepsCheckpointedText(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	bin := buildParley(t)

	const (
		chunkCount = 1500
		chunkDelay = 20 * time.Millisecond
		fakeKey    = "sk-crash-test-9f8e7d6c5b4a39281706"
	)
	chunks := make([]string, chunkCount)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("w%04d ", i)
	}
	full := strings.Join(chunks, "")
	srv := providertest.OpenAI(t, func(providertest.Request) providertest.Reply {
		return providertest.Reply{Chunks: chunks, ChunkDelay: chunkDelay}
	})

	dir := t.TempDir()
	db := filepath.Join(dir, "crash.db")
	cmd := exec.Command(bin, "--db", db, "ask", "@chatgpt write a very long answer")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "OPENAI_API_KEY="+fakeKey, "OPENAI_BASE_URL="+srv.URL,
		"ANTHROPIC_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "PARLEY_DB=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	// Wait until two checkpoints of the answer, one after the other, are
	// visible to another process (the text is saved while it streams, not
	// only at its end), then kill it. No clock decides anything: a loaded
	// machine only makes the wait longer.
	ctx := context.Background()
	var st *store.Store
	deadline := time.Now().Add(60 * time.Second)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	first, seen := 0, 0
	for first == 0 || seen <= first {
		if time.Now().After(deadline) {
			t.Fatalf("no second checkpoint within 60s (first %d chunks, then %d); stderr: %s", first, seen, stderr.String())
		}
		<-poll.C
		if st == nil {
			if _, err := os.Stat(db); err != nil {
				continue
			}
			opened, err := store.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			st = opened
			defer st.Close()
		}
		if id, err := st.Latest(ctx); err == nil {
			if _, entries, err := st.Load(ctx, id); err == nil && len(entries) == 2 {
				seen = len(entries[1].Text) / 6
				if first == 0 && seen >= 40 {
					first = seen
				}
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true

	if err := st.Check(ctx); err != nil {
		t.Fatalf("after SIGKILL: %v", err)
	}
	id, err := st.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, entries, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Kind != transcript.KindUser || entries[1].Speaker != "chatgpt" {
		t.Fatalf("entries = %+v", entries)
	}
	got := entries[1]
	if !strings.HasPrefix(full, got.Text) || got.Text == "" {
		t.Fatalf("stored text is not a prefix of the answer: %q", got.Text)
	}
	if got.Status != transcript.StatusPartial || got.Error != store.Interrupted {
		t.Errorf("killed turn loads as %s %q, want partial, interrupted", got.Status, got.Error)
	}
	// Nothing a checkpoint saved before the kill is lost; the answer did
	// not end before the kill (the turn is partial, shorter than the whole).
	stored := len(got.Text) / 6
	t.Logf("checkpoints seen at %d and %d chunks; %d chunks stored after the kill", first, seen, stored)
	if stored < seen {
		t.Errorf("after SIGKILL %d chunks are stored, fewer than the %d a checkpoint had saved", stored, seen)
	}
	if len(got.Text) >= len(full) {
		t.Errorf("the whole answer was stored: the kill came after the end")
	}

	for _, name := range []string{db, db + "-wal", db + "-shm"} {
		b, err := os.ReadFile(name)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(fakeKey)) || bytes.Contains(b, []byte("crash-test-9f8e")) {
			t.Errorf("%s holds the API key", filepath.Base(name))
		}
	}
	for _, format := range []string{"md", "json"} {
		var b bytes.Buffer
		if err := st.Export(ctx, &b, id, format); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b.Bytes(), []byte(fakeKey)) {
			t.Errorf("the %s export holds the API key", format)
		}
	}
	if strings.Contains(stderr.String(), fakeKey) {
		t.Error("stderr shows the API key")
	}
}
