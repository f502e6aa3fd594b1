package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/modes/mention"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/providertest"
)

func TestAgentModeDemoExplainsAFolder(t *testing.T) {
	t.Parallel()
	root := debatetest.ToolWorkspace(t)
	e, ev := debatetest.ToolLoopEngine(t, known, demo.NewWithPace("demo", 0), "agent", root, 0)
	if names := e.Current().Agents(); len(names) != 1 || names[0].Name != "coder" {
		t.Fatalf("panels = %v", names)
	}
	if err := e.Submit(context.Background(), "explain this project"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	ans := debatetest.LastOf[debate.AgentAnswered](t, ev)
	debatetest.MustContain(t, "answer", ans.Answer, "explain this project", "read `README.md`", "Hello")
	if !ans.Complete || ans.Error != "" || ans.Agent != "coder" || strings.Contains(ans.Answer, "<complete>") {
		t.Fatalf("answer = %+v", ans)
	}
	// The answer is the last entry, a complete reply.
	final, _ := e.History().Get(e.History().Len())
	if final.Kind != transcript.KindReply || final.Text != ans.Answer {
		t.Fatalf("answer entry = %+v", final)
	}
	var calls []string
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindToolCall {
			calls = append(calls, en.ToolCalls[0].Tool+" "+en.ToolCalls[0].Parameters["path"])
		}
	}
	if strings.Join(calls, ", ") != "list_file ., read_file README.md" {
		t.Fatalf("tool calls = %v", calls)
	}
	// The event carries the same calls, the model replies and their usage.
	var evCalls []string
	for _, c := range ans.ToolCalls {
		evCalls = append(evCalls, c.Tool+" "+c.Parameters["path"])
	}
	if strings.Join(evCalls, ", ") != strings.Join(calls, ", ") || ans.Steps != 3 || ans.Usage.OutputTokens == 0 {
		t.Fatalf("AgentAnswered calls %v, steps %d, usage %+v", evCalls, ans.Steps, ans.Usage)
	}
	if n := len(ev.Tools()); n != 4 {
		t.Fatalf("%d tool events, want 4", n)
	}

	// A second question starts a fresh loop that sees the first exchange.
	if err := e.Submit(context.Background(), "and the library?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if n := len(debatetest.EventsOf[debate.AgentAnswered](ev)); n != 2 {
		t.Fatalf("%d AgentAnswered events, want one per question", n)
	}
	a2 := debatetest.LastOf[debate.AgentAnswered](t, ev)
	if last, _ := e.History().Get(e.History().Len()); last.Turn <= final.Turn || last.Text != a2.Answer || !strings.Contains(a2.Answer, "and the library?") {
		t.Fatalf("second answer = %+v (entry %+v)", a2, last)
	}
}

// Tool calls are recorded in the seed's export shape.
func TestToolCallsExportShape(t *testing.T) {
	t.Parallel()
	root := debatetest.ToolWorkspace(t)
	e, _ := debatetest.ToolLoopEngine(t, known, demo.NewWithPace("demo", 0), "agent", root, 0)
	if err := e.Submit(context.Background(), "explain"); err != nil {
		t.Fatal(err)
	}
	var call transcript.Entry
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindToolCall {
			call = en
			break
		}
	}
	b, err := json.Marshal(call.ToolCalls)
	if err != nil {
		t.Fatal(err)
	}
	var shape []map[string]any
	if err := json.Unmarshal(b, &shape); err != nil {
		t.Fatal(err)
	}
	if len(shape) != 1 || shape[0]["tool"] != "list_file" || shape[0]["result"] == "" {
		t.Fatalf("shape = %s", b)
	}
	params, _ := shape[0]["parameters"].(map[string]any)
	if params["path"] != "." || params["recursive"] != "true" {
		t.Fatalf("parameters = %s", b)
	}
	if call.Text != "" || call.Speaker != "coder" || call.Provider == "" {
		t.Fatalf("tool_call entry = %+v", call)
	}
}

