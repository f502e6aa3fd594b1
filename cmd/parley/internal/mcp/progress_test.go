package mcp_test

import (
	"bufio"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/store"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers/demo"
)

func TestProgressArrivesBeforeTheResult(t *testing.T) {
	t.Parallel()
	for name, c := range demoClients(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			token := "magi-" + name
			var out struct{ Sentence string }
			c.call(t, ctx, "magi", map[string]any{"question": "Adopt a four-day week?"}, &out, token)
			// On the wire, in the order the client read them: every
			// progress notification of this call, then its result.
			var progress []string
			result := -1
			for i, m := range c.wire.reads() {
				if m["method"] == "notifications/progress" {
					params, _ := m["params"].(map[string]any)
					if params["progressToken"] != token {
						t.Fatalf("progress for token %v", params["progressToken"])
					}
					if result >= 0 {
						t.Fatalf("progress notification %d arrived after the result", i)
					}
					progress = append(progress, params["message"].(string))
				}
				if r, ok := m["result"].(map[string]any); ok && r["structuredContent"] != nil {
					result = i
				}
			}
			if result < 0 {
				t.Fatal("no result on the wire")
			}
			all := strings.Join(progress, "\n") + "\n"
			// The verdict's words are the outcome's sentence, as in the result.
			if !strings.Contains(out.Sentence, " after round ") {
				t.Fatalf("the result's sentence is %q", out.Sentence)
			}
			for _, want := range []string{"MELCHIOR (round 1) voted", "MAGI round 1 of 3 finished: MELCHIOR", "MAGI round 3 of 3 finished", "MAGI verdict: " + out.Sentence + "\n"} {
				if !strings.Contains(all, want) {
					t.Fatalf("progress lacks %q:\n%s", want, all)
				}
			}
			// 9 votes, 3 rounds, the verdict, and any vote changes.
			if len(progress) < 13 {
				t.Fatalf("%d progress notifications:\n%s", len(progress), all)
			}
			notes := c.progress()
			for i := 1; i < len(notes); i++ {
				if notes[i].Progress <= notes[i-1].Progress {
					t.Fatalf("progress does not increase: %v then %v", notes[i-1].Progress, notes[i].Progress)
				}
			}
		})
	}
}

func TestNoProgressWithoutAToken(t *testing.T) {
	t.Parallel()
	ts, _ := httpServer(t, filepath.Join(t.TempDir(), "h.db"), demoAgents, true)
	c := httpClient(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c.call(t, ctx, "magi", map[string]any{"question": "Quiet?", "single_round": true}, nil, nil)
	for _, m := range c.wire.reads() {
		if m["method"] == "notifications/progress" {
			t.Fatalf("progress without a progress token: %v", m)
		}
	}
}

func TestCancelledMagiIsSavedAsCancelled(t *testing.T) {
	t.Parallel()
	t.Run("stdio", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "s.db")
		c := stdioClient(t, db, nil, "--demo")
		st, err := store.Open(db) // read beside the server process (WAL)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		cancelMagi(t, c, st)
	})
	t.Run("http", func(t *testing.T) {
		ts, st := httpServer(t, filepath.Join(t.TempDir(), "h.db"), pacedDemoAgents, true)
		cancelMagi(t, httpClient(t, ts), st)
	})
}

// pacedDemoAgents are demo agents at the pace users see, so a council is
// still running when its client cancels it.
func pacedDemoAgents(cfg *config.Config) ([]*debate.Agent, error) {
	var out []*debate.Agent
	for _, spec := range cfg.Agents {
		out = append(out, &debate.Agent{AgentSpec: spec, Provider: demo.NewWithPace("demo", 18*time.Millisecond)})
	}
	return out, nil
}

// cancelMagi cancels a magi call once a member has voted and checks what
// the server saved: the votes that came, the rest cancelled.
func cancelMagi(t *testing.T, c *client, st *store.Store) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	callCtx, stop := context.WithCancel(ctx)
	c.onProgress = func(p *mcp.ProgressNotificationParams) {
		if strings.Contains(p.Message, "voted") { // the first member answered: stop the council
			stop()
		}
	}
	params := &mcp.CallToolParams{Name: "magi", Arguments: map[string]any{"question": "Cancel me?"}}
	params.SetProgressToken("cancel")
	_, err := c.session.CallTool(callCtx, params)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	entries := waitForCancelled(t, st)
	var voted, cancelled int
	for _, en := range entries {
		switch {
		case en.Kind == transcript.KindVote && en.Status == transcript.StatusComplete:
			voted++
		case en.Status == transcript.StatusCancelled:
			cancelled++
		case en.Status == transcript.StatusStreaming:
			t.Fatalf("turn %d saved as still streaming", en.Turn)
		}
	}
	if voted < 1 || voted >= 9 || cancelled == 0 {
		t.Fatalf("saved %d complete votes and %d cancelled turns, want what arrived kept and the rest cancelled: %+v", voted, cancelled, entries)
	}
}

// waitForCancelled waits (up to its own deadline) for the server to save the
// cancelled council: the process ends the run after the client has gone on.
func waitForCancelled(t *testing.T, st *store.Store) []transcript.Entry {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		list, err := st.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 {
			entries := savedEntries(t, st, list[0].ID)
			settled := len(entries) > 0
			for _, en := range entries {
				settled = settled && en.Status != transcript.StatusStreaming
			}
			for _, en := range entries {
				if settled && en.Status == transcript.StatusCancelled {
					return entries
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cancelled council saved within 20s (sessions: %d)", len(list))
		}
	}
	return nil
}

// TestClientGoneMidRunIsSaved: a client that goes away (closes the
// server's stdin) while a council runs stops it: what arrived is saved, the
// rest marked cancelled, before the process ends.
func TestClientGoneMidRunIsSaved(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	p := startMCP(t, nil, "--demo", "--db", db)
	p.send(t, initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"magi","arguments":{"question":"Leave early?"},"_meta":{"progressToken":"gone"}}}`)
	// The first vote's progress notification: the council is running.
	lines := bufio.NewScanner(p.stdout)
	deadline := time.AfterFunc(60*time.Second, func() { _ = p.cmd.Process.Kill() }) // the scan's deadline
	for lines.Scan() && !strings.Contains(lines.Text(), "voted") {
	}
	deadline.Stop()
	p.leave(t)
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v", list, err)
	}
	cancelled, voted := 0, 0
	for _, en := range savedEntries(t, st, list[0].ID) {
		if en.Kind == transcript.KindVote && en.Status == transcript.StatusComplete {
			voted++
		}
		if en.Status == transcript.StatusStreaming {
			t.Fatalf("turn %d left streaming", en.Turn)
		}
		if en.Status == transcript.StatusCancelled {
			cancelled++
		}
	}
	if cancelled == 0 || voted >= 9 {
		t.Fatalf("%d votes complete, %d turns cancelled: the council ran on without its client", voted, cancelled)
	}
}
