package mention

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleyhq/parley/debate"
	"github.com/parleyhq/parley/debate/config"
	"github.com/parleyhq/parley/debate/debatetest"
	"github.com/parleyhq/parley/debate/transcript"

	"github.com/parleyhq/parley/providers"
)

var knownNames = []string{"gemini", "chatgpt", "claude"}

func TestParseMentions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line    string
		names   []string
		all     bool
		unknown string
	}{
		{line: "just a note", names: nil},
		{line: "@gemini what is a monad?", names: []string{"gemini"}},
		{line: "@Gemini, hi", names: []string{"gemini"}},
		{line: "@gemini @claude compare", names: []string{"gemini", "claude"}},
		{line: "@claude @gemini @claude twice", names: []string{"claude", "gemini"}},
		{line: "@all hello", all: true},
		{line: "@ALL: hello", all: true},
		{line: "@all @claude hello", names: []string{"claude"}, all: true},
		{line: "what do you think, @claude?", names: []string{"claude"}},
		{line: "mail me at bob@example.com", names: nil},
		{line: "use @Override in Java", names: nil},
		{line: "@bard hello", unknown: "bard"},
		{line: "@gemini @bard hello", unknown: "bard"},
		{line: "@ lonely at sign", names: nil},
		{line: "@", names: nil},
		{line: "", names: nil},
		{line: "@gemini:", names: []string{"gemini"}},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			m, err := ParseMentions(c.line, knownNames)
			if c.unknown != "" {
				var ua *debate.UnknownAgentError
				if !errors.As(err, &ua) || ua.Name != c.unknown {
					t.Fatalf("want unknown %q, got %v", c.unknown, err)
				}
				if !strings.Contains(err.Error(), "@gemini, @chatgpt, @claude") {
					t.Fatalf("error should list known names: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(m.Names) != fmt.Sprint(c.names) || m.All != c.all {
				t.Fatalf("got names=%v all=%v, want %v %v", m.Names, m.All, c.names, c.all)
			}
		})
	}
}

