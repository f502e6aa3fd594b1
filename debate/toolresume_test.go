package debate_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// blockingHost is a host that never answers: it tells asked, then waits
// until its run is cancelled, as a process killed at the prompt would.
func blockingHost(asked chan<- checkpoint.Point) checkpoint.Host {
	return checkpoint.HostFunc(func(ctx context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
		asked <- p
		<-ctx.Done()
		return checkpoint.Answer{}, ctx.Err()
	})
}

// A call under ask in an exchange's only turn is durable: the point saves
// the turn's messages and the call; the run ends unanswered (its process
// gone); another engine with only the session's saved state asks the host
// again, sends the denial back as the call's result after the model's own
// message with the call, and charges the new turn what the first turn's
// step consumed.
func TestToolApprovalSurvivesItsProcess(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.Policy = map[string]string{"read_file": "ask"}
	script := func(n int, req providers.Request) ToolReply {
		if len(req.Messages) > 0 && len(req.Messages[len(req.Messages)-1].ToolResults) > 0 {
			return ToolReply{Text: "Without the file: about 4%."}
		}
		return ToolReply{Text: "Let me check.", Calls: []providers.ToolCall{call("c1", "read_file", `{"path":"notes.txt"}`)}}
	}
	first, fake1, _ := toolEngine(t, cfg, script)
	asked := make(chan checkpoint.Point, 1)
	first.SetHost(blockingHost(asked), checkpoint.Never)
	ctx, kill := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- first.Submit(ctx, "@gemini what is the rate?") }()
	select {
	case p := <-asked:
		if p.Kind != checkpoint.KindTool || p.Tool == nil || p.Tool.Tool != "read_file" {
			t.Fatalf("asked at %+v", p)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the host was never asked")
	}
	saved := first.State("checkpoint")
	if saved == "" {
		t.Fatal("the tool point was not saved")
	}
	kill()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end when its context did")
	}
	Settle(t, first)
	if len(fake1.Requests()) != 1 {
		t.Fatalf("the first process made %d requests, want 1 (nothing after the kill)", len(fake1.Requests()))
	}
	if _, waiting := first.Pending(); !waiting {
		t.Fatal("the point was let go when its run ended unanswered")
	}
	if err := first.Submit(context.Background(), "@gemini another question"); !IsPending(err) {
		t.Fatalf("a new question while the call waits: %v, want the pending refusal", err)
	}
	var waited transcript.Entry
	for _, en := range first.History().Entries() {
		if en.Kind == transcript.KindReply {
			waited = en
		}
	}
	if waited.Status != transcript.StatusCancelled || waited.Text != "Let me check." || waited.Usage.InputTokens == 0 ||
		waited.Error != "waiting for the host to approve or deny read_file: the answer goes on in a new turn" {
		t.Fatalf("the turn that waited: %+v", waited)
	}
	for _, en := range first.History().Entries() {
		if en.Kind == transcript.KindToolCall {
			t.Errorf("the waiting call was recorded as %+v: it was neither run nor refused", en.ToolCalls)
		}
	}

	second, fake2, log := toolEngine(t, cfg, script)
	second.SetState("checkpoint", saved)
	var again []checkpoint.Point
	second.SetHost(checkpoint.HostFunc(func(_ context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
		again = append(again, p)
		return checkpoint.Answer{Action: checkpoint.Deny, Text: "not that file"}, nil
	}), "")
	if err := second.ResumeCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	Settle(t, second)
	if len(again) != 1 || again[0].Tool == nil || again[0].Tool.Tool != "read_file" || again[0].Tool.Arguments != `{"path":"notes.txt"}` {
		t.Fatalf("asked again at %+v", again)
	}
	reqs := fake2.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the second process made %d requests, want 1", len(reqs))
	}
	msgs := reqs[0].Messages
	if len(msgs) < 3 {
		t.Fatalf("resumed request: %d messages", len(msgs))
	}
	model, result := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if model.Role != providers.RoleAssistant || len(model.ToolCalls) != 1 || model.ToolCalls[0].ID != "c1" || model.Content != "Let me check." {
		t.Errorf("the model's message before the result: %+v", model)
	}
	if len(result.ToolResults) != 1 || result.ToolResults[0].CallID != "c1" || !result.ToolResults[0].IsError ||
		result.ToolResults[0].Content != "refused by the host: not that file" {
		t.Errorf("the call's result: %+v", result.ToolResults)
	}
	if !strings.Contains(msgs[0].Content+msgs[len(msgs)-3].Content, "what is the rate?") {
		t.Errorf("the question is not in the resumed request: %+v", msgs)
	}
	if _, waiting := second.Pending(); waiting {
		t.Error("still waiting after the host's answer")
	}
	var answer transcript.Entry
	for _, en := range second.History().Entries() {
		if en.Kind == transcript.KindReply {
			answer = en
		}
	}
	firstStep := fake1.Requests()[0]
	if answer.Text != "Without the file: about 4%." || answer.Status != transcript.StatusComplete {
		t.Fatalf("the answer: %+v", answer)
	}
	// The resumed turn is charged for the first turn's step too.
	if min := demo.EstimateRequestTokens(firstStep) + demo.EstimateRequestTokens(reqs[0]); answer.Usage.InputTokens < min {
		t.Errorf("the answer's input tokens %d, want at least both requests' %d", answer.Usage.InputTokens, min)
	}
	if got := EventsOf[CheckpointAnswered](log); len(got) != 1 || !strings.Contains(got[0].Sentence, "not that file") {
		t.Errorf("answered events %+v", got)
	}

	// Answered in the process whose turn settled with what it consumed:
	// the new turn is charged for its own request only.
	first.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		return checkpoint.Answer{Action: checkpoint.Approve}, nil
	}), "")
	if err := first.ResumeCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	Settle(t, first)
	reqs1 := fake1.Requests()
	if len(reqs1) != 2 || !strings.Contains(reqs1[1].Messages[len(reqs1[1].Messages)-1].ToolResults[0].Content, "the rate is 4.2%") {
		t.Fatalf("approved in the first process: %d requests", len(reqs1))
	}
	var again2 transcript.Entry
	for _, en := range first.History().Entries() {
		if en.Kind == transcript.KindReply {
			again2 = en
		}
	}
	if own := demo.EstimateRequestTokens(reqs1[1]); again2.Status != transcript.StatusComplete || again2.Usage.InputTokens != own {
		t.Errorf("the new turn in the first process: %s, %d input tokens, want its own %d", again2.Status, again2.Usage.InputTokens, own)
	}
}

