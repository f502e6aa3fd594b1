package debate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	. "github.com/parleyhq/parley/debate"
	. "github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
	"github.com/parleyhq/parley/providers/demo"
	"github.com/parleyhq/parley/providers/providertest"
)

// lastUserMessage is what the model was sent last: the newest user message.
func lastUserMessage(t *testing.T, r providertest.Request) string {
	t.Helper()
	if n := len(r.Messages); n == 0 || r.Messages[n-1].Role != providers.RoleUser {
		t.Fatalf("request does not end with a user message: %+v", r.Messages)
	}
	return r.Messages[len(r.Messages)-1].Content
}

// The seed's loop over the real OpenAI adapter and a fake server: list,
// read, broken XML, a read outside the workspace, complete. At each step
// the test checks what went back to the model.
func TestToolLoopOverHTTPFake(t *testing.T) {
	t.Parallel()
	root := ToolWorkspace(t)
	srv, p := OpenAIFake(t,
		TextReply("Let me look at the layout first.\n<list_file><path>.</path><recursive>true</recursive></list_file>"),
		TextReply("<read_file>\n<path>main.go</path>\n</read_file>"),
		TextReply("Now the library: <read_file><path>lib/greet.go</path>"),
		TextReply("<read_file><path>../../etc/passwd</path></read_file>"),
		TextReply("Done.\n<complete><summary>A Go program: `main.go` prints hello.</summary></complete>"),
	)
	e, ev := ToolLoopEngine(t, known, p, "agent", root, 0)
	if err := e.Submit(context.Background(), "what does this program do?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 5", len(reqs))
	}
	MustContain(t, "system prompt", reqs[0].System, "<list_file>", "<read_file>", "<complete>", "at most 20 replies", `workspace folder "project"`)
	MustContain(t, "first request", lastUserMessage(t, reqs[0]), "[Host]: what does this program do?")

	// Step 1's result: the listing, paths relative to the root, .git skipped.
	got := lastUserMessage(t, reqs[1])
	MustContain(t, "listing", got, "[tool result]: list_file . (recursive): 4 entries", "README.md (36 bytes)", "main.go (", "lib/\n", "lib/greet.go (", "[not listed (", ".git/")
	if strings.Contains(strings.SplitN(got, "[not listed", 2)[0], ".git") {
		t.Errorf("the listing shows .git:\n%s", got)
	}
	// The model sees its own call as the assistant message before the result.
	if prev := reqs[1].Messages[len(reqs[1].Messages)-2]; prev.Role != providers.RoleAssistant || !strings.Contains(prev.Content, "<list_file>") {
		t.Errorf("assistant message before the result = %+v", prev)
	}
	MustContain(t, "read result", lastUserMessage(t, reqs[2]), "[tool result]: read_file main.go: 47 bytes, 3 lines\npackage main", `println("hello")`)
	MustContain(t, "broken XML feedback", lastUserMessage(t, reqs[3]), "[tool result]: error: your reply could not be used: <read_file> is not closed", "Reply again with exactly one tool call")
	outside := lastUserMessage(t, reqs[4])
	MustContain(t, "outside read", outside, "[tool result]: error: read_file ../../etc/passwd: path is outside the workspace")
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
	if final.Text != "A Go program: `main.go` prints hello." || final.Status != transcript.StatusComplete || final.ToolCalls[0].Tool != "complete" {
		t.Fatalf("final entry = %+v", final)
	}
	Settle(t, e)
	if ans := LastOf[AgentAnswered](t, ev); ans.Answer != final.Text || !ans.Complete || ans.Steps != 5 || len(ans.ToolCalls) != 3 {
		t.Fatalf("AgentAnswered = %+v, want the final entry's text after 5 replies and 3 tool calls", ans)
	}
	// Three tool calls, each announced when it starts and when it ends.
	acts := ev.Tools()
	if len(acts) != 6 || acts[0].Done || !acts[1].Done || acts[1].Call.Result == "" || acts[4].Call.Parameters["path"] != "../../etc/passwd" {
		t.Fatalf("tool events = %+v", acts)
	}
}

