package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/providertest"
)

// heldAnswer is what every fake model answers: twenty words, of which the
// first four stream at once and the rest wait until the client goes away.
const heldAnswer = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"

// heldVendors are the three vendors' fakes (real wire formats, real SDKs
// on Parley's side) answering every prose prompt with heldAnswer, held
// after four words until the connection is closed.
func heldVendors(t *testing.T) []string {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	env, _ := fakeVendors(t, func(r providertest.Request) (providertest.Reply, bool) {
		return providertest.Reply{Text: heldAnswer, Hold: hold, HoldAfter: 4}, true
	})
	return env
}

// askAll is the ask call of every ending test: one agent per vendor.
const askAll = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"question":"Leave mid-answer?","agents":["gemini","chatgpt","claude"]}}}`

// rawTurns is the session's turns as the server saved them (Load would
// settle a turn left streaming, hiding the defect this file tests).
func rawTurns(t *testing.T, st *store.Store) (string, []transcript.Entry) {
	t.Helper()
	list, err := st.List(context.Background())
	if err != nil || len(list) == 0 {
		return "", nil
	}
	entries, err := st.Record().Since(context.Background(), list[0].ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	return list[0].ID, entries
}

// waitTurns polls the saved turns until ok holds, within deadline.
func waitTurns(t *testing.T, st *store.Store, deadline time.Duration, what string, ok func([]transcript.Entry) bool) []transcript.Entry {
	t.Helper()
	end := time.Now().Add(deadline)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		_, entries := rawTurns(t, st)
		if ok(entries) {
			return entries
		}
		if time.Now().After(end) {
			t.Fatalf("%s not seen within %v; saved turns: %+v", what, deadline, entries)
		}
	}
	return nil
}

// answering: every agent's answer is saved streaming with the words that
// arrived (a checkpoint), so the call is mid-answer.
func answering(entries []transcript.Entry) bool {
	n := 0
	for _, en := range entries {
		if en.Kind == transcript.KindReply && en.Status == transcript.StatusStreaming && strings.TrimSpace(en.Text) != "" {
			n++
		}
	}
	return n == 3
}

// settled: no turn is left streaming.
func settled(entries []transcript.Entry) bool {
	for _, en := range entries {
		if en.Status == transcript.StatusStreaming {
			return false
		}
	}
	return len(entries) > 0
}

// checkHonestEndings fails unless every answer cut by the client's leaving
// is saved cancelled or partial with the words that had arrived.
func checkHonestEndings(t *testing.T, entries []transcript.Entry) {
	t.Helper()
	replies := 0
	for _, en := range entries {
		if en.Kind != transcript.KindReply {
			continue
		}
		replies++
		t.Logf("%s saved %s with %d of 20 words", en.Speaker, en.Status, len(strings.Fields(en.Text)))
		if en.Status != transcript.StatusCancelled && en.Status != transcript.StatusPartial {
			t.Errorf("%s's cut answer saved %s (%q), want cancelled or partial", en.Speaker, en.Status, en.Text)
		}
		if !strings.HasPrefix(heldAnswer, en.Text) || len(strings.Fields(en.Text)) < 4 || en.Text == heldAnswer {
			t.Errorf("%s's cut answer kept %q, want the words that arrived (at least four, not all twenty)", en.Speaker, en.Text)
		}
	}
	if replies != 3 {
		t.Errorf("%d answers saved, want 3: %+v", replies, entries)
	}
}

// TestClosedStdinSavesCutAnswersHonestly: `parley mcp` (the built binary)
// runs ask with three agents on slow fakes of the three vendors; the
// client closes stdin mid-answer. Every answer is saved cancelled or
// partial with its words so far, never complete, before the process ends.
func TestClosedStdinSavesCutAnswersHonestly(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	p := startMCP(t, heldVendors(t), "--db", db)
	p.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, askAll)
	st, err := store.Open(db) // read beside the server process (WAL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	waitTurns(t, st, time.Minute, "three answers streaming", answering)
	p.leave(t)
	_, entries := rawTurns(t, st)
	if !settled(entries) {
		t.Fatalf("turns left streaming after the process ended: %+v", entries)
	}
	checkHonestEndings(t, entries)
}

// TestDroppedHTTPCallSavesCutAnswersHonestly: the same ask over parley
// serve's /mcp, whose client drops the connection of the tools/call POST
// mid-answer: the call is cancelled (it is not detached) and every answer
// saved cancelled or partial with its words so far.
func TestDroppedHTTPCallSavesCutAnswersHonestly(t *testing.T) {
	t.Parallel()
	ts, st := httpServer(t, filepath.Join(t.TempDir(), "h.db"), fakeAgents(heldVendors(t)), false)
	post := func(ctx context.Context, session, body string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		return http.DefaultClient.Do(req)
	}
	ctx := context.Background()
	resp, err := post(ctx, "", initLine)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize: %d without a session", resp.StatusCode)
	}
	if resp, err = post(ctx, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	callCtx, drop := context.WithCancel(ctx)
	called := make(chan error, 1)
	go func() {
		resp, err := post(callCtx, session, askAll)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body) // held open until dropped
			resp.Body.Close()
		}
		called <- err
	}()
	waitTurns(t, st, time.Minute, "three answers streaming", answering)
	drop() // the connection goes
	if err := <-called; err == nil {
		t.Fatal("the call's response ended before the drop")
	}
	entries := waitTurns(t, st, 30*time.Second, "every answer settled after the drop", settled)
	checkHonestEndings(t, entries)
	// The MCP session itself goes on: a later call on it is answered.
	resp, err = post(ctx, session, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var reply map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			_ = json.Unmarshal([]byte(data), &reply)
		}
	}
	if _, ok := reply["result"]; !ok {
		t.Fatalf("ping after the drop: %d %s", resp.StatusCode, fmt.Sprint(string(b)))
	}
}