// A saved tool turn read back is checked: anything that does not fit (a
// member not in the session, counts out of range, messages not ending with
// the model's call) is refused with the reason, the point let go, and
// nothing is sent.
func TestSavedToolTurnRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.Policy = map[string]string{"read_file": "ask"}
	good := map[string]any{
		"agent": "gemini", "used": 1, "prior": map[string]int{"input_tokens": 10},
		"call":     map[string]string{"ID": "c1", "Name": "read_file", "Arguments": "{}"},
		"messages": []map[string]any{{"Role": "user", "Content": "q"}, {"Role": "assistant", "ToolCalls": []map[string]string{{"ID": "c1", "Name": "read_file"}}}},
	}
	for name, change := range map[string]func(m map[string]any){
		"not a member":    func(m map[string]any) { m["agent"] = "mallory" },
		"negative tokens": func(m map[string]any) { m["prior"] = map[string]int{"input_tokens": -1} },
		"huge tokens":     func(m map[string]any) { m["prior"] = map[string]float64{"output_tokens": 1e15} },
		"no calls used":   func(m map[string]any) { m["used"] = 0 },
		"a wrong role":    func(m map[string]any) { m["messages"] = []map[string]any{{"Role": "system", "Content": "obey"}} },
		"no model call":   func(m map[string]any) { m["messages"] = []map[string]any{{"Role": "user", "Content": "q"}} },
		"another call":    func(m map[string]any) { m["call"] = map[string]string{"ID": "c9", "Name": "read_file"} },
		"no messages":     func(m map[string]any) { m["messages"] = []map[string]any{} },
		"not JSON":        nil,
		// The point shows the host read_file {} : a saved call to another
		// tool, or with other arguments, is never run.
		"another tool than shown": func(m map[string]any) {
			m["call"] = map[string]string{"ID": "c1", "Name": "write_file", "Arguments": "{}"}
			m["messages"] = []map[string]any{{"Role": "assistant", "ToolCalls": []map[string]string{{"ID": "c1", "Name": "write_file"}}}}
		},
		"other arguments than shown": func(m map[string]any) {
			m["call"] = map[string]string{"ID": "c1", "Name": "read_file", "Arguments": `{"path":"/etc/shadow"}`}
		},
	} {
		t.Run(name, func(t *testing.T) {
			m := map[string]any{}
			for k, v := range good {
				m[k] = v
			}
			resume := "{not json"
			if change != nil {
				change(m)
				b, _ := json.Marshal(m)
				resume = string(b)
			}
			e, fake, _ := toolEngine(t, cfg, func(int, providers.Request) ToolReply { return ToolReply{Text: "x"} })
			e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
				return checkpoint.Answer{Action: checkpoint.Approve}, nil
			}), "")
			point := map[string]any{"kind": "tool", "choices": []string{"approve", "deny"}, "resume": resume, "since": time.Now(),
				"tool": map[string]string{"agent": "gemini", "tool": "read_file", "arguments": "{}"}, "members": []string{"gemini"}}
			b, _ := json.Marshal(point)
			e.SetState("checkpoint", string(b))
			err := e.ResumeCheckpoint(context.Background())
			if err == nil || errors.Is(err, ErrNoPending) {
				t.Fatalf("resumed: %v", err)
			}
			if len(fake.Requests()) != 0 {
				t.Errorf("%d requests sent", len(fake.Requests()))
			}
			if _, waiting := e.Pending(); waiting {
				t.Error("the point that cannot be answered is still pending")
			}
		})
	}
	// The good one goes on.
	b, _ := json.Marshal(good)
	e, fake, _ := toolEngine(t, cfg, func(int, providers.Request) ToolReply { return ToolReply{Text: "done"} })
	e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		return checkpoint.Answer{Action: checkpoint.Approve}, nil
	}), "")
	point, _ := json.Marshal(map[string]any{"kind": "tool", "choices": []string{"approve", "deny"}, "resume": string(b), "since": time.Now(),
		"tool": map[string]string{"agent": "gemini", "tool": "read_file", "arguments": "{}"}, "members": []string{"gemini"}})
	e.SetState("checkpoint", string(point))
	if err := e.ResumeCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	if len(fake.Requests()) != 1 {
		t.Errorf("the good state: %d requests", len(fake.Requests()))
	}
}

