package debate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/evidence"
	"github.com/parleyhq/parley/debate/toolbox"
	"github.com/parleyhq/parley/debate/transcript"
	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
)

// toolEngine seats gemini on a ToolFake with the files tools over a folder
// holding notes.txt, in mention mode.
func toolEngine(t *testing.T, cfg *config.Config, script func(n int, req providers.Request) ToolReply) (*Engine, *ToolFake, *EventLog) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the rate is 4.2%\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := &ToolFake{Agent: "gemini", Script: script}
	e := NewMixedEngine(t, cfg, "mention", map[string]providers.Provider{"gemini": fake})
	e.SetToolBoxes(func(a *Agent) *toolbox.Box {
		if a.Name != "gemini" {
			return nil
		}
		return toolbox.New(toolbox.FilesTools(dir, false), cfg.Tools.Rules())
	})
	log := &EventLog{}
	e.Subscribe(log.Add)
	return e, fake, log
}

func call(id, name, args string) providers.ToolCall {
	return providers.ToolCall{ID: id, Name: name, Arguments: args}
}

// A turn runs the calls it asked for (two at once), sends the results back
// quoted as evidence and ends with the answer; each call is announced,
// saved with its record, and the answer's citations are the ledger's.
func TestNativeToolTurnRunsCallsAndRecordsEvidence(t *testing.T) {
	t.Parallel()
	e, fake, log := toolEngine(t, SpineConfig(known), func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Text: "Let me look.", Calls: []providers.ToolCall{
				call("c1", "read_file", `{"path":"notes.txt"}`),
				call("c2", "list_file", `{"path":"."}`),
				call("c3", "shell", `{"cmd":"rm -rf /"}`),
				call("c4", "read_file", `{"path":`),
			}}
		}
		return ToolReply{Text: "The rate is 4.2% [E1]."}
	})
	if err := e.Submit(context.Background(), "@gemini what is the rate?"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if len(reqs[0].Tools) != 2 || !strings.Contains(reqs[0].System, evidence.Instruction) {
		t.Errorf("first request: tools %v, system %q", reqs[0].Tools, reqs[0].System)
	}
	msgs := reqs[1].Messages
	last, asst := msgs[len(msgs)-1], msgs[len(msgs)-2]
	if asst.Role != providers.RoleAssistant || len(asst.ToolCalls) != 4 || asst.Content != "Let me look." {
		t.Fatalf("assistant step = %+v", asst)
	}
	if last.Role != providers.RoleTool || len(last.ToolResults) != 4 {
		t.Fatalf("tool message = %+v", last)
	}
	r := last.ToolResults
	if r[0].CallID != "c1" || r[0].IsError || !strings.HasPrefix(r[0].Content, "[E1] source: notes.txt:1-1") ||
		!strings.Contains(r[0].Content, "untrusted data") || !strings.Contains(r[0].Content, "the rate is 4.2%") {
		t.Errorf("result 1 = %+v", r[0])
	}
	if r[1].IsError || !strings.HasPrefix(r[1].Content, "[E2] source: ./") {
		t.Errorf("result 2 = %+v", r[1])
	}
	if !r[2].IsError || !strings.Contains(r[2].Content, `there is no tool "shell"`) || !r[3].IsError || !strings.Contains(r[3].Content, "malformed arguments") {
		t.Errorf("results 3, 4 = %+v %+v", r[2], r[3])
	}
	var reply transcript.Entry
	var calls []transcript.Entry
	for _, en := range e.History().Entries() {
		switch en.Kind {
		case transcript.KindReply:
			reply = en
		case transcript.KindToolCall:
			calls = append(calls, en)
		}
	}
	if reply.Text != "Let me look.\n\nThe rate is 4.2% [E1]." || reply.Status != transcript.StatusComplete {
		t.Errorf("reply = %q (%s)", reply.Text, reply.Status)
	}
	if reply.Usage.InputTokens != demo.EstimateRequestTokens(reqs[0])+demo.EstimateRequestTokens(reqs[1]) {
		t.Errorf("usage %d input tokens does not count both steps", reply.Usage.InputTokens)
	}
	if len(calls) != 4 || len(calls[0].Evidence) != 1 || calls[0].Evidence[0].ID != "E1" || calls[0].ToolCalls[0].Parameters["path"] != "notes.txt" ||
		len(calls[2].Evidence) != 0 || calls[2].ToolCalls[0].Error == "" {
		t.Errorf("tool_call entries = %+v", calls)
	}
	if got := len(EventsOf[ToolStarted](log)); got != 4 {
		t.Errorf("%d tool_started", got)
	}
	fin := EventsOf[ToolFinished](log)
	added := EventsOf[EvidenceAdded](log)
	if len(fin) != 4 || len(added) != 2 || added[0].Record.Digest != evidence.Digest("read_file notes.txt: 17 bytes, 1 lines\nthe rate is 4.2%\n") && added[0].Record.Source != "notes.txt:1-1" {
		t.Errorf("tool_finished %+v, evidence_added %+v", fin, added)
	}
	if c := e.Evidence().Check(evidence.Cited(reply.Text), []string{"gemini"}); len(c.Valid) != 1 || len(c.Flags) != 0 {
		t.Errorf("check = %+v", c)
	}
}

