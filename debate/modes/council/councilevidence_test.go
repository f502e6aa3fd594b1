package council

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/verdict"
	"github.com/parleyhq/parley/providers"
)

// Council answers' citations are checked by the core; under evidence:
// required an answer citing nothing valid is marked unsupported, and the
// outcome states coverage.
func TestCouncilAnswersCiteEvidence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := debatetest.SpineConfig(known)
	cfg.Modes.Council = config.CouncilConfig{Members: []string{"gemini", "chatgpt"}, Chairman: "claude", Evidence: verdict.EvidenceRequired}
	gemini := &debatetest.ToolFake{Agent: "gemini", Script: func(n int, req providers.Request) debatetest.ToolReply {
		if n == 1 {
			return debatetest.ToolReply{Calls: []providers.ToolCall{{ID: "r", Name: "read_file", Arguments: `{"path":"notes.txt"}`}}}
		}
		return debatetest.ToolReply{Text: "It is 42 [E1]."}
	}}
	chatgpt := &debatetest.ToolFake{Agent: "chatgpt", Script: func(int, providers.Request) debatetest.ToolReply {
		return debatetest.ToolReply{Text: "It is 41 [E5]."}
	}}
	e := debatetest.NewMixedEngine(t, cfg, "council", map[string]providers.Provider{"gemini": gemini, "chatgpt": chatgpt})
	e.SetToolBoxes(func(a *debate.Agent) *toolbox.Box { return toolbox.New(toolbox.FilesTools(dir, false), nil) })
	events := &debatetest.EventLog{}
	e.Subscribe(events.Add)
	if err := e.Submit(context.Background(), "What is it?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	dec := debatetest.LastOf[verdict.CouncilDecided](t, events)
	for _, a := range dec.Answers {
		switch a.Member {
		case "gemini":
			if a.Unsupported != "" || strings.Join(a.Citations.Valid, ",") != "E1" {
				t.Errorf("gemini: %+v %q", a.Citations, a.Unsupported)
			}
		case "chatgpt":
			if !strings.Contains(a.Unsupported, "E5 does not exist") {
				t.Errorf("chatgpt: %+v %q", a.Citations, a.Unsupported)
			}
		}
	}
	if !strings.HasSuffix(dec.Sentence, " · 1 of 2 answers cite evidence") {
		t.Errorf("sentence %q", dec.Sentence)
	}
}

// A member that searched is supported by the sources its vendor cites,
// though it could not write their ids (they did not exist yet); a source
// the vendor returned uncited supports nothing.
func TestCouncilAnswerIsSupportedByItsSearchCitations(t *testing.T) {
	t.Parallel()
	cfg := debatetest.SpineConfig(known)
	cfg.Modes.Council = config.CouncilConfig{Members: []string{"gemini", "chatgpt"}, Chairman: "claude", Evidence: verdict.EvidenceRequired}
	gemini := &debatetest.ToolFake{Agent: "gemini", Script: func(int, providers.Request) debatetest.ToolReply {
		return debatetest.ToolReply{Text: "Go is an open source language.", Sources: []providers.Source{
			{URL: "https://go.dev/", Title: "Go", CitedText: "Go is an open source language"}}}
	}}
	chatgpt := &debatetest.ToolFake{Agent: "chatgpt", Script: func(int, providers.Request) debatetest.ToolReply {
		return debatetest.ToolReply{Text: "Go is a language.", Sources: []providers.Source{{URL: "https://example.org/", Title: "Example"}}}
	}}
	e := debatetest.NewMixedEngine(t, cfg, "council", map[string]providers.Provider{"gemini": gemini, "chatgpt": chatgpt})
	e.SetToolBoxes(func(a *debate.Agent) *toolbox.Box {
		b := toolbox.New(nil, nil)
		b.ServerTools = []providers.ServerTool{{Kind: providers.ServerToolWebSearch}}
		return b
	})
	events := &debatetest.EventLog{}
	e.Subscribe(events.Add)
	if err := e.Submit(context.Background(), "What is Go?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	dec := debatetest.LastOf[verdict.CouncilDecided](t, events)
	recs := e.Evidence().Records() // the members run at once: either may record first
	ids := map[string]string{}
	for _, r := range recs {
		ids[r.Agent] = r.ID
	}
	for _, a := range dec.Answers {
		switch a.Member {
		case "gemini":
			if a.Unsupported != "" || strings.Join(a.Citations.Valid, ",") != ids["gemini"] {
				t.Errorf("gemini: %+v %q", a.Citations, a.Unsupported)
			}
		case "chatgpt":
			if a.Unsupported == "" || a.Citations.Supported() {
				t.Errorf("chatgpt: %+v %q", a.Citations, a.Unsupported)
			}
		}
	}
	if len(recs) != 2 || ids["gemini"] == "" || ids["chatgpt"] == "" {
		t.Errorf("ledger %+v", recs)
	}
}
