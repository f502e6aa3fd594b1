package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTalkCmdDemoPrintsRoundsAndClosing(t *testing.T) {
	isolate(t)
	code, out, stderr := runCLI(t, "", "--demo", "talk", "--topic", "tabs or spaces", "--rounds", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	order := []string{"[MC]: Welcome", "── round 1 ──", "[ChatGPT]: ", "[Gemini]: ", "[MC]: Round summary", "── closing ──", "[MC]: Thank you both"}
	at := -1
	for _, want := range order {
		i := strings.Index(out, want)
		if i <= at {
			t.Fatalf("%q missing or out of order in:\n%s", want, out)
		}
		at = i
	}
	if !strings.Contains(out, " tok)\n") || !strings.Contains(stderr, "5 turns") {
		t.Fatalf("no token counts: out %q err %q", out, stderr)
	}
}

func TestTalkCmdJSONWithFailingGuest(t *testing.T) {
	dir := isolate(t)
	// Guest B is gemini, whose provider has no key here: its turns fail,
	// the talk goes on and the MC still closes; the exit code says so.
	openai, anthropic, order := fakeVendors(t, dir, "")
	code, out, stderr := runCLI(t, "", "--json", "talk", "--topic", "open source funding", "--rounds", "2")
	if code != exitRuntime {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if got := order(); got != "claude-sonnet-4-6,gpt-5,claude-sonnet-4-6,gpt-5,claude-sonnet-4-6,claude-sonnet-4-6" {
		t.Fatalf("calls %s", got)
	}
	type row struct {
		Turn        int    `json:"turn"`
		Round       int    `json:"round"`
		Speaker     string `json:"speaker"`
		IsModerator *bool  `json:"is_moderator"`
		Status      string `json:"status"`
		Text        string `json:"text"`
		Error       string `json:"error"`
	}
	var rows []row
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if r.IsModerator == nil {
			t.Fatalf("is_moderator missing: %s", line)
		}
		rows = append(rows, r)
	}
	var shape []string
	for _, r := range rows {
		shape = append(shape, r.Speaker+"/"+r.Status)
	}
	want := "mc/complete chatgpt/complete gemini/error mc/complete chatgpt/complete gemini/error mc/complete mc/complete"
	if got := strings.Join(shape, " "); got != want {
		t.Fatalf("rows %s\nwant %s", got, want)
	}
	if !strings.Contains(rows[2].Error, "GEMINI_API_KEY") || !*rows[7].IsModerator || *rows[1].IsModerator {
		t.Fatalf("rows %+v", rows)
	}
	// The MC's closing request asked it to close and carried the guests' words.
	mc := anthropic.Requests()
	closing := mc[len(mc)-1]
	lastMsg := closing.Messages[len(closing.Messages)-1].Content
	if !strings.Contains(lastMsg, "close the talk") || len(openai.Requests()) != 2 {
		t.Fatalf("closing request ends with %q", lastMsg)
	}
}

func TestTalkCmdFlagsChooseTheSpeakers(t *testing.T) {
	dir := isolate(t)
	_, _, order := fakeVendors(t, dir, "")
	code, out, stderr := runCLI(t, "", "talk", "--topic", "x", "--rounds", "1", "--a", "codex", "--b", "claude", "--mc", "chatgpt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := order(); got != "gpt-5,gpt-5-codex,claude-sonnet-4-6,gpt-5,gpt-5" {
		t.Fatalf("calls %s", got)
	}
	if !strings.HasPrefix(out, "[ChatGPT]: openai reply 1 to gpt-5.  (120 tok)") {
		t.Fatalf("out:\n%s", out)
	}
}

func TestTalkCmdUsageErrors(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo", "talk"}, "--topic is required"},
		{[]string{"--demo", "talk", "--topic", "x", "--a", "bard"}, `unknown agent "bard"`},
		{[]string{"--demo", "talk", "--topic", "x", "--rounds", "0"}, "--rounds"},
		{[]string{"--demo", "talk", "positional"}, "unknown command"},
	} {
		code, out, stderr := runCLI(t, "", c.args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Fatalf("%v: exit %d out %q err %q", c.args, code, out, stderr)
		}
	}
}

// fakeTalk records what the interrupt handler asked of the talk.
type fakeTalk struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeTalk) note(s string) { f.mu.Lock(); f.calls = append(f.calls, s); f.mu.Unlock() }
func (f *fakeTalk) Pause()        { f.note("pause") }
func (f *fakeTalk) Continue()     { f.note("continue") }
func (f *fakeTalk) Stop()         { f.note("stop") }
func (f *fakeTalk) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.calls, ",")
}

