package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/tools"
	"github.com/parleyhq/parley/providers"
)

// nativeAgent runs one question in agent mode on a ToolFake whose model is
// model, the reader's files served natively (what --native-tools gives).
func nativeAgent(t *testing.T, model string) (*debatetest.ToolFake, debate.AgentAnswered, *debate.Engine) {
	t.Helper()
	root := debatetest.ToolWorkspace(t)
	fake := &debatetest.ToolFake{Agent: "coder", Script: func(n int, req providers.Request) debatetest.ToolReply {
		if len(req.Tools) == 0 { // the XML protocol
			if n == 1 {
				return debatetest.ToolReply{Text: "<read_file><path>README.md</path></read_file>"}
			}
			return debatetest.ToolReply{Text: "<complete><summary>It greets.</summary></complete>"}
		}
		if n == 1 {
			return debatetest.ToolReply{Calls: []providers.ToolCall{{ID: "r1", Name: "read_file", Arguments: `{"path":"README.md"}`}}}
		}
		return debatetest.ToolReply{Text: "It greets [E1]."}
	}}
	e, ev := debatetest.ToolLoopEngine(t, known, fake, "agent", root, 0)
	e.Current().Agents()[0].Model = model
	e.Config.Models = providers.Catalogue{"xml-only": {Provider: "openai", ToolsAPI: "none"}}
	e.SetToolBoxes(func(a *debate.Agent) *toolbox.Box { return toolbox.New(toolbox.FilesTools(root, false), nil) })
	if err := e.Submit(context.Background(), "what does it do?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	return fake, debatetest.LastOf[debate.AgentAnswered](t, ev), e
}

// With the files served natively the reader calls them natively inside
// one turn: the request carries the tools and no XML instructions, the
// call is saved with its evidence, and the answer is the turn's text.
func TestAgentModeNativeTools(t *testing.T) {
	t.Parallel()
	fake, ans, e := nativeAgent(t, "gpt-4o")
	reqs := fake.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) != 2 || strings.Contains(reqs[0].System, "<complete>") {
		t.Fatalf("%d requests; tools %v; system %q", len(reqs), reqs[0].Tools, reqs[0].System)
	}
	if !ans.Complete || ans.Answer != "It greets [E1]." || len(ans.ToolCalls) != 1 || ans.ToolCalls[0].Tool != "read_file" || ans.Steps != 1 {
		t.Errorf("answer %+v", ans)
	}
	if recs := e.Evidence().Records(); len(recs) != 1 || recs[0].Source != "README.md:1-2" {
		t.Errorf("ledger %+v", recs)
	}
}

// A model the catalogue marks without tools (tools_api: none) keeps seed
// 002's XML protocol, the default.
func TestAgentModeNativeToolsFallBackToXML(t *testing.T) {
	t.Parallel()
	fake, ans, _ := nativeAgent(t, "xml-only")
	reqs := fake.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) != 0 || !strings.Contains(reqs[0].System, "<"+tools.ToolComplete+">") {
		t.Fatalf("%d requests; tools %v; system %q", len(reqs), reqs[0].Tools, reqs[0].System)
	}
	if !ans.Complete || ans.Answer != "It greets." || len(ans.ToolCalls) != 1 {
		t.Errorf("answer %+v", ans)
	}
}
