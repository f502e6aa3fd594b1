package mcp_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleyhq/parley/cmd/parley/internal/configload"
	parleymcp "github.com/parleyhq/parley/cmd/parley/internal/mcp"
	"github.com/parleyhq/parley/debate/modes"
	"github.com/parleyhq/parley/debate/store"
)

// magi with a checkpoint policy asks the client's user at each checkpoint
// through elicitation/create (the go-sdk client, on a protocol where a
// server may ask during a call): a note after round 1, stop after round 2,
// and the outcome says so. A client that declared no elicitation, or that
// speaks a protocol where a server may not ask during a call, is refused
// the policy.
func TestMagiCheckpointThroughElicitation(t *testing.T) {
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := parleymcp.New(ctx, parleymcp.Options{Config: l.Config, Agents: demoAgents, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	answers := []map[string]any{{"action": "note", "text": "The budget was cut by half."}, {"action": "stop"}}
	host := func(version string) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req.Params.Message)
				if len(answers) == 0 {
					return &mcp.ElicitResult{Action: "cancel"}, nil
				}
				a := answers[0]
				answers = answers[1:]
				return &mcp.ElicitResult{Action: "accept", Content: a}, nil
			},
		})
		clientSide, serverSide := mcp.NewInMemoryTransports()
		if _, err := m.Connect(ctx, serverSide); err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(ctx, clientSide, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	cs := host("2025-11-25")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "magi", Arguments: map[string]any{"question": "Should we ship on Friday?", "checkpoint": "each_round"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(textOf(res), "STOPPED by the host after round 2: ") {
		t.Fatalf("magi: %s", textOf(res))
	}
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "CHECKPOINT after round 1 of 3: ") || !strings.HasPrefix(asked[1], "CHECKPOINT after round 2 of 3: ") {
		t.Errorf("elicitations %q", asked)
	}
	id, _ := res.StructuredContent.(map[string]any)["session_id"].(string)
	_, entries, err := st.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var note bool
	for _, en := range entries {
		note = note || en.Kind == "user" && en.Text == "The budget was cut by half."
	}
	if !note {
		t.Error("the note is not saved as the host's words")
	}

	// A client on a protocol where a server may not ask during a call.
	res, err = host("").CallTool(ctx, &mcp.CallToolParams{Name: "magi", Arguments: map[string]any{"question": "Ship?", "checkpoint": "each_round"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(res), "where a server cannot ask during a call") {
		t.Errorf("a modern client: %s", textOf(res))
	}
	// A client without elicitation.
	c, s := mcp.NewInMemoryTransports()
	if _, err := m.Connect(ctx, s); err != nil {
		t.Fatal(err)
	}
	plain := connect(t, c)
	res, err = plain.session.CallTool(ctx, &mcp.CallToolParams{Name: "magi", Arguments: map[string]any{"question": "Ship?", "checkpoint": "each_round"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(res), "declared no elicitation capability") {
		t.Errorf("without elicitation: %s", textOf(res))
	}
	if len(asked) != 2 {
		t.Errorf("refused calls asked the client %d times", len(asked)-2)
	}
}