// Cancelling stops the loop: no further model call, no further tool call.
func TestAgentModeCancelStopsTheLoop(t *testing.T) {
	t.Parallel()
	root := debatetest.ToolWorkspace(t)
	ctx, cancel := context.WithCancel(context.Background())
	replies := providertest.Sequence(
		debatetest.TextReply("<list_file><path>.</path></list_file>"),
		providertest.Reply{Text: "<read_file><path>main.go</path></read_file>", ChunkDelay: 10 * time.Second},
	)
	var calls atomic.Int32
	srv, p := debatetest.OpenAIFakeFunc(t, func(r providertest.Request) providertest.Reply {
		if calls.Add(1) == 2 {
			cancel() // while the second reply is on its way: its read_file never arrives whole
		}
		return replies(r)
	})
	e, ev := debatetest.ToolLoopEngine(t, known, p, "agent", root, 0)
	err := e.Submit(ctx, "explain")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancel", err)
	}
	debatetest.Settle(t, e)
	if ans := debatetest.LastOf[debate.AgentAnswered](t, ev); ans.Complete || ans.Answer != "" || !strings.Contains(ans.Error, "canceled") || len(ans.ToolCalls) != 1 {
		t.Fatalf("AgentAnswered after a cancel = %+v", ans)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
	if n := len(ev.Tools()); n != 2 { // the list only
		t.Fatalf("%d tool events, want 2", n)
	}
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Status != transcript.StatusCancelled {
		t.Fatalf("last entry = %+v", last)
	}
}

func TestWorkspaceDefaultsAndChecks(t *testing.T) {
	t.Parallel()
	e, _ := debatetest.ToolLoopEngine(t, known, demo.NewWithPace("demo", 0), "agent", t.TempDir(), 0)
	dir := t.TempDir()
	if err := e.SetWorkspace(dir); err != nil || e.Workspace() != dir {
		t.Fatalf("Workspace() = %q, %v", e.Workspace(), err)
	}
	if e.Info().State["agent.workspace"] != dir {
		t.Fatal("the workspace is not kept in the session state")
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.SetWorkspace(file); err == nil {
		t.Fatal("a file was accepted as the workspace")
	}
	if err := e.SetWorkspace(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing folder was accepted")
	}
	// A saved folder that is gone falls back to the working directory.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got := e.Workspace(); got != wd {
		t.Fatalf("Workspace() = %q, want the working directory %q", got, wd)
	}
}

func TestAgentModeNeedsItsAgent(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{ModeList: known, Providers: map[string]providers.Spec{"d": {Type: "demo"}}, Agents: []config.AgentSpec{{Name: "a", Provider: "d"}},
		Modes: config.ModesConfig{Mention: config.MentionConfig{Agents: []string{"a"}}}}
	agents := []*debate.Agent{{AgentSpec: cfg.Agents[0], Provider: demo.NewWithPace("d", 0)}}
	if _, err := debate.NewEngine(cfg, agents, "agent"); err == nil || !strings.Contains(err.Error(), "modes.agent.agent") {
		t.Fatalf("err = %v", err)
	}
	cfg.Modes.Agent.Agent = "ghost"
	var ua *debate.UnknownAgentError
	if _, err := debate.NewEngine(cfg, agents, "agent"); !errors.As(err, &ua) {
		t.Fatalf("err = %v", err)
	}
}

// The demo agent explores a folder of Go files with list_file, then
// read_file of a file it listed, before complete, even when the session
// talked in another mode first (it once answered "no readable source
// files" without a call, counting an earlier mode's reply as a tool call).
func TestAgentModeDemoReadsGoFilesAfterAnotherMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, text := range map[string]string{
		"queue.go": "package queue\n\n// Queue holds messages in order.\ntype Queue struct{}\n",
		"main.go":  "package main\n\nfunc main() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, ev := debatetest.ToolLoopEngine(t, known, demo.NewWithPace("demo", 0), "mention", root, 0)
	if err := e.Submit(context.Background(), "@all how are you today?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	if err := e.SetMode("agent"); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "what does this code do?"); err != nil {
		t.Fatal(err)
	}
	debatetest.Settle(t, e)
	ans := debatetest.LastOf[debate.AgentAnswered](t, ev)
	var calls []string
	for _, c := range ans.ToolCalls {
		calls = append(calls, c.Tool+" "+c.Parameters["path"])
	}
	if strings.Join(calls, ", ") != "list_file ., read_file main.go" || !ans.Complete {
		t.Fatalf("tool calls %v (complete %v): want list_file then read_file of a listed Go file", calls, ans.Complete)
	}
	debatetest.MustContain(t, "answer", ans.Answer, "read `main.go`", "package main")
}

// known is the modes the engines of these tests know: mention (where a
// session starts) and this one.
var known = config.ModeList{mention.Spec{}, Spec{}}