func FuzzParseMentions(f *testing.F) {
	for _, s := range []string{"@gemini hi", "@all", "@x", "a@b", "@gemini @claude x", "@\x00", "@ALL:", "@ä", "@gemini\n@claude"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		m, err := ParseMentions(line, knownNames)
		if err != nil {
			var ua *debate.UnknownAgentError
			if !errors.As(err, &ua) {
				t.Fatalf("unexpected error type %T", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, n := range m.Names {
			if seen[n] {
				t.Fatalf("duplicate %q", n)
			}
			seen[n] = true
			found := false
			for _, k := range knownNames {
				found = found || k == n
			}
			if !found {
				t.Fatalf("name %q is not known", n)
			}
		}
	})
}

func TestNoteIsAppendedWithoutCalls(t *testing.T) {
	t.Parallel()
	fakes := map[string]*debatetest.Fake{}
	e, log := debatetest.NewSpineEngine(known, fakes)
	if err := e.Submit(context.Background(), "we need to pick a database"); err != nil {
		t.Fatal(err)
	}
	entries := e.History().Entries()
	if len(entries) != 1 || entries[0].Kind != transcript.KindNote || entries[0].Text != "we need to pick a database" {
		t.Fatalf("entries: %+v", entries)
	}
	for name, f := range fakes {
		if n := len(f.Requests()); n != 0 {
			t.Fatalf("%s was called %d times for a note", name, n)
		}
	}
	debatetest.Settle(t, e)
	for _, ev := range log.All() {
		if _, ok := ev.(debate.TurnStarted); ok {
			t.Fatal("a note started a turn")
		}
	}
}

func TestUnknownMentionAppendsNothing(t *testing.T) {
	t.Parallel()
	fakes := map[string]*debatetest.Fake{}
	e, _ := debatetest.NewSpineEngine(known, fakes)
	err := e.Submit(context.Background(), "@bard hello")
	var ua *debate.UnknownAgentError
	if !errors.As(err, &ua) {
		t.Fatalf("want UnknownAgentError, got %v", err)
	}
	if n := e.History().Len(); n != 0 {
		t.Fatalf("history has %d entries after a refused line", n)
	}
}

// A line of names alone asks nothing: it is refused before anything is
// kept or any agent is called (a bare "@all" was a paid call to every
// agent). A line with any word after the names is a question.
func TestNamesWithoutAQuestionAreRefused(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"@all", "@ALL:", "@gemini", "@gemini @claude", "  @all  @chatgpt,  "} {
		fakes := map[string]*debatetest.Fake{}
		e, _ := debatetest.NewSpineEngine(known, fakes)
		err := e.Submit(context.Background(), line)
		var nq *debate.NoQuestionError
		if !errors.As(err, &nq) {
			t.Fatalf("%q: want NoQuestionError, got %v", line, err)
		}
		if n := e.History().Len(); n != 0 {
			t.Fatalf("%q: history has %d entries after a refused line", line, n)
		}
		for name, f := range fakes {
			if n := len(f.Requests()); n != 0 {
				t.Fatalf("%q: %s was called %d times", line, name, n)
			}
		}
	}
	for line, want := range map[string]bool{"@all ?": true, "@gemini hi": true, "@gemini @bard": true, "@all": false} {
		if got := asksSomething(line, knownNames); got != want {
			t.Errorf("asksSomething(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestMentionRoutingTable(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"@gemini hi":          {"gemini"},
		"@claude @gemini hi":  {"gemini", "claude"}, // configuration order, not typing order
		"@all hi":             {"gemini", "chatgpt"},
		"@all @claude hi":     {"gemini", "chatgpt", "claude"},
		"hi @chatgpt, thanks": {"chatgpt"},
	}
	for line, want := range cases {
		t.Run(line, func(t *testing.T) {
			fakes := map[string]*debatetest.Fake{}
			e, _ := debatetest.NewSpineEngine(known, fakes)
			if err := e.Submit(context.Background(), line); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, en := range e.History().Entries() {
				if en.Kind == transcript.KindReply {
					got = append(got, en.Speaker)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("replies from %v, want %v", got, want)
			}
			for name, f := range fakes {
				called := len(f.Requests()) > 0
				wanted := strings.Contains(fmt.Sprint(want), name)
				if called != wanted {
					t.Fatalf("%s called=%v, want %v", name, called, wanted)
				}
			}
		})
	}
}

// Two agents answer @all in parallel: each is called before either may say
// a word (a serial engine would wait for the first answer forever), the
// first configured one finishes last, the answers are still appended in
// configuration order, and neither sees the other's answer of the same round.
func TestAllRunsInParallelInConfigOrder(t *testing.T) {
	t.Parallel()
	started := make(chan string, 2)
	geminiGo, chatgptGo := make(chan struct{}), make(chan struct{})
	fakes := map[string]*debatetest.Fake{
		"gemini":  {Agent: "gemini", Started: started, Gate: geminiGo, Answer: func(providers.Request) string { return "gemini says A" }},
		"chatgpt": {Agent: "chatgpt", Started: started, Gate: chatgptGo, Answer: func(providers.Request) string { return "chatgpt says B" }},
	}
	e, log := debatetest.NewSpineEngine(known, fakes)
	chatgptDone := debatetest.On(e, func(f debate.TurnFinished) bool { return f.Entry.Speaker == "chatgpt" })
	submitted := make(chan error, 1)
	go func() { submitted <- e.Submit(context.Background(), "@all question one") }()
	deadline := time.After(20 * time.Second)
	for range 2 {
		select {
		case <-started:
		case <-deadline:
			t.Fatal("@all: the second agent was not called while the first was still answering")
		}
	}
	close(chatgptGo)
	select {
	case <-chatgptDone:
	case <-deadline:
		t.Fatal("chatgpt never finished")
	}
	close(geminiGo)
	select {
	case err := <-submitted:
		if err != nil {
			t.Fatal(err)
		}
	case <-deadline:
		t.Fatal("@all never finished")
	}
	entries := e.History().Entries()
	if len(entries) != 3 || entries[1].Speaker != "gemini" || entries[2].Speaker != "chatgpt" {
		t.Fatalf("order: %+v", entries)
	}
	// chatgpt finished first ...
	var finished []string
	debatetest.Settle(t, e)
	for _, ev := range log.All() {
		if tf, ok := ev.(debate.TurnFinished); ok {
			finished = append(finished, tf.Entry.Speaker)
		}
	}
	if fmt.Sprint(finished) != "[chatgpt gemini]" {
		t.Fatalf("finish order %v: the test should have chatgpt finish first", finished)
	}
	// ... and neither saw the other's answer of the same round.
	for _, name := range []string{"gemini", "chatgpt"} {
		for _, m := range fakes[name].Requests()[0].Messages {
			if strings.Contains(m.Content, "says") {
				t.Fatalf("%s saw a same-round answer: %q", name, m.Content)
			}
		}
	}
	// The next round sees both answers, its own as assistant.
	if err := e.Submit(context.Background(), "@gemini and now?"); err != nil {
		t.Fatal(err)
	}
	msgs := fakes["gemini"].Requests()[1].Messages
	want := []providers.Message{
		{Role: providers.RoleUser, Content: "[Host]: @all question one"},
		{Role: providers.RoleAssistant, Content: "gemini says A"},
		{Role: providers.RoleUser, Content: "[ChatGPT]: chatgpt says B\n\n[Host]: @gemini and now?"},
	}
	if fmt.Sprintf("%+v", msgs) != fmt.Sprintf("%+v", want) {
		t.Fatalf("round two messages:\n got %+v\nwant %+v", msgs, want)
	}
}

func TestCancelKeepsWhatArrived(t *testing.T) {
	t.Parallel()
	fakes := map[string]*debatetest.Fake{
		"gemini": {Agent: "gemini", ChunkDelay: 30 * time.Millisecond, Answer: func(providers.Request) string {
			return strings.Repeat("word ", 200)
		}},
	}
	e, _ := debatetest.NewSpineEngine(known, fakes)
	var arrived strings.Builder
	twoWords := debatetest.On(e, func(d debate.TextDelta) bool {
		arrived.WriteString(d.Text)
		return strings.Count(arrived.String(), "word") >= 2
	})
	done := make(chan error)
	go func() { done <- e.Submit(context.Background(), "@gemini talk a lot") }()
	<-twoWords
	if !e.Busy() {
		t.Fatal("engine should be busy while streaming")
	}
	if err := e.Submit(context.Background(), "@chatgpt in between"); !errors.Is(err, debate.ErrBusy) {
		t.Fatalf("second exchange while busy: %v", err)
	}
	if err := e.Submit(context.Background(), "a note while busy is fine"); err != nil {
		t.Fatalf("note while busy: %v", err)
	}
	e.Cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	var reply transcript.Entry
	for _, en := range e.History().Entries() {
		if en.Kind == transcript.KindReply {
			reply = en
		}
	}
	if reply.Status != transcript.StatusCancelled || !strings.HasPrefix(reply.Text, "word word") || len(reply.Text) >= 1000 {
		t.Fatalf("cancelled reply: status %s, %d bytes", reply.Status, len(reply.Text))
	}
}

func TestCutStreamKeepsPartialText(t *testing.T) {
	t.Parallel()
	fakes := map[string]*debatetest.Fake{
		"gemini":  {Agent: "gemini", Answer: func(providers.Request) string { return "half an ans" }, Fail: errCut},
		"chatgpt": {Agent: "chatgpt"},
	}
	e, log := debatetest.NewSpineEngine(known, fakes)
	err := e.Submit(context.Background(), "@all go")
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("want the cut reported, got %v", err)
	}
	entries := e.History().Entries()
	if entries[1].Status != transcript.StatusPartial || entries[1].Text != "half an ans" || entries[2].Status != transcript.StatusComplete {
		t.Fatalf("entries: %+v", entries[1:])
	}
	sawError := false
	debatetest.Settle(t, e)
	for _, ev := range log.All() {
		if eo, ok := ev.(debate.ErrorOccurred); ok && eo.Agent == "gemini" && eo.Kind == string(providers.KindNetwork) {
			sawError = true
		}
	}
	if !sawError {
		t.Fatal("no ErrorOccurred for the cut stream")
	}
}

func TestProviderPanicBecomesError(t *testing.T) {
	t.Parallel()
	fakes := map[string]*debatetest.Fake{"gemini": {Agent: "gemini", PanicMsg: "index out of range"}}
	e, _ := debatetest.NewSpineEngine(known, fakes)
	err := e.Submit(context.Background(), "@all go")
	if err == nil || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("want the panic as an error, got %v", err)
	}
	if en, _ := e.History().Get(2); en.Status != transcript.StatusError {
		t.Fatalf("gemini entry: %+v", en)
	}
	if en, _ := e.History().Get(3); en.Status != transcript.StatusComplete {
		t.Fatalf("chatgpt should still answer: %+v", en)
	}
}

func TestUsageAndCost(t *testing.T) {
	t.Parallel()
	e, log := debatetest.NewSpineEngine(known, nil)
	if err := e.Submit(context.Background(), "@chatgpt price me"); err != nil {
		t.Fatal(err)
	}
	en, _ := e.History().Get(2)
	if en.Usage.InputTokens == 0 || en.Usage.OutputTokens == 0 {
		t.Fatalf("no usage: %+v", en.Usage)
	}
	want := (float64(en.Usage.InputTokens)*1.25 + float64(en.Usage.OutputTokens)*10) / 1e6
	if en.Cost != want {
		t.Fatalf("cost %v, want %v", en.Cost, want)
	}
	var done debate.ExchangeFinished
	debatetest.Settle(t, e)
	for _, ev := range log.All() {
		if d, ok := ev.(debate.ExchangeFinished); ok {
			done = d
		}
	}
	if done.Cost != want || done.Usage != en.Usage {
		t.Fatalf("exchange totals %+v", done)
	}
}

// BenchmarkFanOut: three agents with fixed latencies answer one @mention
// round; the metric is wall time ÷ the slowest agent's latency (1.0 = fully
// parallel, 2.0 would mean the sum of the two fastest was added).
func BenchmarkFanOut(b *testing.B) {
	latencies := map[string]time.Duration{"gemini": 20 * time.Millisecond, "chatgpt": 30 * time.Millisecond, "claude": 40 * time.Millisecond}
	slowest := 40 * time.Millisecond
	var total time.Duration
	for i := 0; i < b.N; i++ {
		fakes := map[string]*debatetest.Fake{}
		for name, d := range latencies {
			fakes[name] = &debatetest.Fake{Agent: name, Delay: d}
		}
		e, _ := debatetest.NewSpineEngine(known, fakes)
		start := time.Now()
		if err := e.Submit(context.Background(), "@all @claude go"); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(slowest), "wall/slowest")
}

// An agent with tools: true may read the workspace before answering in
// mention mode; the others answer as usual, in parallel.
func TestMentionAgentWithToolsReadsTheWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the launch is on Tuesday\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	step := 0
	fakes := map[string]*debatetest.Fake{
		"claude": {Agent: "claude", Answer: func(req providers.Request) string {
			step++
			if step == 1 {
				return "Let me check. <read_file><path>notes.txt</path></read_file>"
			}
			return "The notes say Tuesday."
		}},
	}
	e, _ := debatetest.NewSpineEngine(known, fakes)
	for _, a := range e.Agents() {
		if a.Name == "claude" {
			a.Tools = config.ToolList{"files"}
		}
	}
	if err := e.SetWorkspace(dir); err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "@claude @gemini when is the launch? read notes.txt"); err != nil {
		t.Fatal(err)
	}
	reqs := fakes["claude"].Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].System, "<read_file>") {
		t.Fatalf("claude should get the tool protocol and a second call: %d requests", len(reqs))
	}
	lastMsg := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(lastMsg, "the launch is on Tuesday") {
		t.Fatalf("the tool result did not reach claude: %q", lastMsg)
	}
	if strings.Contains(fakes["gemini"].Requests()[0].System, "<read_file>") {
		t.Fatal("gemini has no tools and must not get the protocol")
	}
	var final transcript.Entry
	kinds := map[transcript.Kind]int{}
	for _, en := range e.History().Entries() {
		kinds[en.Kind]++
		if en.Speaker == "claude" && en.Kind == transcript.KindReply {
			final = en
		}
	}
	if final.Text != "The notes say Tuesday." || kinds[transcript.KindToolCall] != 1 || kinds[transcript.KindToolResult] != 1 {
		t.Fatalf("final %q, kinds %v", final.Text, kinds)
	}
}

var errCut = &providers.Error{Provider: "fake", Kind: providers.KindNetwork, Message: "unexpected EOF"}

// known is the modes the engines of these tests know: this one.
var known = config.ModeList{Spec{}}

// The panels follow @all's list in the order it names its agents (a
// session created with agents keeps their order), then anyone addressed
// since, in configuration order; a line never moves a panel.
func TestPanelsKeepTheListsOrder(t *testing.T) {
	t.Parallel()
	cfg := debatetest.SpineConfig(known)
	cfg.Modes.Mention.Agents = []string{"chatgpt", "gemini"} // not configuration order
	e := debatetest.NewMixedEngine(t, cfg, debate.ModeMention, nil)
	names := func() string {
		var out []string
		for _, a := range e.Current().Agents() {
			out = append(out, a.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(); got != "chatgpt,gemini" {
		t.Fatalf("panels at the start: %s", got)
	}
	for _, line := range []string{"@all hi", "@claude and you?"} {
		if err := e.Submit(context.Background(), line); err != nil {
			t.Fatal(err)
		}
		debatetest.Settle(t, e)
	}
	if got := names(); got != "chatgpt,gemini,claude" {
		t.Errorf("panels after @all and @claude: %s", got)
	}
}
