package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/debatetest"
)

// serve starts `parley serve` on the fixture's database with args and
// returns its base URL; the server is killed when the test ends.
func (f *checkpointFixture) serve(t *testing.T, args ...string) string {
	t.Helper()
	base, _ := f.startServe(t, args...)
	return base
}

// startServe is serve, also returning the process (to kill it mid-run).
func (f *checkpointFixture) startServe(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	mode := f.mode
	f.mode = "serve"
	cmd := f.command(append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	f.mode = mode
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut syncBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	t.Cleanup(func() { // what the server said, for a failure seen only in CI
		if t.Failed() {
			t.Logf("parley serve %v said on stderr:\n%s", args, errOut.String())
		}
	})
	first := make(chan string, 1)
	go func() {
		lines := bufio.NewReader(out)
		l, _ := lines.ReadString('\n')
		first <- l
		_, _ = io.Copy(io.Discard, lines)
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(time.Minute):
		t.Fatalf("no first line within a minute; stderr: %s", errOut.String())
	}
	m := regexp.MustCompile(`^listening on (http://127\.0\.0\.1:\d+)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q; stderr: %s", line, errOut.String())
	}
	return m[1], cmd
}

// An alternation killed at its point after the start is answered over the
// API: `parley serve` on the same database shows it awaiting_host, POST
// …/checkpoint with a note goes on from it (the note in every later
// request, none before), the next point (after step 1 of 2) waits for the
// API again, and stop there ends the steps left with the outcome saved.
func TestAlternateCheckpointKilledThenAnsweredOverTheAPI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	f := newCheckpointFixture(t)
	f.mode = "alternate"
	id := f.killedAtCheckpoint(t, "CHECKPOINT after the start", "--checkpoint", "each_round", "--steps", "3", "write a Go LRU cache")
	base := f.serve(t) + "/api/v1/sessions/" + id
	get := func() map[string]any {
		t.Helper()
		resp, err := http.Get(base)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		if raw, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &v) != nil {
			t.Fatalf("GET %s: %d %s", base, resp.StatusCode, raw)
		}
		return v
	}
	waitRound := func(round float64) {
		t.Helper()
		waitRows(t, fmt.Sprintf("the session never waited after step %v", round), func() bool {
			d := get()
			p, _ := d["checkpoint"].(map[string]any)
			return d["status"] == "awaiting_host" && p != nil && p["round"] == round
		})
	}
	if d := get(); d["status"] != "awaiting_host" {
		t.Fatalf("the killed run's session: status %v", d["status"])
	}
	const note = "NOTE-9 keep it under 50 lines"
	postJSON(t, base, "/checkpoint", `{"action":"note","text":"`+note+`"}`, http.StatusOK, nil)
	waitRound(1)
	postJSON(t, base, "/checkpoint", `{"action":"stop"}`, http.StatusOK, nil)
	waitRows(t, "the session never went idle after the stop", func() bool { return get()["status"] == "idle" })
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (the start's two, step 1; nothing after the stop)", len(reqs))
	}
	for i, r := range reqs {
		if has := strings.Contains(debatetest.MagiAllText(r.Messages), note); has != (i >= 2) {
			t.Errorf("request %d has the note: %v", i, has)
		}
	}
	if note, outcome := entriesHold(get(), note, "STOPPED by the host after step 1 of 3 · 2 steps not run"); !note || !outcome {
		t.Errorf("entries: the note %v, the outcome %v", note, outcome)
	}
}

// entriesHold reports whether a session's entries hold the host's note (a
// user entry) and an entry whose text is outcome.
func entriesHold(detail map[string]any, note, outcome string) (noted, outcomed bool) {
	entries, _ := detail["entries"].([]any)
	for _, en := range entries {
		e, _ := en.(map[string]any)
		text, _ := e["text"].(string)
		noted = noted || e["kind"] == "user" && text == note
		outcomed = outcomed || text == outcome
	}
	return noted, outcomed
}
