package debate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/open"
	"github.com/parleyhq/parley/providers/providertest"
)

// toolWorkspace makes a small project folder beside a secret file that
// must never be read, and returns the folder.
func toolWorkspace(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	root := filepath.Join(parent, "project")
	files := map[string]string{
		"README.md":      "# Hello\nA tiny program that greets.\n",
		"main.go":        "package main\n\nfunc main() { println(\"hello\") }\n",
		"lib/greet.go":   "package lib\n\n// Greet says hello.\nfunc Greet() string { return \"hello\" }\n",
		"../secret.txt":  "TOP SECRET\n",
		".git/config":    "[core]\n",
		"node_modules/x": "x\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// toolLoopEngine builds an engine in mode whose agent "coder" talks to p,
// with the workspace set to root.
func toolLoopEngine(t *testing.T, p providers.Provider, mode, root string, maxSteps int) (*Engine, *eventLog) {
	t.Helper()
	cfg := &Config{ModeList: testModes(),
		Providers: map[string]providers.Spec{"fake": {Type: "openai"}},
		Agents: []AgentSpec{
			{Name: "coder", Display: "Coder", Provider: "fake", Model: "gpt-4o", Tools: true},
			{Name: "plain", Display: "Plain", Provider: "fake", Model: "gpt-4o"},
		},
		Modes: ModesConfig{
			Mention: MentionConfig{Agents: []string{"coder"}},
			Agent:   AgentModeConfig{Agent: "coder", MaxSteps: maxSteps},
		},
		Context: ContextConfig{BudgetTokens: 24000},
	}
	agents := []*Agent{{AgentSpec: cfg.Agents[0], Provider: p}, {AgentSpec: cfg.Agents[1], Provider: p}}
	e, err := NewEngine(cfg, agents, mode)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetWorkspace(root); err != nil {
		t.Fatal(err)
	}
	ev := &eventLog{}
	e.Subscribe(ev.add)
	return e, ev
}

func openAIFake(t *testing.T, replies ...providertest.Reply) (*providertest.Server, providers.Provider) {
	t.Helper()
	return openAIFakeFunc(t, providertest.Sequence(replies...))
}

// openAIFakeFunc is openAIFake with a handler choosing each reply.
func openAIFakeFunc(t *testing.T, handler func(providertest.Request) providertest.Reply) (*providertest.Server, providers.Provider) {
	t.Helper()
	srv := providertest.OpenAI(t, handler)
	zero := 0
	p, err := open.Open("fake", providers.Spec{Type: "openai", BaseURL: srv.URL, APIKeyEnv: "TEST_KEY", Timeout: 10 * time.Second, MaxRetries: &zero},
		func(k string) string {
			if k == "TEST_KEY" {
				return "test-key"
			}
			return ""
		})
	if err != nil {
		t.Fatal(err)
	}
	return srv, p
}

func reply(text string) providertest.Reply {
	return providertest.Reply{Text: text, Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}
}

// lastUserMessage is what the model was sent last: the newest user message.
func lastUserMessage(t *testing.T, r providertest.Request) string {
	t.Helper()
	if n := len(r.Messages); n == 0 || r.Messages[n-1].Role != providers.RoleUser {
		t.Fatalf("request does not end with a user message: %+v", r.Messages)
	}
	return r.Messages[len(r.Messages)-1].Content
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// The seed's loop over the real OpenAI adapter and a fake server: list,
// read, broken XML, a read outside the workspace, complete. At each step
// the test checks what went back to the model.
func TestToolLoopOverHTTPFake(t *testing.T) {
	t.Parallel()
	root := toolWorkspace(t)
	srv, p := openAIFake(t,
		reply("Let me look at the layout first.\n<list_file><path>.</path><recursive>true</recursive></list_file>"),
		reply("<read_file>\n<path>main.go</path>\n</read_file>"),
		reply("Now the library: <read_file><path>lib/greet.go</path>"),
		reply("<read_file><path>../../etc/passwd</path></read_file>"),
		reply("Done.\n<complete><summary>A Go program: `main.go` prints hello.</summary></complete>"),
	)
	e, ev := toolLoopEngine(t, p, "agent", root, 0)
	if err := e.Submit(context.Background(), "what does this program do?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 5", len(reqs))
	}
	mustContain(t, "system prompt", reqs[0].System, "<list_file>", "<read_file>", "<complete>", "at most 20 replies", `workspace folder "project"`)
	mustContain(t, "first request", lastUserMessage(t, reqs[0]), "[Host]: what does this program do?")

	// Step 1's result: the listing, paths relative to the root, .git skipped.
	got := lastUserMessage(t, reqs[1])
	mustContain(t, "listing", got, "[tool result]: list_file . (recursive): 4 entries", "README.md (36 bytes)", "main.go (", "lib/\n", "lib/greet.go (", "[not listed (", ".git/")
	if strings.Contains(strings.SplitN(got, "[not listed", 2)[0], ".git") {
		t.Errorf("the listing shows .git:\n%s", got)
	}
	// The model sees its own call as the assistant message before the result.
	if prev := reqs[1].Messages[len(reqs[1].Messages)-2]; prev.Role != providers.RoleAssistant || !strings.Contains(prev.Content, "<list_file>") {
		t.Errorf("assistant message before the result = %+v", prev)
	}
	mustContain(t, "read result", lastUserMessage(t, reqs[2]), "[tool result]: read_file main.go: 47 bytes, 3 lines\npackage main", `println("hello")`)
	mustContain(t, "broken XML feedback", lastUserMessage(t, reqs[3]), "[tool result]: error: your reply could not be used: <read_file> is not closed", "Reply again with exactly one tool call")
	outside := lastUserMessage(t, reqs[4])
	mustContain(t, "outside read", outside, "[tool result]: error: read_file ../../etc/passwd: path is outside the workspace")
	if strings.Contains(outside, "root:") || strings.Contains(outside, "TOP SECRET") {
		t.Fatalf("the jail leaked:\n%s", outside)
	}
	for i, r := range reqs {
		for j := 1; j < len(r.Messages); j++ {
			if r.Messages[j].Role == r.Messages[j-1].Role {
				t.Errorf("request %d: two %s messages in a row", i+1, r.Messages[j].Role)
			}
		}
	}

	// The history: each reply a turn, each call a tool_call + tool_result.
	var kinds []string
	for _, en := range e.History().Entries() {
		kinds = append(kinds, string(en.Kind))
	}
	want := "user reply tool_call tool_result reply tool_call tool_result reply tool_result reply tool_call tool_result reply"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("history kinds:\n got %s\nwant %s", strings.Join(kinds, " "), want)
	}
	entries := e.History().Entries()
	list := entries[2].ToolCalls
	if len(list) != 1 || list[0].Tool != "list_file" || list[0].Parameters["path"] != "." || list[0].Parameters["recursive"] != "true" || !strings.Contains(list[0].Result, "main.go") {
		t.Fatalf("list tool call = %+v", list)
	}
	if bad := entries[10].ToolCalls; len(bad) != 1 || bad[0].Error == "" || !strings.Contains(bad[0].Result, "outside the workspace") {
		t.Fatalf("outside tool call = %+v", bad)
	}
	if fb := entries[8]; fb.Error == "" || !strings.Contains(fb.Text, "not closed") {
		t.Fatalf("feedback entry = %+v", fb)
	}
	final := entries[len(entries)-1]
	if final.Text != "A Go program: `main.go` prints hello." || final.Status != StatusComplete || final.ToolCalls[0].Tool != "complete" {
		t.Fatalf("final entry = %+v", final)
	}
	settle(t, e)
	if ans := lastOf[AgentAnswered](t, ev); ans.Answer != final.Text || !ans.Complete || ans.Steps != 5 || len(ans.ToolCalls) != 3 {
		t.Fatalf("AgentAnswered = %+v, want the final entry's text after 5 replies and 3 tool calls", ans)
	}
	// Three tool calls, each announced when it starts and when it ends.
	acts := ev.tools()
	if len(acts) != 6 || acts[0].Done || !acts[1].Done || acts[1].Call.Result == "" || acts[4].Call.Parameters["path"] != "../../etc/passwd" {
		t.Fatalf("tool events = %+v", acts)
	}
}

func TestToolLoopStepLimit(t *testing.T) {
	t.Parallel()
	root := toolWorkspace(t)
	srv, p := openAIFake(t, reply("<list_file><path>lib</path></list_file>"))
	e, _ := toolLoopEngine(t, p, "agent", root, 3)
	err := e.Submit(context.Background(), "loop forever")
	var sl *StepLimitError
	if !errors.As(err, &sl) || sl.Steps != 3 {
		t.Fatalf("err = %v, want a StepLimitError after 3 steps", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	mustContain(t, "system prompt", reqs[0].System, "at most 3 replies")
	if strings.Contains(lastUserMessage(t, reqs[1]), "Only one reply is left") {
		t.Error("warned too early")
	}
	mustContain(t, "last step", lastUserMessage(t, reqs[2]), "Only one reply is left: answer now with <complete>")
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Kind != KindError || !strings.Contains(last.Text, "used all 3 steps") {
		t.Fatalf("last entry = %+v", last)
	}
}

// A model that repeats the same protocol slip three times in a row is not
// asked a fourth time: the loop stops with the step-limit error. A slip
// broken by a good tool call starts counting afresh.
func TestToolLoopStopsOnRepeatedSlip(t *testing.T) {
	t.Parallel()
	root := toolWorkspace(t)
	const slip = "<complete><answer>I looked around.</answer></complete>" // no <summary>
	srv, p := openAIFake(t,
		reply(slip), reply(slip),
		reply("<list_file><path>lib</path></list_file>"),
		reply(slip), reply(slip), reply(slip),
		reply("<complete><summary>never asked</summary></complete>"),
	)
	e, _ := toolLoopEngine(t, p, "agent", root, 20)
	err := e.Submit(context.Background(), "explain")
	var sl *StepLimitError
	if !errors.As(err, &sl) || sl.Used != 6 || sl.Steps != 20 || sl.Repeated == "" {
		t.Fatalf("err = %#v, want a StepLimitError after 6 of 20 steps", err)
	}
	mustContain(t, "error", err.Error(), "stopped after 6 of 20 steps without calling complete: the same tool-protocol error 3 times in a row")
	if n := len(srv.Requests()); n != 6 {
		t.Fatalf("%d model calls, want 6", n)
	}
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Kind != KindError || last.Text != err.Error() {
		t.Fatalf("last entry = %+v", last)
	}
}

// A provider failure ends the loop at once, with the error.
func TestToolLoopProviderFailure(t *testing.T) {
	t.Parallel()
	root := toolWorkspace(t)
	srv, p := openAIFake(t,
		reply("<list_file><path>.</path></list_file>"),
		providertest.Reply{Status: 401, Text: "Incorrect API key provided"},
		reply("<complete><summary>never</summary></complete>"),
	)
	e, _ := toolLoopEngine(t, p, "agent", root, 0)
	err := e.Submit(context.Background(), "explain")
	if err == nil || providers.KindOf(err) != providers.KindAuth {
		t.Fatalf("err = %v (kind %s), want an auth error", err, providers.KindOf(err))
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Kind != KindReply || last.Status != StatusError {
		t.Fatalf("last entry = %+v", last)
	}
}

// Other modes' agents may just answer: RunToolLoop takes a reply without a
// tool call as the answer, while agent mode asks for a retry.
func TestRunToolLoopPlainAnswer(t *testing.T) {
	t.Parallel()
	root := toolWorkspace(t)
	srv, p := openAIFake(t,
		reply("<read_file><path>README.md</path></read_file>"),
		reply("It greets people."),
	)
	e, _ := toolLoopEngine(t, p, "mention", root, 0)
	coder, _ := e.Agent("coder")
	e.AddEntry(Entry{Kind: KindUser, Speaker: SpeakerUser, Text: "@coder what is this?"})
	spec := TurnSpec{Agent: coder, Prompt: "@coder what is this?", Instruction: "Answer the host.",
		Messages: BuildMessages(e.History().Settled(), View{Self: "coder"})}
	en, err := e.RunToolLoop(context.Background(), spec, 5)
	if err != nil {
		t.Fatal(err)
	}
	if en.Text != "It greets people." || en.Kind != KindReply {
		t.Fatalf("answer = %+v", en)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs))
	}
	mustContain(t, "system", reqs[0].System, "Answer the host.", "<read_file>", "at most 5 replies")
	mustContain(t, "result", lastUserMessage(t, reqs[1]), "[tool result]: read_file README.md", "A tiny program that greets.")

	// Agent mode: the same plain reply is sent back for a retry.
	srv2, p2 := openAIFake(t, reply("It greets people."), reply("<complete><summary>It greets.</summary></complete>"))
	e2, _ := toolLoopEngine(t, p2, "agent", root, 0)
	if err := e2.Submit(context.Background(), "what is this?"); err != nil {
		t.Fatal(err)
	}
	reqs2 := srv2.Requests()
	if len(reqs2) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs2))
	}
	mustContain(t, "retry", lastUserMessage(t, reqs2[1]), "no tool call found")
}