// Past max_tool_calls the calls are refused, the model is told to answer
// now, the turn says it was capped, and it still answers.
func TestNativeToolTurnIsCapped(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.MaxToolCalls = 2
	e, fake, _ := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply {
		if n <= 3 {
			return ToolReply{Calls: []providers.ToolCall{call("", "read_file", `{"path":"notes.txt"}`)}}
		}
		return ToolReply{Text: "done [E2]"}
	})
	if err := e.Submit(context.Background(), "@gemini go"); err == nil || !strings.Contains(err.Error(), "kept calling tools") {
		t.Fatalf("submit: %v", err)
	}
	Settle(t, e)
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (two calls, then answer now)", len(reqs))
	}
	third := reqs[2].Messages
	if c, r := third[len(third)-3].ToolCalls[0].ID, third[len(third)-2].ToolResults[0].CallID; c != "call_2_2" || r != c {
		t.Errorf("a call without an id got %q, its result %q", c, r)
	}
	if !strings.Contains(third[len(third)-1].Content, "You have used all 2 tool calls of this turn. Answer now") {
		t.Errorf("no answer-now message: %+v", third[len(third)-1])
	}
	var notes, replies []string
	for _, en := range e.History().Entries() {
		switch {
		case en.IsStatusNote():
			notes = append(notes, en.Text)
		case en.Kind == transcript.KindReply:
			replies = append(replies, string(en.Status)+" "+en.Error)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "reached the limit of 2 tool calls") {
		t.Errorf("notes %q", notes)
	}
	// The third step still called a tool and wrote nothing: an empty answer.
	if len(replies) != 1 || !strings.HasPrefix(replies[0], "error ") || !strings.Contains(replies[0], "kept calling tools after its limit of 2 calls") {
		t.Errorf("replies %q", replies)
	}
}

// A per-exchange bound refuses calls across members; a denied tool is not
// offered and a call to it is refused.
func TestNativeToolPolicyAndExchangeBound(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Tools.MaxToolCallsPerExchange = 1
	cfg.Tools.Policy = map[string]string{"list_file": "deny"}
	e, fake, _ := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Calls: []providers.ToolCall{call("a", "read_file", `{"path":"notes.txt"}`), call("b", "read_file", `{"path":"notes.txt"}`), call("c", "list_file", `{"path":"."}`)}}
		}
		return ToolReply{Text: "ok"}
	})
	if err := e.Submit(context.Background(), "@gemini go"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	reqs := fake.Requests()
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "read_file" {
		t.Errorf("offered %+v", reqs[0].Tools)
	}
	res := reqs[1].Messages[len(reqs[1].Messages)-1].ToolResults
	if res[0].IsError || !res[1].IsError || !strings.Contains(res[1].Content, "limit of tool calls") || !strings.Contains(res[2].Content, "limit of tool calls") {
		t.Errorf("results %+v", res)
	}
}

// A tool turn's worst case covers every step its call limit allows, so a
// cap that fits one plain call refuses the tool turn before it starts.
func TestNativeToolWorstCaseBoundsTheTurn(t *testing.T) {
	t.Parallel()
	cfg := SpineConfig(known)
	cfg.Pricing = map[string]config.Price{"gemini-3-flash-preview": {Input: 1, Output: 1}}
	// One plain call's worst case: ~the prompt and 4096 output tokens at
	// $1/M, well under a cent; eight tool steps' is over 1.2 M tokens.
	cfg.BudgetUSD = 0.5
	e, fake, _ := toolEngine(t, cfg, func(n int, req providers.Request) ToolReply { return ToolReply{Text: "ok"} })
	err := e.Submit(context.Background(), "@gemini go")
	Settle(t, e)
	if len(fake.Requests()) != 0 {
		t.Fatalf("the tool turn was started under a cap its worst case passes (err %v)", err)
	}
	cfg.Tools.MaxToolCalls = 1
	if err := e.Submit(context.Background(), "@gemini go"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	if len(fake.Requests()) != 1 {
		t.Errorf("a turn of one tool call was refused under the same cap")
	}
}

// A resumed session's ledger goes on after its last record.
func TestEvidenceLedgerIsRestored(t *testing.T) {
	t.Parallel()
	e, _, _ := toolEngine(t, SpineConfig(known), func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Calls: []providers.ToolCall{call("a", "read_file", `{"path":"notes.txt"}`)}}
		}
		return ToolReply{Text: "ok [E1]"}
	})
	if err := e.Submit(context.Background(), "@gemini go"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	back, _, _ := toolEngine(t, SpineConfig(known), nil)
	if err := back.Restore(e.Info(), e.History().Entries()); err != nil {
		t.Fatal(err)
	}
	if back.Evidence().Len() != 1 {
		t.Fatalf("%d records after restore", back.Evidence().Len())
	}
	if r := back.Evidence().Add(evidence.Record{Agent: "gemini"}); r.ID != "E2" {
		t.Errorf("next record %s, want E2", r.ID)
	}
}

