package debate_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/fieldstream"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/providers"
)

// A MAGI vote that reads a file first: the words before the call are
// narration, not an answer that failed to parse (seen: every panel said
// "not parsed" while the verdict counted the votes), and the two steps'
// texts stream a paragraph apart, as the entry held them (seen glued:
// "Let me read that page first.As CASPER, …").
func TestToolStepsOfAVoteStreamApartAndParse(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	dir := t.TempDir()
	fake := &ToolFake{Agent: "gemini", Script: func(n int, req providers.Request) ToolReply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == providers.RoleTool {
			return ToolReply{Text: `{"vote": "approve", "reasoning": "As CASPER: the folder is there.", "summary": "Ship."}`}
		}
		return ToolReply{Text: "Let me read that page first.", Calls: []providers.ToolCall{call("c1", "list_file", `{"path":"."}`)}}
	}}
	e := NewMixedEngine(t, cfg, "magi", map[string]providers.Provider{"gemini": fake})
	e.SetToolBoxes(func(a *Agent) *toolbox.Box {
		if a.Name != "gemini" {
			return nil
		}
		return toolbox.New(toolbox.FilesTools(dir, false), cfg.Tools.Rules())
	})
	log := &EventLog{}
	e.Subscribe(log.Add)
	if err := e.Submit(context.Background(), "Should we ship?"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	started := EventsOf[ToolStarted](log)
	if len(started) == 0 {
		t.Fatal("gemini called no tool")
	}
	turn := started[0].Turn
	var streamed strings.Builder
	for _, d := range EventsOf[TextDelta](log) {
		if d.Turn != turn {
			continue
		}
		if d.Field == fieldstream.Raw {
			t.Errorf("delta %q is marked as an answer that did not parse", d.Text)
		}
		streamed.WriteString(d.Text)
	}
	if got := streamed.String(); got != "Let me read that page first.\n\nAs CASPER: the folder is there.\n\nShip." {
		t.Errorf("streamed %q", got)
	}
}