func TestToolLoopStepLimit(t *testing.T) {
	t.Parallel()
	root := ToolWorkspace(t)
	srv, p := OpenAIFake(t, TextReply("<list_file><path>lib</path></list_file>"))
	e, _ := ToolLoopEngine(t, known, p, "agent", root, 3)
	err := e.Submit(context.Background(), "loop forever")
	var sl *StepLimitError
	if !errors.As(err, &sl) || sl.Steps != 3 {
		t.Fatalf("err = %v, want a StepLimitError after 3 steps", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	MustContain(t, "system prompt", reqs[0].System, "at most 3 replies")
	if strings.Contains(lastUserMessage(t, reqs[1]), "Only one reply is left") {
		t.Error("warned too early")
	}
	MustContain(t, "last step", lastUserMessage(t, reqs[2]), "Only one reply is left: answer now with <complete>")
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Kind != transcript.KindError || !strings.Contains(last.Text, "used all 3 steps") {
		t.Fatalf("last entry = %+v", last)
	}
}

// A model that repeats the same protocol slip three times in a row is not
// asked a fourth time: the loop stops with the step-limit error. A slip
// broken by a good tool call starts counting afresh.
func TestToolLoopStopsOnRepeatedSlip(t *testing.T) {
	t.Parallel()
	root := ToolWorkspace(t)
	const slip = "<complete><answer>I looked around.</answer></complete>" // no <summary>
	srv, p := OpenAIFake(t,
		TextReply(slip), TextReply(slip),
		TextReply("<list_file><path>lib</path></list_file>"),
		TextReply(slip), TextReply(slip), TextReply(slip),
		TextReply("<complete><summary>never asked</summary></complete>"),
	)
	e, _ := ToolLoopEngine(t, known, p, "agent", root, 20)
	err := e.Submit(context.Background(), "explain")
	var sl *StepLimitError
	if !errors.As(err, &sl) || sl.Used != 6 || sl.Steps != 20 || sl.Repeated == "" {
		t.Fatalf("err = %#v, want a StepLimitError after 6 of 20 steps", err)
	}
	MustContain(t, "error", err.Error(), "stopped after 6 of 20 steps without calling complete: the same tool-protocol error 3 times in a row")
	if n := len(srv.Requests()); n != 6 {
		t.Fatalf("%d model calls, want 6", n)
	}
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Kind != transcript.KindError || last.Text != err.Error() {
		t.Fatalf("last entry = %+v", last)
	}
}

// A provider failure ends the loop at once, with the error.
func TestToolLoopProviderFailure(t *testing.T) {
	t.Parallel()
	root := ToolWorkspace(t)
	srv, p := OpenAIFake(t,
		TextReply("<list_file><path>.</path></list_file>"),
		providertest.Reply{Status: 401, Text: "Incorrect API key provided"},
		TextReply("<complete><summary>never</summary></complete>"),
	)
	e, _ := ToolLoopEngine(t, known, p, "agent", root, 0)
	err := e.Submit(context.Background(), "explain")
	if err == nil || providers.KindOf(err) != providers.KindAuth {
		t.Fatalf("err = %v (kind %s), want an auth error", err, providers.KindOf(err))
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
	entries := e.History().Entries()
	if last := entries[len(entries)-1]; last.Kind != transcript.KindReply || last.Status != transcript.StatusError {
		t.Fatalf("last entry = %+v", last)
	}
}

// Other modes' agents may just answer: RunToolLoop takes a reply without a
// tool call as the answer, while agent mode asks for a retry.
func TestRunToolLoopPlainAnswer(t *testing.T) {
	t.Parallel()
	root := ToolWorkspace(t)
	srv, p := OpenAIFake(t,
		TextReply("<read_file><path>README.md</path></read_file>"),
		TextReply("It greets people."),
	)
	e, _ := ToolLoopEngine(t, known, p, "mention", root, 0)
	coder, _ := e.Agent("coder")
	e.AddEntry(transcript.Entry{Kind: transcript.KindUser, Speaker: transcript.SpeakerUser, Text: "@coder what is this?"})
	spec := TurnSpec{Agent: coder, Prompt: "@coder what is this?", Instruction: "Answer the host.",
		Messages: BuildMessages(e.History().Settled(), View{Self: "coder"})}
	en, err := e.RunToolLoop(context.Background(), spec, 5)
	if err != nil {
		t.Fatal(err)
	}
	if en.Text != "It greets people." || en.Kind != transcript.KindReply {
		t.Fatalf("answer = %+v", en)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs))
	}
	MustContain(t, "system", reqs[0].System, "Answer the host.", "<read_file>", "at most 5 replies")
	MustContain(t, "result", lastUserMessage(t, reqs[1]), "[tool result]: read_file README.md", "A tiny program that greets.")

	// Agent mode: the same plain reply is sent back for a retry.
	srv2, p2 := OpenAIFake(t, TextReply("It greets people."), TextReply("<complete><summary>It greets.</summary></complete>"))
	e2, _ := ToolLoopEngine(t, known, p2, "agent", root, 0)
	if err := e2.Submit(context.Background(), "what is this?"); err != nil {
		t.Fatal(err)
	}
	reqs2 := srv2.Requests()
	if len(reqs2) != 2 {
		t.Fatalf("%d calls, want 2", len(reqs2))
	}
	MustContain(t, "retry", lastUserMessage(t, reqs2[1]), "no tool call found")
}

// Past the context budget, older tool results are clipped and the newest
// stays whole.
func TestToolLoopMessagesStayBounded(t *testing.T) {
	t.Parallel()
	e, _ := ToolLoopEngine(t, known, demo.NewWithPace("demo", 0), "agent", t.TempDir(), 0)
	e.Config.Context.BudgetTokens = 2000
	big := strings.Repeat("line of code\n", 800) // ~10 KB each
	var mine []transcript.Entry
	for i := range 4 {
		mine = append(mine,
			transcript.Entry{Kind: transcript.KindReply, Speaker: "coder", Status: transcript.StatusComplete, Text: "<read_file><path>f</path></read_file>"},
			transcript.Entry{Kind: transcript.KindToolResult, Speaker: "coder", Status: transcript.StatusComplete, Text: "read_file f" + string(rune('0'+i)) + "\n" + big})
	}
	base := []providers.Message{{Role: providers.RoleUser, Content: "[Host]: q"}}
	msgs := e.LoopMessages(base, mine, "coder")
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
	MustContain(t, "clipped", msgs[2].Content, "older tool result shortened")
}