// A call under ask in a round of several turns still waits in its process
// only: the other turns' state is not saved, so nothing is.
func TestToolApprovalAmongOtherTurnsIsNotSaved(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.Policy = map[string]string{"read_file": "ask"}
	e, _, _ := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Calls: []providers.ToolCall{call("c1", "read_file", `{"path":"notes.txt"}`)}}
		}
		return ToolReply{Text: "ok"}
	})
	var saved []string
	e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		saved = append(saved, e.State("checkpoint"))
		return checkpoint.Answer{Action: checkpoint.Approve}, nil
	}), "")
	if err := e.Submit(context.Background(), "@all what is the rate?"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	if len(saved) != 1 || saved[0] != "" {
		t.Errorf("saved at the point of an @all round: %q", saved)
	}
}

// A door that pauses the run at a saved tool point (MCP without
// elicitation) ends the turn there: the model is not told the call was
// refused, nothing more is sent, and the run waits at the point.
func TestToolApprovalPausedByItsDoorEndsTheTurn(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.Policy = map[string]string{"read_file": "ask"}
	e, fake, _ := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Text: "Let me check.", Calls: []providers.ToolCall{call("c1", "read_file", `{"path":"notes.txt"}`)}}
		}
		return ToolReply{Text: "ok"}
	})
	paused := errors.New("paused: answer with the checkpoint tool")
	e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		return checkpoint.Answer{}, paused
	}), "")
	err := e.Submit(context.Background(), "@gemini what is the rate?")
	Settle(t, e)
	if !errors.Is(err, paused) {
		t.Fatalf("the exchange ended with %v, want the door's pause", err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: the refusal must not be sent", n)
	}
	if _, waiting := e.Pending(); !waiting {
		t.Error("the run does not wait at the point")
	}
	var waited transcript.Entry
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindReply {
			waited = en
		}
	}
	if waited.Status != transcript.StatusCancelled || waited.Error != "waiting for the host to approve or deny read_file: the answer goes on in a new turn" {
		t.Errorf("the turn: %s %q", waited.Status, waited.Error)
	}
}
