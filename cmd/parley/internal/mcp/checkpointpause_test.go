package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pausedResult is the paused part of a magi result or a checkpoint answer.
type pausedResult struct {
	SessionID string `json:"session_id"`
	Status    string
	Answered  string
	Paused    *struct {
		Status    string
		SessionID string `json:"session_id"`
		Point     struct {
			Kind    string
			Round   int
			Choices []string
		}
		Sentence string
		HowTo    string `json:"how_to"`
	}
}

func pausedOf(t *testing.T, res *mcp.CallToolResult) pausedResult {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var p pausedResult
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return p
}

// A client that declared no elicitation: magi with a checkpoint policy
// pauses after round 1 (a result, not an error: the session, the point's
// kind, round and choices, how to answer); the checkpoint tool refuses
// hostile or wrong answers with a clear error and changes nothing, a note
// goes on to round 2's checkpoint (paused again, the note saved as the
// host's words), and stop ends the run with the stopped outcome.
func TestMagiCheckpointPausedWithoutElicitation(t *testing.T) {
	t.Parallel()
	e := newElicitation(t)
	ctx := e.ctx
	cs := plainClient(t, e.m)
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call("magi", map[string]any{"question": "Should we ship on Friday?", "checkpoint": "each_round"})
	p := pausedOf(t, res)
	if res.IsError || p.Paused == nil || p.Paused.Status != "awaiting_host" || p.Paused.SessionID == "" || p.SessionID != p.Paused.SessionID ||
		p.Paused.Point.Kind != "round" || p.Paused.Point.Round != 1 || strings.Join(p.Paused.Point.Choices, ",") != "continue,note,drop,stop,swap" ||
		!strings.HasPrefix(p.Paused.Sentence, "CHECKPOINT after round 1 of 3: ") || !strings.Contains(p.Paused.HowTo, `"session_id":"`+p.SessionID+`"`) {
		t.Fatalf("paused magi: %s\n%+v", textOf(res), p.Paused)
	}
	id := p.SessionID
	other := call("ask", map[string]any{"question": "hello"})
	otherID, _ := other.StructuredContent.(map[string]any)["session_id"].(string)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"session_id": "../../etc/passwd", "action": "stop"}, "session_id: "},
		{map[string]any{"session_id": "-rf", "action": "stop"}, "session_id: "},
		{map[string]any{"session_id": strings.Repeat("a", 5000), "action": "stop"}, "session_id: "},
		{map[string]any{"session_id": id, "action": "explode"}, "action"},
		{map[string]any{"session_id": id, "action": "note", "text": strings.Repeat("x", 5000)}, "text: at most 4000 characters"},
		{map[string]any{"session_id": id, "action": "drop", "member": strings.Repeat("m", 500)}, "member: not a name"},
		{map[string]any{"session_id": id, "action": "drop", "member": "nobody"}, `drop: no member "nobody"`},
		{map[string]any{"session_id": id, "action": "approve"}, `"approve" is not a choice here`},
		{map[string]any{"session_id": id, "action": "note", "text": "  "}, "a note needs its text"},
		{map[string]any{"session_id": otherID, "action": "stop"}, "was not paused by an MCP call"},
	} {
		res := call("checkpoint", c.args)
		if !res.IsError || !strings.Contains(textOf(res), c.want) || len(textOf(res)) > 1000 {
			t.Errorf("checkpoint %.80v: %q, want an error with %q", c.args, textOf(res), c.want)
		}
	}

	// A question in the paused session (ask, in another mode) is refused
	// with the core's sentence, and the run still waits.
	res = call("ask", map[string]any{"question": "A new question?", "session_id": id})
	if !res.IsError || !strings.Contains(textOf(res), "the run waits for its host after round 1 of 3: answer that checkpoint first (continue, note, drop, stop, swap), then ask again") {
		t.Errorf("ask in the paused session: %s", textOf(res))
	}
	res = call("checkpoint", map[string]any{"session_id": id, "action": "note", "text": "The budget was cut by half."})
	p = pausedOf(t, res)
	if res.IsError || p.Status != "awaiting_host" || p.Answered != "the host added a note after round 1 of 3" ||
		p.Paused == nil || p.Paused.Point.Round != 2 {
		t.Fatalf("the note: %s\n%+v", textOf(res), p)
	}
	res = call("checkpoint", map[string]any{"session_id": id, "action": "stop"})
	p = pausedOf(t, res)
	if res.IsError || p.Status != "finished" || p.Paused != nil || !strings.Contains(textOf(res), "STOPPED by the host after round 2: ") {
		t.Fatalf("the stop: %s\n%+v", textOf(res), p)
	}
	res = call("checkpoint", map[string]any{"session_id": id, "action": "stop"})
	if !res.IsError || !strings.Contains(textOf(res), "waits at a checkpoint") {
		t.Errorf("a stopped run answered again: %s", textOf(res))
	}
	e.noteSaved(id, "The budget was cut by half.")
}

// The council pauses the same way for a client without elicitation (the
// checkpoint tool knows no mode: it goes on in the session's own): after
// the answers, continue goes on to the rankings' pause, and stop there
// ends the council before the chairman, the outcome saying so.
func TestCouncilCheckpointPausedWithoutElicitation(t *testing.T) {
	t.Parallel()
	e := newElicitation(t)
	cs := plainClient(t, e.m)
	call := func(name string, args map[string]any) (*mcp.CallToolResult, pausedResult) {
		t.Helper()
		res, err := cs.CallTool(e.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res, pausedOf(t, res)
	}
	res, p := call("council", map[string]any{"question": "How should a team of three split on-call?", "checkpoint": "each_round"})
	if res.IsError || p.Paused == nil || p.Paused.Point.Kind != "answers" || !strings.HasPrefix(p.Paused.Sentence, "CHECKPOINT after the answers: ") {
		t.Fatalf("paused council: %s\n%+v", textOf(res), p.Paused)
	}
	id := p.SessionID
	res, p = call("checkpoint", map[string]any{"session_id": id, "action": "continue"})
	if res.IsError || p.Status != "awaiting_host" || p.Paused == nil || p.Paused.Point.Kind != "rankings" {
		t.Fatalf("after continue: %s\n%+v", textOf(res), p)
	}
	res, p = call("checkpoint", map[string]any{"session_id": id, "action": "stop"})
	if res.IsError || p.Status != "finished" || !strings.Contains(textOf(res), "STOPPED by the host after the rankings: ") {
		t.Fatalf("the stop: %s\n%+v", textOf(res), p)
	}
}