// The tools section, MCP servers and agents' tool lists are checked.
func TestToolsConfigIsChecked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		edit func(*config.Config)
		want string
	}{
		{func(c *config.Config) { c.Tools.MaxToolCalls = 65 }, "tools.max_tool_calls is 65"},
		{func(c *config.Config) { c.Tools.Policy = map[string]string{"fetch": "maybe"} }, `tools.policy.fetch is "maybe"`},
		{func(c *config.Config) { c.MCPServers = map[string]config.MCPServerSpec{"a b": {URL: "http://x"}} }, "letters, digits"},
		{func(c *config.Config) {
			c.MCPServers = map[string]config.MCPServerSpec{"x": {URL: "http://x", Command: []string{"y"}}}
		}, "either command"},
		{func(c *config.Config) { c.MCPServers = map[string]config.MCPServerSpec{"x": {URL: "file:///x"}} }, "http or https"},
		{func(c *config.Config) { c.Agents[0].Tools = config.ToolList{"mcp:nope"} }, "mcp:nope names no server"},
		{func(c *config.Config) { c.Agents[0].Tools = config.ToolList{"shell"} }, `unknown tool "shell"`},
		{func(c *config.Config) { c.Modes.Magi.Evidence = "strict" }, `modes.magi.evidence is "strict"`},
		{func(c *config.Config) { c.Serve.Tools = []string{"shell"} }, `serve.tools: unknown tool "shell"`},
		{func(c *config.Config) { c.Serve.Tools = []string{"mcp:nope"} }, "serve.tools: mcp:nope names no server"},
	} {
		cfg := SpineConfig(known)
		c.edit(cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	cfg := SpineConfig(known)
	cfg.MCPServers = map[string]config.MCPServerSpec{"docs": {Command: []string{"srv"}}}
	cfg.Agents[0].Tools = config.ToolList{"files", "fetch", "web_search", "mcp:docs"}
	cfg.Serve.Tools = []string{"fetch", "mcp:docs"}
	if err := cfg.Validate(); err != nil {
		t.Errorf("a good configuration: %v", err)
	}
}

// A finished call is worded once: the event a panel shows and the saved
// entry the transcript and `sessions show` show give one line, evidence id
// first (seen: the transcript printed "✓ fetch_url url=…" without it).
func TestToolCallIsWordedTheSameFromEventAndEntry(t *testing.T) {
	t.Parallel()
	e, _, log := toolEngine(t, SpineConfig(known), func(n int, req providers.Request) ToolReply {
		if n == 1 {
			return ToolReply{Calls: []providers.ToolCall{
				call("c1", "read_file", `{"path":"notes.txt"}`),
				call("c2", "list_file", `{"path":".","recursive":true}`),
				call("c3", "read_file", `{"path":"../etc/passwd"}`),
			}}
		}
		return ToolReply{Text: "Done [E1]."}
	})
	if err := e.Submit(context.Background(), "@gemini read it"); err != nil {
		t.Fatal(err)
	}
	Settle(t, e)
	fin := EventsOf[ToolFinished](log)
	var saved []string
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindToolCall {
			saved = append(saved, en.ToolCalls[0].Short(en.CallEvidence(0)))
		}
	}
	var events []string
	for _, ev := range fin {
		events = append(events, ev.Short())
	}
	want := []string{"E1 read_file notes.txt", "E2 list_file . recursive"}
	if len(saved) != 3 || strings.Join(saved, "|") != strings.Join(events, "|") ||
		saved[0] != want[0] || saved[1] != want[1] || !strings.HasPrefix(saved[2], "read_file ") || !strings.HasSuffix(saved[2], " · ../etc/passwd") {
		t.Errorf("entries word %q, events %q; want %q then an error", saved, events, want)
	}
}
