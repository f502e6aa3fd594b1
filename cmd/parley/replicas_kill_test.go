package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/store/pgtest"
	"github.com/parleyhq/parley/debate/transcript"
)

// Two parley serve processes on one Postgres: A is killed with SIGKILL in
// the middle of an answer; B, asked to continue the session, is refused
// while A's lease lives, then takes the session once it lapses, settles
// A's answer as interrupted with the text A had checkpointed, and goes on
// with the next turn numbers.
func TestServeReplicaKilledMidAnswer(t *testing.T) {
	t.Parallel() // its own rig (folder, fake, binary processes) and its own Postgres schema
	r := newSharedRig(t)
	c := pgtest.Require(t)
	url := c.Schema(t)
	r.env = append(r.env, "PARLEY_LEASE_TTL=2s")
	a, killA := r.serveReplica(url)
	b, _ := r.serveReplica(url)

	var created struct {
		Session struct{ ID string } `json:"session"`
	}
	postJSON(t, a, "/api/v1/sessions", `{"mode":"mention","user_id":"ada"}`, http.StatusCreated, &created)
	id := created.Session.ID
	postJSON(t, a, "/api/v1/sessions/"+id+"/messages?user_id=ada", `{"text":"@chatgpt stall here"}`, http.StatusAccepted, nil)

	st, err := store.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := st.Record()
	waitRows(t, "A's answer never reached the database", func() bool {
		rows, _ := rec.Since(context.Background(), id, 2)
		return len(rows) == 1 && strings.HasPrefix(rows[0].Text, "part1 part2 part3")
	})
	killA()

	deadline := time.Now().Add(60 * time.Second)
	retry := time.NewTicker(100 * time.Millisecond)
	defer retry.Stop()
	for refused := 0; ; refused++ {
		code := post(t, b, "/api/v1/sessions/"+id+"/messages?user_id=ada", `{"text":"@chatgpt after"}`)
		if code == http.StatusAccepted {
			t.Logf("B was refused %d times while A's lease lived", refused)
			break
		}
		if code != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("B's message: %d, want 409 while A's lease lives, then 202", code)
		}
		<-retry.C
	}
	waitRows(t, "B's answer never completed", func() bool {
		rows, _ := rec.Since(context.Background(), id, 4)
		return len(rows) == 1 && rows[0].Status == transcript.StatusComplete
	})
	rows, err := rec.Since(context.Background(), id, 1)
	if err != nil || len(rows) != 4 {
		t.Fatalf("turns %+v (%v), want 4", rows, err)
	}
	dead := rows[1]
	if dead.Status != transcript.StatusPartial || dead.Error != store.Interrupted || dead.Text != "part1 part2 part3 " {
		t.Errorf("A's killed answer is %s %q %q, want partial, interrupted, its checkpointed text", dead.Status, dead.Error, dead.Text)
	}
	if rows[2].Text != "@chatgpt after" || rows[3].Text != "A:after" {
		t.Errorf("B's turns 3-4: %q %q", rows[2].Text, rows[3].Text)
	}
}

// serveReplica starts parley serve on the database at url and returns its
// base URL and a SIGKILL; it is stopped when the test ends.
func (r *sharedRig) serveReplica(url string) (base string, kill func()) {
	t := r.t
	t.Helper()
	cmd := exec.Command(r.bin, "serve", "--addr", "127.0.0.1:0", "--db", url)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill = func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	}
	t.Cleanup(kill)
	line, err := bufio.NewReader(out).ReadString('\n') // the first line, or EOF when it fails
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("parley serve: %q %v\n%s", line, err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return strings.TrimSpace(strings.TrimPrefix(line, "listening on ")), kill
}

func post(t *testing.T, base, path, body string) int {
	t.Helper()
	resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func postJSON(t *testing.T, base, path, body string, want int, into any) {
	t.Helper()
	resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, data)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatal(err)
		}
	}
}

// waitRows polls the database until ok, failing with what after a minute.
func waitRows(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		<-poll.C
	}
}