func TestTalkInterruptAsksContinueOrStop(t *testing.T) {
	waitFor := func(t *testing.T, f *fakeTalk, want string) {
		t.Helper()
		deadline := time.Now().Add(2 * time.Second)
		for f.String() != want {
			if time.Now().After(deadline) {
				t.Fatalf("calls %q, want %q", f.String(), want)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	t.Run("continue, then stop, then cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		answers := make(chan bool, 2)
		answers <- true
		answers <- false
		sigs := make(chan os.Signal)
		f := &fakeTalk{}
		var errOut bytes.Buffer
		var mu sync.Mutex
		w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return errOut.Write(p) })
		done := make(chan struct{})
		go func() { handleTalkInterrupts(ctx, sigs, f, cancel, func() bool { return <-answers }, w); close(done) }()
		sigs <- os.Interrupt
		waitFor(t, f, "pause,continue")
		sigs <- os.Interrupt
		waitFor(t, f, "pause,continue,pause,stop")
		sigs <- os.Interrupt // a Ctrl+C while the MC closes cancels
		<-done
		if ctx.Err() == nil {
			t.Fatal("the third Ctrl+C should cancel")
		}
		mu.Lock()
		defer mu.Unlock()
		if got := errOut.String(); strings.Count(got, "continue or stop? [c/s]") != 2 || !strings.Contains(got, "cancelled") {
			t.Fatalf("stderr %q", got)
		}
	})
	t.Run("Ctrl+C while asking cancels", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sigs := make(chan os.Signal)
		f := &fakeTalk{}
		block := make(chan bool)
		defer close(block)
		done := make(chan struct{})
		go func() {
			handleTalkInterrupts(ctx, sigs, f, cancel, func() bool { return <-block }, &bytes.Buffer{})
			close(done)
		}()
		sigs <- os.Interrupt
		sigs <- os.Interrupt
		<-done
		if ctx.Err() == nil || f.String() != "pause" {
			t.Fatalf("ctx %v calls %q", ctx.Err(), f.String())
		}
	})
}

func TestAskContinueWithoutTerminalStops(t *testing.T) {
	if askContinue(strings.NewReader("c\n")) {
		t.Fatal("a reader that is not a terminal must mean stop")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("c\n")
	w.Close()
	if askContinue(r) {
		t.Fatal("a pipe must mean stop")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestTalkCmdSavesTopicGuestsAndModerator(t *testing.T) {
	dir := isolate(t)
	fakeVendors(t, dir, "modes:\n  talk:\n    b: claude\n")
	if code, _, stderr := runCLI(t, "", "talk", "--topic", "four-day weeks", "--rounds", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, entries := savedSession(t)
	if info.Mode != "talk" || info.Topic != "four-day weeks" || info.State["talk.a"] != "chatgpt" || info.State["talk.b"] != "claude" || info.State["talk.moderator"] != "mc" {
		t.Fatalf("saved session %+v", info)
	}
	var shape []string
	for _, en := range entries {
		shape = append(shape, fmt.Sprintf("%s/%v", en.Speaker, en.IsModerator))
	}
	if got := strings.Join(shape, " "); got != "user/false mc/true chatgpt/false claude/false mc/true mc/true" {
		t.Fatalf("saved turns %s", got)
	}
}

// lockedBuffer is a bytes.Buffer safe to read while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// A real Ctrl+C during a headless talk: stdin is not a terminal, so the
// answer is "stop"; the current turn finishes, the MC closes, exit 0.
func TestTalkCmdCtrlCStopsWithTheClosing(t *testing.T) {
	isolate(t)
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- executeIO(context.Background(), []string{"--demo", "talk", "--topic", "coffee or tea", "--rounds", "5"}, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "[MC]: Welcome") { // the handler is listening by now
		if time.Now().After(deadline) {
			t.Fatalf("no opening: %q %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	self, _ := os.FindProcess(os.Getpid())
	if err := self.Signal(os.Interrupt); err != nil {
		t.Skipf("cannot send Ctrl+C to ourselves here: %v", err) // Windows
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the talk did not end after stop")
	}
	got := out.String()
	if code != 0 || !strings.Contains(errOut.String(), "continue or stop? [c/s]") || !strings.Contains(got, "── closing ──\n[MC]: Thank you both") {
		t.Fatalf("exit %d\nout:\n%s\nerr:\n%s", code, got, errOut.String())
	}
	if strings.Contains(got, "── round 2 ──") {
		t.Fatalf("the talk went on after stop:\n%s", got)
	}
}