// Past the context budget, older tool results are clipped and the newest
// stays whole.
func TestToolLoopMessagesStayBounded(t *testing.T) {
	t.Parallel()
	e, _ := toolLoopEngine(t, demo.NewWithPace("demo", 0), "agent", t.TempDir(), 0)
	e.Config.Context.BudgetTokens = 2000
	big := strings.Repeat("line of code\n", 800) // ~10 KB each
	var mine []Entry
	for i := range 4 {
		mine = append(mine,
			Entry{Kind: KindReply, Speaker: "coder", Status: StatusComplete, Text: "<read_file><path>f</path></read_file>"},
			Entry{Kind: KindToolResult, Speaker: "coder", Status: StatusComplete, Text: "read_file f" + string(rune('0'+i)) + "\n" + big})
	}
	base := []providers.Message{{Role: providers.RoleUser, Content: "[Host]: q"}}
	msgs := e.loopMessages(base, mine, "coder")
	if n := len(msgs); n != 9 {
		t.Fatalf("%d messages, want 9", n)
	}
	for i, m := range msgs[:len(msgs)-1] {
		if len(m.Content) > 2000 {
			t.Errorf("message %d kept %d bytes", i, len(m.Content))
		}
	}
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "read_file f3") || len(last) < len(big) {
		t.Errorf("the newest result was clipped (%d bytes)", len(last))
	}
	mustContain(t, "clipped", msgs[2].Content, "older tool result shortened")
}
