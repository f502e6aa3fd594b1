package debate_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/checkpoint"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/providers"
)

// A call under ask waits for the host: a denial goes back to the model as
// the call's result with the host's reason, an approval runs the tool, and
// without a host the call is refused saying how to get one.
func TestToolUnderAskIsApprovedOrDeniedByTheHost(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.Policy = map[string]string{"read_file": "ask"}
	e, fake, log := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Calls: []providers.ToolCall{call("a", "read_file", `{"path":"notes.txt"}`), call("b", "read_file", `{"path":"notes.txt"}`)}}
		}
		return ToolReply{Text: "ok"}
	})
	var mu sync.Mutex
	var asked []checkpoint.Point
	e.SetHost(checkpoint.HostFunc(func(_ context.Context, p checkpoint.Point) (checkpoint.Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p)
		if len(asked) == 1 {
			return checkpoint.Answer{Action: checkpoint.Deny, Text: "not that file"}, nil
		}
		return checkpoint.Answer{Action: checkpoint.Approve}, nil
	}), checkpoint.Never) // a call under ask is asked whatever the policy
	if err := e.Submit(context.Background(), "@gemini go"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	if len(asked) != 2 || asked[0].Kind != checkpoint.KindTool || asked[0].Tool.Tool != "read_file" || asked[0].Tool.Agent != "gemini" {
		t.Fatalf("asked %+v", asked)
	}
	res := fake.Requests()[1].Messages[len(fake.Requests()[1].Messages)-1].ToolResults
	var denied, ran int
	for _, r := range res {
		switch {
		case r.IsError && r.Content == "refused by the host: not that file":
			denied++
		case !r.IsError && strings.Contains(r.Content, "the rate is 4.2%"):
			ran++
		}
	}
	if denied != 1 || ran != 1 {
		t.Errorf("results %+v: want one denial with the host's reason and one run", res)
	}
	answered := EventsOf[CheckpointAnswered](log)
	if len(answered) != 2 || !strings.Contains(answered[0].Sentence+answered[1].Sentence, "the host denied read_file to gemini: not that file") {
		t.Errorf("answered events %+v", answered)
	}

	// No host: refused, with the flag that gives one.
	e2, fake2, _ := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Calls: []providers.ToolCall{call("a", "read_file", `{"path":"notes.txt"}`)}}
		}
		return ToolReply{Text: "ok"}
	})
	if err := e2.Submit(context.Background(), "@gemini go"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e2)
	res2 := fake2.Requests()[1].Messages[len(fake2.Requests()[1].Messages)-1].ToolResults
	if len(res2) != 1 || !res2[0].IsError || !strings.Contains(res2[0].Content, "no host to ask (--checkpoint)") {
		t.Errorf("without a host: %+v", res2)
	}
}

// A host's answer the point does not take ends the run with the reason;
// nothing the host did not choose is carried out.
func TestCheckpointRefusesAnAnswerOutsideTheChoices(t *testing.T) {
	t.Parallel()
	e, _ := NewSpineEngine(known, nil)
	e.SetHost(checkpoint.HostFunc(func(context.Context, checkpoint.Point) (checkpoint.Answer, error) {
		return checkpoint.Answer{Action: checkpoint.Drop, Member: "nobody"}, nil
	}), checkpoint.EachRound)
	_, asked, err := e.Checkpoint(context.Background(), checkpoint.Point{Kind: checkpoint.KindRound, Round: 1, Members: []string{"a"}, Choices: []checkpoint.Action{checkpoint.Continue, checkpoint.Drop}})
	if !asked || err == nil || !strings.Contains(err.Error(), `no member "nobody"`) {
		t.Errorf("asked %v, err %v", asked, err)
	}
}
