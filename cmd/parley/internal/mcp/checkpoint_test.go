package mcp_test

import (
	"context"
	"encoding/json"
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
// speaks a protocol where a server may not ask during a call, is never
// asked: its call pauses.
func TestMagiCheckpointThroughElicitation(t *testing.T) {
	t.Parallel()
	e := newElicitation(t, map[string]any{"action": "note", "text": "The budget was cut by half."}, map[string]any{"action": "stop"})
	ctx, m, host := e.ctx, e.m, e.client
	cs := host("2025-11-25")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "magi", Arguments: map[string]any{"question": "Should we ship on Friday?", "checkpoint": "each_round"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(textOf(res), "STOPPED by the host after round 2: ") {
		t.Fatalf("magi: %s", textOf(res))
	}
	asked := e.asked
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "CHECKPOINT after round 1 of 3: ") || !strings.HasPrefix(asked[1], "CHECKPOINT after round 2 of 3: ") {
		t.Errorf("elicitations %q", asked)
	}
	id, _ := res.StructuredContent.(map[string]any)["session_id"].(string)
	e.noteSaved(id, "The budget was cut by half.")

	// A client on a protocol where a server may not ask during a call, and
	// one without elicitation: a paused result (checkpointpause_test.go).
	for name, cs := range map[string]*mcp.ClientSession{"a modern client": host(""), "without elicitation": plainClient(t, m)} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "magi", Arguments: map[string]any{"question": "Ship?", "checkpoint": "each_round"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(textOf(res), "CHECKPOINT after round 1 of 3") || !strings.Contains(textOf(res), "call the checkpoint tool") {
			t.Errorf("%s: %s", name, textOf(res))
		}
	}
	if len(e.asked) != 2 {
		t.Errorf("paused calls asked the client %d times", len(e.asked)-2)
	}
}

// elicitation is an MCP server on the demo agents, and clients of it that
// answer its elicitations with answers in order (then cancel), recording
// each request's message and schema.
type elicitation struct {
	t       *testing.T
	ctx     context.Context
	m       *parleymcp.Server
	st      *store.Store
	mu      sync.Mutex
	answers []map[string]any
	asked   []string
	schemas []any
}

func newElicitation(t *testing.T, answers ...map[string]any) *elicitation {
	t.Helper()
	l, err := configload.Load(modes.All(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	m, err := parleymcp.New(ctx, parleymcp.Options{Config: l.Config, Agents: demoAgents, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return &elicitation{t: t, ctx: ctx, m: m, st: st, answers: answers}
}

// client connects a client on protocol version ("": the SDK's latest).
func (e *elicitation) client(version string) *mcp.ClientSession {
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.asked = append(e.asked, req.Params.Message)
			e.schemas = append(e.schemas, req.Params.RequestedSchema)
			if len(e.answers) == 0 {
				return &mcp.ElicitResult{Action: "cancel"}, nil
			}
			a := e.answers[0]
			e.answers = e.answers[1:]
			return &mcp.ElicitResult{Action: "accept", Content: a}, nil
		},
	})
	clientSide, serverSide := mcp.NewInMemoryTransports()
	if _, err := e.m.Connect(e.ctx, serverSide); err != nil {
		e.t.Fatal(err)
	}
	cs, err := client.Connect(e.ctx, clientSide, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// council with a checkpoint policy asks the client after the answers and
// after the rankings: the form offers no seat the point keeps (the
// chairman), a note reaches the rankers, and a stop after the rankings
// ends the council without the chairman, its outcome saying so.
func TestCouncilCheckpointThroughElicitation(t *testing.T) {
	t.Parallel()
	e := newElicitation(t, map[string]any{"action": "note", "text": "We are a team of three."}, map[string]any{"action": "stop"})
	cs := e.client("2025-11-25")
	res, err := cs.CallTool(e.ctx, &mcp.CallToolParams{Name: "council", Arguments: map[string]any{"question": "Kafka or NATS?", "checkpoint": "each_round"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(textOf(res), "STOPPED by the host after the rankings: ") {
		t.Fatalf("council: %s", textOf(res))
	}
	if len(e.asked) != 2 || !strings.HasPrefix(e.asked[0], "CHECKPOINT after the answers: ") || !strings.HasPrefix(e.asked[1], "CHECKPOINT after the rankings: ") {
		t.Fatalf("elicitations %q", e.asked)
	}
	schema, _ := json.Marshal(e.schemas[0])
	if !strings.Contains(string(schema), `"member":{"description":"the member to drop, or whose seat another agent takes (swap)","enum":["gemini","chatgpt","claude"]`) {
		t.Errorf("the form after the answers: %s", schema)
	}
	id, _ := res.StructuredContent.(map[string]any)["session_id"].(string)
	_, entries, err := e.st.Load(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var note, chair bool
	for _, en := range entries {
		note = note || en.Kind == "user" && en.Text == "We are a team of three."
		chair = chair || en.Round == 3
	}
	if !note || chair {
		t.Errorf("the note saved %v, a chairman's turn %v", note, chair)
	}
}

// plainClient connects a go-sdk client that declares no elicitation.
func plainClient(t *testing.T, m *parleymcp.Server) *mcp.ClientSession {
	t.Helper()
	c, s := mcp.NewInMemoryTransports()
	if _, err := m.Connect(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return connect(t, c).session
}

// noteSaved checks that session id keeps note as the host's words (a user entry).
func (e *elicitation) noteSaved(id, note string) {
	e.t.Helper()
	_, entries, err := e.st.Load(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, en := range entries {
		if en.Kind == "user" && en.Text == note {
			return
		}
	}
	e.t.Errorf("session %s: the note %q is not saved as the host's words", id, note)
}
